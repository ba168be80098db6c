// The relationships part of PostgREST's schema cache (SchemaCache.hs): many-to-one and
// one-to-many from every foreign key within an exposed schema, one-to-one where the key's columns are also
// unique, many-to-many through a junction whose primary key holds both keys' columns, computed
// relationships and computed fields (functions taking a table's row), and findRel's rules for
// choosing one (PGRST200 when none, PGRST201 when several).
import type { SqlRunner } from '../sql-engine';
import { PgrstError, pgrstError } from './errors';
import { closest } from './fuzzy';
import { viewRelationships } from './view-relationships';

/** The fuzzy set's default threshold, which PostgREST's relationship hints use. */
const FUZZY_MIN_SCORE = 0.33;

export type Cardinality = 'many-to-one' | 'one-to-many' | 'one-to-one' | 'many-to-many';

/** A foreign-key relationship seen from `table` (the side the request starts from). */
export interface FkRelationship {
  kind: 'fk';
  table: string;
  foreignTable: string;
  constraint: string;
  /** Pairs (column of `table`, column of `foreignTable`). */
  columns: [string, string][];
  cardinality: 'many-to-one' | 'one-to-many' | 'one-to-one';
  isSelf: boolean;
  foreignIsView: boolean;
}

export interface M2mRelationship {
  kind: 'm2m';
  table: string;
  foreignTable: string;
  junction: string;
  constraint1: string;
  constraint2: string;
  /** Pairs (junction column, column of `table`). */
  sourceColumns: [string, string][];
  /** Pairs (junction column, column of `foreignTable`). */
  targetColumns: [string, string][];
}

export interface ComputedRelationship {
  kind: 'computed';
  table: string;
  foreignTable: string;
  fn: string;
  toOne: boolean;
}

export type Relationship = FkRelationship | M2mRelationship | ComputedRelationship;

export function isToOne(rel: Relationship): boolean {
  if (rel.kind === 'computed') return rel.toOne;
  return rel.kind === 'fk' && rel.cardinality !== 'one-to-many';
}

