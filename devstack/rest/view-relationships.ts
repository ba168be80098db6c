// Relationships of views, as PostgREST's schema cache finds them: a view column that is a
// table column unchanged (the `resorigtbl`/`resorigcol` of the view's query, read from
// pg_rewrite) carries that table's foreign keys, so `/view?select=other(*)` embeds through the
// table's key. Views of views follow the chain down to the table.
import type { SqlRunner } from '../sql-engine';

/** The parts of a foreign-key relationship (relationships.ts) a view takes over. */
interface KeyRelationship {
  table: string;
  foreignTable: string;
  columns: [string, string][];
  isSelf: boolean;
  foreignIsView: boolean;
}

const VIEWS_SQL = `
select c.relname::text as view, r.ev_action::text as action
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  join pg_rewrite r on r.ev_class = c.oid and r.rulename = '_RETURN'
 where n.nspname = $1 and c.relkind in ('v', 'm')`;

const COLUMNS_SQL = `
select c.oid::text as oid, c.relname::text as tbl, a.attnum::int as num, a.attname::text as col
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
 where n.nspname = $1 and c.relkind in ('r', 'p', 'v', 'm', 'f')`;

/** `{TARGETENTRY … :resname x … :resorigtbl oid :resorigcol n …}` in a pg_node_tree text. */
const TARGET_ENTRY =
  /:resname ((?:\\.|[^\s\\])+) :ressortgroupref \d+ :resorigtbl (\d+) :resorigcol (\d+) :resjunk false/g;

/** A view column's origin: the table (or view) and column it shows unchanged. */
type Origin = { table: string; column: string };

/** How many views-of-views deep the chain to a table is followed. */
const MAX_VIEW_DEPTH = 8;

export async function viewRelationships<R extends KeyRelationship>(
  tx: SqlRunner,
  schema: string,
  direct: readonly R[],
): Promise<{ rels: R[]; views: Set<string> }> {
  const views = (await tx.query<{ view: string; action: string }>(VIEWS_SQL, [schema])).rows;
  if (views.length === 0) return { rels: [], views: new Set() };
  const columns = (
    await tx.query<{ oid: string; tbl: string; num: number; col: string }>(COLUMNS_SQL, [schema])
  ).rows;
  const byAttr = new Map(columns.map((c) => [`${c.oid}:${String(c.num)}`, c]));
  const viewNames = new Set(views.map((v) => v.view));
  // view → view column → origin (the last entry for a name is the outer query's).
  const origins = new Map<string, Map<string, Origin>>();
  for (const { view, action } of views) {
    const map = new Map<string, Origin>();
    for (const m of action.matchAll(TARGET_ENTRY)) {
      const attr = byAttr.get(`${m[2] ?? ''}:${m[3] ?? ''}`);
      const name = (m[1] ?? '').replace(/\\(.)/g, '$1');
      if (attr) map.set(name, { table: attr.tbl, column: attr.col });
    }
    origins.set(view, map);
  }
  // Follow views of views down to tables.
  const resolve = (origin: Origin): Origin | undefined => {
    let current: Origin | undefined = origin;
    for (let i = 0; current && viewNames.has(current.table) && i < MAX_VIEW_DEPTH; i += 1) {
      current = origins.get(current.table)?.get(current.column);
    }
    return current && !viewNames.has(current.table) ? current : undefined;
  };
  /** Each relation (the table itself, and views showing every column asked) with its columns. */
  const showing = (table: string, cols: readonly string[]) => {
    const out: { name: string; cols: string[]; isView: boolean }[] = [
      { name: table, cols: [...cols], isView: false },
    ];
    for (const [view, map] of origins) {
      const mapped = cols.map((col) => {
        for (const [viewCol, origin] of map) {
          const base = resolve(origin);
          if (base?.table === table && base.column === col) return viewCol;
        }
        return undefined;
      });
      if (mapped.every((c): c is string => c !== undefined)) {
        out.push({ name: view, cols: mapped, isView: true });
      }
    }
    return out;
  };
  const rels: R[] = [];
  for (const rel of direct) {
    const sources = showing(
      rel.table,
      rel.columns.map(([c]) => c),
    );
    const targets = showing(
      rel.foreignTable,
      rel.columns.map(([, c]) => c),
    );
    for (const source of sources) {
      for (const target of targets) {
        if (!source.isView && !target.isView) continue;
        rels.push({
          ...rel,
          table: source.name,
          foreignTable: target.name,
          columns: source.cols.map((c, i): [string, string] => [c, target.cols[i] ?? '']),
          isSelf: source.name === target.name,
          foreignIsView: target.isView,
        });
      }
    }
  }
  return { rels, views: viewNames };
}
