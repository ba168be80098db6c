// What exists in an exposed schema (the request's profile), read from pg_catalog inside the request's transaction, so
// every identifier the REST service puts into SQL is one the database already has; kept in
// a schema cache while no DDL has run since (see SchemaCache).
import { execRacingDdl, type SqlRunner } from '../sql-engine';
import type { ColumnTypes } from './query';
import { loadRelationships, type RelationshipCache } from './relationships';

export interface TableInfo {
  /** The exposed schema it lives in. */
  schema: string;
  name: string;
  columns: ColumnTypes;
  primaryKey: string[];
  /**
   * Each column's DEFAULT as SQL (an identity column's is its sequence's nextval; a column
   * without one is absent), as PostgREST's schema cache holds them for `missing=default`.
   */
  defaults: ReadonlyMap<string, string>;
  /** Generated (STORED) columns: never given a default by missing=default. */
  generated: ReadonlySet<string>;
}

export async function findTable(
  tx: SqlRunner,
  schema: string,
  name: string,
): Promise<TableInfo | undefined> {
  const { rows } = await tx.query<{
    attname: string;
    type: string;
    pk: boolean;
    def: string | null;
    generated: boolean;
  }>(
    `select a.attname::text as attname, format_type(a.atttypid, null) as type,
            coalesce(a.attnum = any(i.indkey::int2[]), false) as pk,
            case when a.attidentity in ('a', 'd')
                 then format('nextval(%L::regclass)',
                             pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname))
                 when a.attgenerated = '' then pg_get_expr(d.adbin, d.adrelid) end as def,
            a.attgenerated <> '' as generated
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       left join pg_index i on i.indrelid = c.oid and i.indisprimary
       left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
      where n.nspname = $1 and c.relname = $2 and c.relkind in ('r', 'v', 'm', 'p', 'f')
      order by a.attnum`,
    [schema, name],
  );
  if (rows.length === 0) return undefined;
  return {
    schema,
    name,
    columns: new Map(rows.map((r) => [r.attname, r.type])),
    primaryKey: rows.filter((r) => r.pk).map((r) => r.attname),
    defaults: new Map(rows.flatMap((r): [string, string][] => (r.def ? [[r.attname, r.def]] : []))),
    generated: new Set(rows.filter((r) => r.generated).map((r) => r.attname)),
  };
}

export interface FunctionInfo {
  /** The exposed schema it lives in. */
  schema: string;
  name: string;
  /** Input arguments in order, with their SQL types ('' names an unnamed one). */
  args: { name: string; type: string }[];
  /** How many trailing input arguments have defaults. */
  defaults: number;
  returnsSet: boolean;
  returnsVoid: boolean;
  /** The return type as format_type writes it. */
  returnType: string;
  /** Columns of a composite result (a table's row type, OUT or TABLE columns); else undefined. */
  returnColumns: ColumnTypes | undefined;
  /** The table of the same schema whose row type the function returns (embedding follows it). */
  returnTable: string | undefined;
  /** pg_proc.provolatile: 'v'olatile, 's'table or 'i'mmutable. */
  volatility: string;
  /** Whether the last input argument is VARIADIC. */
  variadic: boolean;
}

type ProcRow = {
  argnames: string[] | null;
  argmodes: string[] | null;
  argtypes: string[];
  allargtypes: string[] | null;
  defaults: number;
  retset: boolean;
  rettype: string;
  retcols: [string, string][] | null;
  rettable: string | null;
  volatility: string;
  variadic: boolean;
};

export async function findFunctions(
  tx: SqlRunner,
  schema: string,
  name: string,
): Promise<FunctionInfo[]> {
  // Ordered by oid (creation order): PostgREST lists overloads in its schema cache's order.
  const { rows } = await tx.query<ProcRow>(
    `select p.proargnames::text[] as argnames, p.proargmodes::text[] as argmodes,
            array(select format_type(t, null) from unnest(p.proargtypes::oid[]) with ordinality u(t, i)
                  order by i) as argtypes,
            case when p.proallargtypes is null then null else
              array(select format_type(t, null) from unnest(p.proallargtypes) with ordinality u(t, i)
                    order by i) end as allargtypes,
            p.pronargdefaults::int as defaults, p.proretset as retset,
            format_type(p.prorettype, null) as rettype,
            (select json_agg(json_build_array(a.attname, format_type(a.atttypid, null)) order by a.attnum)
               from pg_attribute a
              where t.typrelid <> 0 and a.attrelid = t.typrelid and a.attnum > 0
                and not a.attisdropped) as retcols,
            (select c.relname::text from pg_class c join pg_namespace cn on cn.oid = c.relnamespace
              where c.oid = t.typrelid and cn.nspname = $1
                and c.relkind in ('r', 'v', 'm', 'p', 'f')) as rettable,
            p.provolatile::text as volatility, p.provariadic <> 0 as variadic
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       join pg_type t on t.oid = p.prorettype
      where n.nspname = $1 and p.proname = $2 and p.prokind = 'f'
        and p.prorettype <> 'pg_catalog.trigger'::regtype
      order by p.oid`,
    [schema, name],
  );
  return rows.map((row) => {
    const names = row.argnames ?? [];
    const modes = row.argmodes;
    const inputNames = modes
      ? names.filter((_, i) => ['i', 'b', 'v'].includes(modes[i] ?? 'i'))
      : names.slice(0, row.argtypes.length);
    // OUT, INOUT and TABLE columns make the result of a function returning `record`.
    const outColumns =
      modes && row.allargtypes
        ? modes.flatMap((mode, i): [string, string][] =>
            ['o', 'b', 't'].includes(mode) ? [[names[i] ?? '', row.allargtypes?.[i] ?? '']] : [],
          )
        : [];
    const composite =
      row.retcols ?? (row.rettype === 'record' && outColumns.length > 0 ? outColumns : null);
    return {
      schema,
      name,
      args: row.argtypes.map((type, i) => ({ name: inputNames[i] ?? '', type })),
      defaults: row.defaults,
      returnsSet: row.retset,
      returnsVoid: row.rettype === 'void',
      returnType: row.rettype,
      returnColumns: composite ? new Map(composite) : undefined,
      returnTable: row.rettable ?? undefined,
      volatility: row.volatility,
      variadic: row.variadic,
    };
  });
}

