// "Export all data (JSON)": everything this device holds, nested list → members and tasks →
// checklist, comments and attachments (metadata only; the files stay in storage). Built from the
// device's database, so it works offline. Pure: the screen reads the rows, this shapes them.

type Row = Record<string, unknown> & { id: string };

export interface ExportSource {
  lists: readonly Row[];
  memberships: readonly Row[];
  tasks: readonly Row[];
  comments: readonly Row[];
  attachments: readonly Row[];
  checklist_items: readonly Row[];
  /** Everyone's profile this device knows, to put names next to member ids. */
  profiles: readonly Row[];
}

export type ExportedRow = Record<string, unknown>;

export interface ExportedTask extends ExportedRow {
  checklist: ExportedRow[];
  comments: ExportedRow[];
  attachments: ExportedRow[];
}

export interface ExportedList extends ExportedRow {
  members: ExportedRow[];
  tasks: ExportedTask[];
}

export interface ExportDocument {
  exported_at: string;
  app_version: string;
  lists: ExportedList[];
}

/** Tombstones (deleted rows the device keeps so sync can carry them) are not data. */
function live(row: Row): boolean {
  return row.deleted_at === null || row.deleted_at === undefined;
}

/** The row as the server has it: the device's own bookkeeping (`_v`, `_standIn`…) dropped. */
export function withoutLocalFields(row: Row): ExportedRow {
  const out: ExportedRow = {};
  for (const [key, value] of Object.entries(row)) if (!key.startsWith('_')) out[key] = value;
  return out;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function byCreated(a: Row, b: Row): number {
  return text(a.created_at).localeCompare(text(b.created_at)) || a.id.localeCompare(b.id);
}

/** Tasks (or checklist items) in the order shown (fractional-index positions sort as strings). */
function byPosition(a: Row, b: Row): number {
  const pa = text(a.position);
  const pb = text(b.position);
  return pa < pb ? -1 : pa > pb ? 1 : a.id.localeCompare(b.id);
}

function groupBy(rows: readonly Row[], key: string): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    if (!live(row)) continue;
    const value = row[key];
    if (typeof value !== 'string') continue;
    const group = groups.get(value);
    if (group) group.push(row);
    else groups.set(value, [row]);
  }
  return groups;
}

export function buildExport(
  source: ExportSource,
  meta: { exportedAt: string; appVersion: string },
): ExportDocument {
  const names = new Map<string, unknown>();
  for (const profile of source.profiles) names.set(profile.id, profile.display_name ?? null);
  const membersOf = groupBy(source.memberships, 'list_id');
  const tasksOf = groupBy(source.tasks, 'list_id');
  const commentsOf = groupBy(source.comments, 'task_id');
  const attachmentsOf = groupBy(source.attachments, 'task_id');
  const checklistOf = groupBy(source.checklist_items, 'task_id');

  const lists = source.lists
    .filter(live)
    .sort((a, b) => text(a.name).localeCompare(text(b.name)) || a.id.localeCompare(b.id))
    .map((list): ExportedList => ({
      ...withoutLocalFields(list),
      members: (membersOf.get(list.id) ?? []).sort(byCreated).map((member) => ({
        ...withoutLocalFields(member),
        display_name: names.get(text(member.user_id)) ?? null,
      })),
      tasks: (tasksOf.get(list.id) ?? []).sort(byPosition).map((task): ExportedTask => ({
        ...withoutLocalFields(task),
        checklist: (checklistOf.get(task.id) ?? []).sort(byPosition).map(withoutLocalFields),
        comments: (commentsOf.get(task.id) ?? []).sort(byCreated).map(withoutLocalFields),
        attachments: (attachmentsOf.get(task.id) ?? []).sort(byCreated).map(withoutLocalFields),
      })),
    }));
  return { exported_at: meta.exportedAt, app_version: meta.appVersion, lists };
}

/** How many tasks the export of `source` will hold (for "Exporting 10,000 tasks…"). */
export function countExportedTasks(source: Pick<ExportSource, 'lists' | 'tasks'>): number {
  const lists = new Set(source.lists.filter(live).map((list) => list.id));
  return source.tasks.filter((task) => live(task) && lists.has(text(task.list_id))).length;
}

/** `outpost-export-2026-01-31.json` for a local date `YYYY-MM-DD`. */
export function exportFileName(isoDate: string): string {
  return `outpost-export-${isoDate}.json`;
}