/** Everything the planner needs from the schema, read once per schema generation. */
export interface RelationshipCache {
  /** The exposed schema they were read from (PGRST200's details name it). */
  schema: string;
  /** Relationships by the table they start from. */
  byTable: ReadonlyMap<string, readonly Relationship[]>;
  /** Computed fields: `table` → field name → the function's return type. */
  computedFields: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

type FkRow = {
  name: string;
  tbl: string;
  ftbl: string;
  cols: string[];
  fcols: string[];
  one_to_one: boolean;
  fview: boolean;
};

const FK_SQL = `
select c.conname::text as name, t.relname::text as tbl, f.relname::text as ftbl,
       array(select a.attname::text from unnest(c.conkey) with ordinality k(n, i)
               join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i) as cols,
       array(select a.attname::text from unnest(c.confkey) with ordinality k(n, i)
               join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i) as fcols,
       exists (select from pg_constraint u
                where u.conrelid = c.conrelid and u.contype in ('p', 'u')
                  and array(select unnest(u.conkey) order by 1) = array(select unnest(c.conkey) order by 1))
         as one_to_one,
       f.relkind in ('v', 'm') as fview
  from pg_constraint c
  join pg_class t on t.oid = c.conrelid join pg_namespace tn on tn.oid = t.relnamespace
  join pg_class f on f.oid = c.confrelid join pg_namespace fn on fn.oid = f.relnamespace
 where c.contype = 'f' and tn.nspname = $1 and fn.nspname = $1
 order by t.relname, c.conname`;

const PK_SQL = `
select c.relname::text as tbl,
       array(select a.attname::text from unnest(i.indkey::int2[]) k(n)
               join pg_attribute a on a.attrelid = c.oid and a.attnum = k.n) as cols
  from pg_index i join pg_class c on c.oid = i.indrelid
  join pg_namespace n on n.oid = c.relnamespace
 where i.indisprimary and n.nspname = $1`;

/** Functions of one argument, a row of a table of the schema: computed fields and relationships. */
const FN_SQL = `
select p.proname::text as fn, t.relname::text as tbl, r.relname::text as rtbl,
       format_type(p.prorettype, null) as rettype, p.proretset as retset, p.prorows::float8 as prorows
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  join pg_class t on t.reltype = p.proargtypes[0]
  join pg_namespace tn on tn.oid = t.relnamespace and tn.nspname = $1
  left join pg_class r on r.reltype = p.prorettype
       and r.relnamespace = (select oid from pg_namespace where nspname = $1)
 where n.nspname = $1 and p.pronargs = 1 and p.prokind = 'f'
 order by p.proname`;

/** The relationships within one exposed schema (both ends in it: never reaching another). */
export async function loadRelationships(tx: SqlRunner, schema: string): Promise<RelationshipCache> {
  const fks = (await tx.query<FkRow>(FK_SQL, [schema])).rows;
  const pks = (await tx.query<{ tbl: string; cols: string[] }>(PK_SQL, [schema])).rows;
  const fns = (
    await tx.query<{
      fn: string;
      tbl: string;
      rtbl: string | null;
      rettype: string;
      retset: boolean;
      prorows: number;
    }>(FN_SQL, [schema])
  ).rows;

  const keys: FkRelationship[] = fks.map((fk) => ({
    kind: 'fk',
    table: fk.tbl,
    foreignTable: fk.ftbl,
    constraint: fk.name,
    columns: fk.cols.map((col, i): [string, string] => [col, fk.fcols[i] ?? '']),
    cardinality: fk.one_to_one ? 'one-to-one' : 'many-to-one',
    isSelf: fk.tbl === fk.ftbl,
    foreignIsView: fk.fview,
  }));
  const fromViews = await viewRelationships(tx, schema, keys);
  const direct = [...keys, ...fromViews.rels];
  const views = fromViews.views;
  const inverse: FkRelationship[] = direct.map((r) => ({
    ...r,
    table: r.foreignTable,
    foreignTable: r.table,
    columns: r.columns.map(([a, b]): [string, string] => [b, a]),
    cardinality: r.cardinality === 'one-to-one' ? 'one-to-one' : 'one-to-many',
    foreignIsView: views.has(r.table),
  }));
  const pkOf = new Map(pks.map((p) => [p.tbl, new Set(p.cols)]));
  const m2m: M2mRelationship[] = [];
  for (const r1 of direct) {
    if (r1.cardinality !== 'many-to-one') continue;
    for (const r2 of direct) {
      if (r2.table !== r1.table || r2.constraint === r1.constraint) continue;
      if (r2.cardinality !== 'many-to-one') continue;
      const pk = pkOf.get(r1.table) ?? new Set<string>();
      const cols = [...r1.columns, ...r2.columns].map(([c]) => c);
      if (!cols.every((c) => pk.has(c))) continue;
      m2m.push({
        kind: 'm2m',
        table: r1.foreignTable,
        foreignTable: r2.foreignTable,
        junction: r1.table,
        constraint1: r1.constraint,
        constraint2: r2.constraint,
        sourceColumns: r1.columns,
        targetColumns: r2.columns,
      });
    }
  }
  const computed: ComputedRelationship[] = [];
  const computedFields = new Map<string, Map<string, string>>();
  for (const fn of fns) {
    if (fn.rtbl !== null) {
      computed.push({
        kind: 'computed',
        table: fn.tbl,
        foreignTable: fn.rtbl,
        fn: fn.fn,
        toOne: !fn.retset || fn.prorows === 1,
      });
    } else if (!fn.retset) {
      const fields = computedFields.get(fn.tbl) ?? new Map<string, string>();
      fields.set(fn.fn, fn.rettype);
      computedFields.set(fn.tbl, fields);
    }
  }
  const byTable = new Map<string, Relationship[]>();
  for (const rel of [...direct, ...inverse, ...m2m, ...computed]) {
    const list = byTable.get(rel.table) ?? [];
    list.push(rel);
    byTable.set(rel.table, list);
  }
  return { schema, byTable, computedFields };
}

function singleColumn(rel: FkRelationship, side: 0 | 1): string | undefined {
  const only = rel.columns.length === 1 ? rel.columns[0] : undefined;
  return only?.[side];
}

/** findRel (Plan.hs): the one relationship `target` (with `hint`) names from `origin`. */
export function findRelationship(
  cache: RelationshipCache,
  origin: string,
  target: string,
  hint: string | undefined,
): Relationship {
  const candidates = cache.byTable.get(origin) ?? [];
  const rels = candidates.filter((rel) => {
    if (rel.kind === 'computed') return target === rel.fn;
    const named = target === rel.foreignTable;
    if (rel.kind === 'fk' && rel.isSelf) {
      if (hint === undefined) {
        return (
          (named && rel.cardinality === 'one-to-many') ||
          (singleColumn(rel, 0) === target && rel.cardinality === 'many-to-one')
        );
      }
      return named && rel.cardinality === 'one-to-many' && singleColumn(rel, 1) === hint;
    }
    if (hint === undefined) {
      if (named) return true;
      if (rel.kind !== 'fk' || rel.foreignIsView) return false;
      return rel.constraint === target || singleColumn(rel, 0) === target;
    }
    if (!named) return false;
    if (rel.kind === 'm2m') return rel.junction === hint;
    return (
      rel.constraint === hint || singleColumn(rel, 0) === hint || singleColumn(rel, 1) === hint
    );
  });
  const [first, second] = rels;
  if (first !== undefined && second === undefined) return first;
  if (first === undefined) throw noRelationship(cache, origin, target, hint);
  throw new PgrstError(300, {
    code: 'PGRST201',
    details: rels.map(describe),
    hint: `Try changing '${target}' to one of the following: ${rels.map(hintFor).join(', ')}. Find the desired relationship in the 'details' key.`,
    message: `Could not embed because more than one relationship was found for '${origin}' and '${target}'`,
  });
}

function hintFor(rel: Relationship): string {
  if (rel.kind === 'computed') return '';
  return `'${rel.foreignTable}!${rel.kind === 'm2m' ? rel.junction : rel.constraint}'`;
}

function describe(rel: Relationship): Record<string, string> {
  if (rel.kind === 'computed') return {};
  const list = (cols: string[]) => `(${cols.join(', ')})`;
  const embedding = `${rel.table} with ${rel.foreignTable}`;
  if (rel.kind === 'm2m') {
    return {
      cardinality: 'many-to-many',
      embedding,
      relationship: `${rel.junction} using ${rel.constraint1}${list(rel.sourceColumns.map(([c]) => c))} and ${rel.constraint2}${list(rel.targetColumns.map(([c]) => c))}`,
    };
  }
  return {
    cardinality: rel.cardinality,
    embedding,
    relationship: `${rel.constraint} using ${rel.table}${list(rel.columns.map(([c]) => c))} and ${rel.foreignTable}${list(rel.columns.map(([, c]) => c))}`,
  };
}

/** PGRST200, with PostgREST's "Perhaps you meant" hint when a name is close to a known one. */
function noRelationship(
  cache: RelationshipCache,
  origin: string,
  target: string,
  hint: string | undefined,
): PgrstError {
  const fromOrigin = cache.byTable.get(origin);
  let suggestion: string | null = null;
  if (fromOrigin) {
    // Never the name asked for itself (it exists, only not as a relationship here).
    const names = fromOrigin.map((r) => r.foreignTable).filter((n) => n !== target);
    const close = closest([...new Set(names)], target, FUZZY_MIN_SCORE);
    if (close !== undefined) suggestion = `Perhaps you meant '${close}' instead of '${target}'.`;
  } else {
    const close = closest([...cache.byTable.keys()], origin, FUZZY_MIN_SCORE);
    if (close !== undefined) suggestion = `Perhaps you meant '${close}' instead of '${origin}'.`;
  }
  return pgrstError(
    400,
    'PGRST200',
    `Could not find a relationship between '${origin}' and '${target}' in the schema cache`,
    `Searched for a foreign key relationship between '${origin}' and '${target}${hint === undefined ? '' : `' using the hint '${hint}`}' in the schema '${cache.schema}', but no matches were found.`,
    suggestion,
  );
}
