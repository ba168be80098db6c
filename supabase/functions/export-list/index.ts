// export-list (product.md §7): a member downloads a list as JSON (list, members, tasks with their
// checklists and comments) or CSV (one row per task). It reads as the caller, so RLS decides: a list the
// caller may not see is NOT_FOUND, exactly as if it did not exist.
import type { SupabaseClient } from '@supabase/supabase-js';

import {
  corsHeaders,
  fail,
  json,
  readInput,
  serveAuthenticated,
  serverError,
  uuid,
  z,
} from '../_shared/http.ts';

const Input = z.object({ list_id: uuid, format: z.enum(['json', 'csv']).default('json') });

/** PostgREST caps a response at max_rows (1,000); larger lists are read in pages of this. */
const PAGE_ROWS = 1000;

type Row = Record<string, unknown>;

async function allRows(
  client: SupabaseClient,
  table: string,
  column: string,
  value: string,
  order: string,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (let from = 0; ; from += PAGE_ROWS) {
    const { data, error } = await client
      .from(table)
      .select('*')
      .eq(column, value)
      .is('deleted_at', null)
      .order(order)
      .order('id')
      .range(from, from + PAGE_ROWS - 1);
    if (error) throw error;
    rows.push(...(data as Row[]));
    if (data.length < PAGE_ROWS) return rows;
  }
}

const CSV_COLUMNS = [
  'id',
  'title',
  'status',
  'priority',
  'due_on',
  'repeat',
  'checklist',
  'assignee',
  'notes',
  'completed_at',
  'created_at',
  'updated_at',
] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled.
 * A text cell starting with = + - @ (or tab/CR) is prefixed with ' so that a spreadsheet
 * opening the export does not run it as a formula (CSV injection).
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The rows of `rows` by their `task_id`, in their order. */
function byTask(rows: Row[]): Map<string, Row[]> {
  const grouped = new Map<string, Row[]>();
  for (const row of rows) {
    const key = String(row.task_id);
    grouped.set(key, [...(grouped.get(key) ?? []), row]);
  }
  return grouped;
}

function toCsv(tasks: Row[], names: Map<string, string>, items: Map<string, Row[]>): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const task of tasks) {
    const assignee =
      typeof task.assignee_id === 'string'
        ? (names.get(task.assignee_id) ?? task.assignee_id)
        : null;
    const checklist = items.get(String(task.id)) ?? [];
    const progress = checklist.length
      ? `${checklist.filter((item) => item.done === true).length}/${checklist.length}`
      : null;
    const cells = CSV_COLUMNS.map((column) =>
      csvField(column === 'assignee' ? assignee : column === 'checklist' ? progress : task[column]),
    );
    lines.push(cells.join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A file name made only of safe characters, from the list's name. */
function fileName(listName: string, format: string): string {
  const base = listName
    .normalize('NFKD')
    .replace(/[^\w\- ]+/g, '')
    .trim()
    .replace(/\s+/g, '-');
  return `${base || 'list'}.${format}`;
}

serveAuthenticated(['GET', 'POST'], async (req, who) => {
  const wanted = await readInput(req, Input);
  if (wanted instanceof Response) return wanted;

  const { data: list, error } = await who.client
    .from('lists')
    .select('id, name, color, created_at, updated_at')
    .eq('id', wanted.list_id)
    .is('deleted_at', null)
    .maybeSingle();
  if (error) return serverError(error);
  if (!list) return fail(404, 'NOT_FOUND', 'This list does not exist or you are not a member.');

  const [tasks, members, comments, checklists] = await Promise.all([
    allRows(who.client, 'tasks', 'list_id', list.id, 'position'),
    allRows(who.client, 'memberships', 'list_id', list.id, 'created_at'),
    allRows(who.client, 'comments', 'list_id', list.id, 'created_at'),
    allRows(who.client, 'checklist_items', 'list_id', list.id, 'position'),
  ]);
  const items = byTask(checklists);
  const userIds = [...new Set(members.map((m) => String(m.user_id)))];
  const { data: profiles, error: profileError } = await who.client
    .from('profiles')
    .select('id, display_name')
    .in('id', userIds);
  if (profileError) return serverError(profileError);
  const names = new Map((profiles ?? []).map((p) => [String(p.id), String(p.display_name)]));

  const disposition = `attachment; filename="${fileName(String(list.name), wanted.format)}"`;
  if (wanted.format === 'csv') {
    return new Response(toCsv(tasks, names, items), {
      headers: {
        ...corsHeaders,
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': disposition,
      },
    });
  }
  const commentsOf = byTask(comments);
  return json(
    {
      exported_at: new Date().toISOString(),
      list,
      members: members.map((m) => ({
        user_id: m.user_id,
        role: m.role,
        display_name: names.get(String(m.user_id)) ?? null,
      })),
      tasks: tasks.map((task) => ({
        ...task,
        checklist: items.get(String(task.id)) ?? [],
        comments: commentsOf.get(String(task.id)) ?? [],
      })),
    },
    200,
    { 'Content-Disposition': disposition },
  );
});
