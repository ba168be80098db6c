// What exists in schema `public`, read from pg_catalog inside the request's transaction, so
// every identifier the REST service puts into SQL is one the database already has; kept in
// a schema cache while no DDL has run since (see SchemaCache).
import { execRacingDdl, type SqlRunner } from '../sql-engine';
import type { ColumnTypes } from './query';

export interface TableInfo {
  name: string;
  columns: ColumnTypes;
  primaryKey: string[];
}

export async function findTable(tx: SqlRunner, name: string): Promise<TableInfo | undefined> {
  const { rows } = await tx.query<{ attname: string; type: string; pk: boolean }>(
    `select a.attname::text as attname, format_type(a.atttypid, null) as type,
            coalesce(a.attnum = any(i.indkey::int2[]), false) as pk
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       left join pg_index i on i.indrelid = c.oid and i.indisprimary
      where n.nspname = 'public' and c.relname = $1 and c.relkind in ('r', 'v', 'm', 'p', 'f')
      order by a.attnum`,
    [name],
  );
  if (rows.length === 0) return undefined;
  return {
    name,
    columns: new Map(rows.map((r) => [r.attname, r.type])),
    primaryKey: rows.filter((r) => r.pk).map((r) => r.attname),
  };
}

export interface FunctionInfo {
  name: string;
  /** Input arguments in order, with their SQL types. */
  args: { name: string; type: string }[];
  /** How many trailing input arguments have defaults. */
  defaults: number;
  returnsSet: boolean;
  returnsVoid: boolean;
}

type ProcRow = {
  argnames: string[] | null;
  argmodes: string[] | null;
  argtypes: string[];
  defaults: number;
  retset: boolean;
  rettype: string;
};

export async function findFunctions(tx: SqlRunner, name: string): Promise<FunctionInfo[]> {
  const { rows } = await tx.query<ProcRow>(
    `select p.proargnames::text[] as argnames, p.proargmodes::text[] as argmodes,
            array(select format_type(t, null) from unnest(p.proargtypes::oid[]) with ordinality u(t, i)
                  order by i) as argtypes,
            p.pronargdefaults::int as defaults, p.proretset as retset,
            format_type(p.prorettype, null) as rettype
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public' and p.proname = $1 and p.prokind = 'f'`,
    [name],
  );
  return rows.map((row) => {
    const names = row.argnames ?? [];
    const inputNames = row.argmodes
      ? names.filter((_, i) => ['i', 'b', 'v'].includes(row.argmodes?.[i] ?? 'i'))
      : names.slice(0, row.argtypes.length);
    return {
      name,
      args: row.argtypes.map((type, i) => ({ name: inputNames[i] ?? '', type })),
      defaults: row.defaults,
      returnsSet: row.retset,
      returnsVoid: row.rettype === 'void',
    };
  });
}

/** The overload whose named arguments match `keys` exactly (required ones present). */
export function matchFunction(
  candidates: readonly FunctionInfo[],
  keys: readonly string[],
): FunctionInfo | undefined {
  return candidates.find((fn) => {
    const names = fn.args.map((a) => a.name);
    if (!keys.every((k) => names.includes(k))) return false;
    const required = fn.args.slice(0, fn.args.length - fn.defaults);
    return required.every((a) => keys.includes(a.name));
  });
}

/** The catalog lookups of one request, answered from the schema cache when it is current. */
export interface Catalog {
  table(name: string): Promise<TableInfo | undefined>;
  functions(name: string): Promise<FunctionInfo[]>;
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
 * What PostgREST calls its schema cache: tables and functions of `public` as the REST
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

  constructor(db: SqlRunner) {
    this.ready = execRacingDdl(db, GENERATION_SQL).then(
      () => true,
      (error: unknown) => {
        console.warn('[rest] no schema cache (the catalog is read per request):', error);
        return false;
      },
    );
  }

  /** The lookups for a request in `tx`, which read `generation` (undefined: no cache). */
  forRequest(tx: SqlRunner, generation: string | undefined): Catalog {
    if (generation !== this.generation) {
      this.generation = generation;
      this.tables.clear();
      this.functionsByName.clear();
    }
    // Kept only if no other generation came along while it was read.
    const current = () => generation !== undefined && generation === this.generation;
    return {
      table: async (name) => {
        const hit = current() ? this.tables.get(name) : undefined;
        if (hit) return hit;
        const table = await findTable(tx, name);
        if (table && current()) this.tables.set(name, table);
        return table;
      },
      functions: async (name) => {
        const hit = current() ? this.functionsByName.get(name) : undefined;
        if (hit) return hit;
        const functions = await findFunctions(tx, name);
        if (functions.length > 0 && current()) this.functionsByName.set(name, functions);
        return functions;
      },
    };
  }
}