/**
 * Names of the functions in the schema PostgREST could call (for the "Perhaps you meant" hint):
 * every input named, or one unnamed json/jsonb/text/xml/bytea input; no trigger functions.
 */
export async function functionNames(tx: SqlRunner, schema: string): Promise<string[]> {
  const { rows } = await tx.query<{ name: string }>(
    `select distinct p.proname::text as name from pg_proc p
       join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = $1 and p.prokind = 'f'
        and p.prorettype <> 'pg_catalog.trigger'::regtype
        and (p.pronargs = 0
             or (p.proargnames is not null
                 and coalesce(array_position(p.proargnames[1:p.pronargs], ''), 0) = 0)
             or (p.pronargs = 1
                 and p.proargtypes[0] in ('json'::regtype, 'jsonb'::regtype, 'text'::regtype,
                                          'xml'::regtype, 'bytea'::regtype)))`,
    [schema],
  );
  return rows.map((r) => r.name);
}

/** The catalog lookups of one request, answered from the schema cache when it is current. */
export interface Catalog {
  /** The exposed schema the request chose (Accept-/Content-Profile, else the first listed). */
  schema: string;
  table(name: string): Promise<TableInfo | undefined>;
  functions(name: string): Promise<FunctionInfo[]>;
  /** Foreign-key, many-to-many and computed relationships of the schema (relationships.ts). */
  relationships(): Promise<RelationshipCache>;
}

/**
 * Bumped (to a fresh random value) by an event trigger at the end of every DDL command, in
 * the DDL's own transaction: a request reads it together with its role settings, so it knows
 * whether what was cached is still the schema it sees. A new database gets its own value.
 */
const GENERATION_SQL = `
create schema if not exists devstack_rest;
comment on schema devstack_rest is
  'Added by the Outpost devstack (not the migrations): the REST schema cache''s generation.';
create table if not exists devstack_rest.schema_generation (
  one boolean primary key default true check (one),
  generation uuid not null
);
insert into devstack_rest.schema_generation (generation) values (gen_random_uuid())
  on conflict do nothing;
create or replace function devstack_rest.bump_schema_generation() returns event_trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $fn$
begin
  update devstack_rest.schema_generation set generation = gen_random_uuid();
end
$fn$;
do $do$
begin
  if not exists (select from pg_event_trigger where evtname = 'devstack_rest_schema_generation') then
    create event trigger devstack_rest_schema_generation on ddl_command_end
      execute function devstack_rest.bump_schema_generation();
  end if;
end
$do$;`;

/** Read with the request's settings (setRequestContext), in the same statement. */
export const SCHEMA_GENERATION_SELECT =
  '(select generation::text from devstack_rest.schema_generation)';

/**
 * What PostgREST calls its schema cache: tables and functions of every exposed schema as the REST
 * service last read them, kept while the schema generation a request reads is the one they
 * were read under, and dropped as soon as it is not. Where the generation cannot be kept
 * (an event trigger needs a superuser), every request reads the catalog, as before.
 * Only what exists is cached: a name that finds nothing is looked up every time.
 */
export class SchemaCache {
  /** True once the generation is in place; false if it could not be set up. */
  readonly ready: Promise<boolean>;
  private generation: string | undefined;
  private readonly tables = new Map<string, TableInfo>();
  private readonly functionsByName = new Map<string, FunctionInfo[]>();
  private readonly relationshipCaches = new Map<string, RelationshipCache>();

  constructor(db: SqlRunner) {
    this.ready = execRacingDdl(db, GENERATION_SQL).then(
      () => true,
      (error: unknown) => {
        console.warn('[rest] no schema cache (the catalog is read per request):', error);
        return false;
      },
    );
  }

  /**
   * The lookups for a request in `tx` on exposed `schema`, which read `generation`
   * (undefined: no cache). Entries are keyed by schema and name.
   */
  forRequest(tx: SqlRunner, generation: string | undefined, schema: string): Catalog {
    if (generation !== this.generation) {
      this.generation = generation;
      this.tables.clear();
      this.functionsByName.clear();
      this.relationshipCaches.clear();
    }
    // Kept only if no other generation came along while it was read.
    const current = () => generation !== undefined && generation === this.generation;
    // A NUL cannot be in an identifier, so the key is unambiguous.
    const key = (name: string) => `${schema}\0${name}`;
    return {
      schema,
      table: async (name) => {
        const hit = current() ? this.tables.get(key(name)) : undefined;
        if (hit) return hit;
        const table = await findTable(tx, schema, name);
        if (table && current()) this.tables.set(key(name), table);
        return table;
      },
      functions: async (name) => {
        const hit = current() ? this.functionsByName.get(key(name)) : undefined;
        if (hit) return hit;
        const functions = await findFunctions(tx, schema, name);
        if (functions.length > 0 && current()) this.functionsByName.set(key(name), functions);
        return functions;
      },
      relationships: async () => {
        const hit = current() ? this.relationshipCaches.get(schema) : undefined;
        if (hit) return hit;
        const loaded = await loadRelationships(tx, schema);
        if (current()) this.relationshipCaches.set(schema, loaded);
        return loaded;
      },
    };
  }
}
