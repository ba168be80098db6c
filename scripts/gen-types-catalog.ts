// What `supabase gen types typescript` reads from a database, read here from the devstack's
// own database (scripts/gen-types.ts): the schemas' tables, views, columns, foreign keys,
// functions and types, shaped as postgres-meta's generator metadata so the renderer
// (gen-types-render.ts) can follow its TypeScript template. The queries are ours, written
// against pg_catalog for the fields that template uses; they run on PGlite and Postgres alike.
import type { SqlRunner } from '../devstack/sql-engine';

export interface CatalogTable {
  readonly id: string;
  readonly schema: string;
  readonly name: string;
  /** r/p: table, f: foreign table, v: view, m: materialized view. */
  readonly kind: 'r' | 'p' | 'f' | 'v' | 'm';
  /** A view PostgREST can insert into and update (auto-updatable, or with rules/triggers). */
  readonly isUpdatable: boolean;
}

export interface CatalogColumn {
  readonly tableId: string;
  readonly name: string;
  /** The type's name (a domain's base type; `_text` for text[]). */
  readonly format: string;
  readonly isNullable: boolean;
  readonly hasDefault: boolean;
  readonly isIdentity: boolean;
  readonly identityGeneration: 'ALWAYS' | 'BY DEFAULT' | null;
  readonly isUpdatable: boolean;
}

export interface CatalogRelationship {
  readonly foreignKeyName: string;
  readonly schema: string;
  readonly relation: string;
  readonly columns: readonly string[];
  readonly referencedSchema: string;
  readonly referencedRelation: string;
  readonly referencedColumns: readonly string[];
  /** The foreign key's columns are the table's primary key or one of its unique keys. */
  readonly isOneToOne: boolean;
}

export interface CatalogFunctionArg {
  readonly mode: 'in' | 'out' | 'inout' | 'variadic' | 'table';
  /** '' when unnamed. */
  readonly name: string;
  readonly typeId: string;
  readonly hasDefault: boolean;
}

export interface CatalogFunction {
  readonly id: string;
  readonly schema: string;
  readonly name: string;
  readonly args: CatalogFunctionArg[];
  /** pg_get_function_arguments: `a integer, b text DEFAULT 'x'::text`. */
  readonly argumentTypes: string;
  /** pg_get_function_result: `jsonb`, `SETOF text`, `TABLE(a integer)`. */
  readonly returnType: string;
  readonly returnTypeId: string;
  /** The relation whose row type it returns, if any. */
  readonly returnTypeRelationId: string | null;
  readonly isSetReturning: boolean;
  /** A set-returning function's ROWS estimate. */
  readonly rows: number | null;
}

export interface CatalogType {
  readonly id: string;
  readonly name: string;
  readonly schema: string;
  /** An enum's labels in their order; empty for other types. */
  readonly enums: readonly string[];
  /** A composite type's attributes (CREATE TYPE … AS (…)); empty for other types. */
  readonly attributes: readonly { readonly name: string; readonly typeId: string }[];
  /** The relation of a row type (tables', views', composites'). */
  readonly typeRelationId: string | null;
}

export interface Catalog {
  /** The schemas generated, those of the requested ones that exist. */
  readonly schemas: string[];
  readonly tables: CatalogTable[];
  readonly columns: CatalogColumn[];
  readonly relationships: CatalogRelationship[];
  readonly functions: CatalogFunction[];
  /** Every type of the database (system ones too: arguments and results name them). */
  readonly types: CatalogType[];
}

const MODES: Record<string, CatalogFunctionArg['mode']> = {
  i: 'in',
  o: 'out',
  b: 'inout',
  v: 'variadic',
  t: 'table',
};

/** An array from the driver (null: none). Anything else is a driver that left it unparsed. */
function list(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`catalog: expected an array, got ${typeof value}`);
  return value as unknown[];
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw new Error(`catalog: expected text, got ${typeof value}`);
  return value;
}

/** Reads the catalog of `schemas` (those that exist) from `db`. */
export async function readCatalog(db: SqlRunner, schemas: readonly string[]): Promise<Catalog> {
  const wanted = [...schemas];
  const present = await db.query<{ name: string }>(
    `select nspname as name from pg_namespace where nspname = any($1::text[])`,
    [`{${wanted.join(',')}}`],
  );
  const schemaList = present.rows.map((r) => r.name);
  const param = `{${schemaList.join(',')}}`;

  const tables = await db.query<{
    id: string;
    schema: string;
    name: string;
    kind: string;
    updatable: boolean;
  }>(
    `select c.oid::text as id, n.nspname as schema, c.relname as name, c.relkind::text as kind,
            (c.relkind in ('v', 'f') and pg_relation_is_updatable(c.oid, false) & 20 = 20) as updatable
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1::text[]) and c.relkind in ('r', 'p', 'f', 'v', 'm')`,
    [param],
  );

  // As information_schema.columns: a domain's base type names the column's type.
  const columns = await db.query<{
    table_id: string;
    name: string;
    format: string;
    is_nullable: boolean;
    has_default: boolean;
    identity: string;
    updatable: boolean;
  }>(
    `select c.oid::text as table_id, a.attname as name, coalesce(bt.typname, t.typname) as format,
            not (a.attnotnull or (t.typtype = 'd' and t.typnotnull)) as is_nullable,
            a.atthasdef as has_default, a.attidentity::text as identity,
            (c.relkind in ('r', 'p')
              or (c.relkind in ('v', 'f') and pg_column_is_updatable(c.oid, a.attnum, false))) as updatable
       from pg_attribute a
       join pg_class c on c.oid = a.attrelid
       join pg_namespace n on n.oid = c.relnamespace
       join pg_type t on t.oid = a.atttypid
       left join pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
      where n.nspname = any($1::text[]) and c.relkind in ('r', 'p', 'f', 'v', 'm')
        and a.attnum > 0 and not a.attisdropped`,
    [param],
  );

  // Foreign keys (not a partition's copy of its parent's), with whether their columns are
  // also the table's primary or a unique key (a one-to-one relationship, as PostgREST sees it).
  // Column names as text: node-postgres leaves a name[] unparsed.
  const relationships = await db.query<{
    name: string;
    schema: string;
    relation: string;
    cols: string[];
    ref_schema: string;
    ref_relation: string;
    refs: string[];
    one_to_one: boolean;
  }>(
    `select k.conname as name, n1.nspname as schema, tab.relname as relation,
            array(select a.attname::text from unnest(k.conkey) with ordinality as u(num, ord)
                    join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.num
                   order by u.ord) as cols,
            n2.nspname as ref_schema, other.relname as ref_relation,
            array(select a.attname::text from unnest(k.confkey) with ordinality as u(num, ord)
                    join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.num
                   order by u.ord) as refs,
            exists (
              select 1 from pg_constraint u
               where u.conrelid = k.conrelid and u.contype in ('p', 'u')
                 and array(select a.attname from unnest(u.conkey) as x(num)
                             join pg_attribute a on a.attrelid = u.conrelid and a.attnum = x.num
                            order by a.attnum)
                   = array(select a.attname from unnest(k.conkey) with ordinality as x(num, ord)
                             join pg_attribute a on a.attrelid = k.conrelid and a.attnum = x.num
                            order by x.ord)
            ) as one_to_one
       from pg_constraint k
       join pg_namespace n1 on n1.oid = k.connamespace
       join pg_class tab on tab.oid = k.conrelid
       join pg_class other on other.oid = k.confrelid
       join pg_namespace n2 on n2.oid = other.relnamespace
      where k.contype = 'f' and k.conparentid = 0 and n1.nspname = any($1::text[])`,
    [param],
  );

  const functions = await db.query<{
    id: string;
    schema: string;
    name: string;
    modes: string[] | null;
    names: string[] | null;
    arg_types: string[];
    n_defaults: number;
    n_args: number;
    argument_types: string;
    return_type: string;
    return_type_id: string;
    return_relation: string | null;
    retset: boolean;
    rows: number | null;
  }>(
    `select p.oid::text as id, n.nspname as schema, p.proname as name,
            p.proargmodes::text[] as modes, p.proargnames as names,
            coalesce(p.proallargtypes, p.proargtypes::oid[])::text[] as arg_types,
            p.pronargdefaults::int as n_defaults, p.pronargs::int as n_args,
            pg_get_function_arguments(p.oid) as argument_types,
            pg_get_function_result(p.oid) as return_type,
            p.prorettype::text as return_type_id,
            nullif(rt.typrelid, 0)::text as return_relation,
            p.proretset as retset,
            case when p.proretset then nullif(p.prorows, 0)::float8 end as rows
       from pg_proc p
       join pg_namespace n on n.oid = p.pronamespace
       join pg_type rt on rt.oid = p.prorettype
      where n.nspname = any($1::text[]) and p.prokind = 'f'`,
    [param],
  );

  const types = await db.query<{
    id: string;
    name: string;
    schema: string;
    enums: string[] | null;
    attributes: unknown;
    relation: string | null;
  }>(
    `select t.oid::text as id, t.typname as name, n.nspname as schema,
            array(select e.enumlabel::text from pg_enum e where e.enumtypid = t.oid
                   order by e.enumsortorder) as enums,
            (select json_agg(json_build_object('name', a.attname, 'typeId', a.atttypid::text)
                             order by a.attnum)
               from pg_class c join pg_attribute a on a.attrelid = c.oid
              where c.oid = t.typrelid and c.relkind = 'c' and a.attnum > 0
                and not a.attisdropped) as attributes,
            nullif(t.typrelid, 0)::text as relation
       from pg_type t join pg_namespace n on n.oid = t.typnamespace
      where t.typrelid = 0
         or (select c.relkind in ('c', 'r', 'v', 'm', 'p') from pg_class c where c.oid = t.typrelid)`,
  );

  return {
    schemas: schemaList,
    tables: tables.rows.map((r) => ({
      id: r.id,
      schema: r.schema,
      name: r.name,
      kind: r.kind as CatalogTable['kind'],
      isUpdatable: r.updatable,
    })),
    columns: columns.rows.map((r) => ({
      tableId: r.table_id,
      name: r.name,
      format: r.format,
      isNullable: r.is_nullable,
      hasDefault: r.has_default,
      isIdentity: r.identity === 'a' || r.identity === 'd',
      identityGeneration: r.identity === 'a' ? 'ALWAYS' : r.identity === 'd' ? 'BY DEFAULT' : null,
      isUpdatable: r.updatable,
    })),
    relationships: relationships.rows.map((r) => ({
      foreignKeyName: r.name,
      schema: r.schema,
      relation: r.relation,
      columns: list(r.cols).map(text),
      referencedSchema: r.ref_schema,
      referencedRelation: r.ref_relation,
      referencedColumns: list(r.refs).map(text),
      isOneToOne: r.one_to_one,
    })),
    functions: functions.rows
      .map((r) => {
        const typeIds = list(r.arg_types).map(text);
        const firstDefault = r.n_args - r.n_defaults;
        let inIndex = 0;
        const args = typeIds.map((typeId, i): CatalogFunctionArg => {
          const mode = MODES[r.modes?.[i] ?? 'i'] ?? 'in';
          // Defaults belong to the last input arguments (pronargdefaults counts them).
          const isInput = mode === 'in' || mode === 'inout' || mode === 'variadic';
          const hasDefault = isInput && inIndex++ >= firstDefault;
          return { mode, name: r.names?.[i] ?? '', typeId, hasDefault };
        });
        return {
          id: r.id,
          schema: r.schema,
          name: r.name,
          args,
          argumentTypes: r.argument_types,
          returnType: r.return_type,
          returnTypeId: r.return_type_id,
          returnTypeRelationId: r.return_relation,
          isSetReturning: r.retset,
          rows: r.rows === null ? null : Number(r.rows),
        };
      })
      // Trigger functions are not callable through the API.
      .filter((f) => f.returnType !== 'trigger' && f.returnType !== 'event_trigger'),
    types: types.rows.map((r) => ({
      id: r.id,
      name: r.name,
      schema: r.schema,
      enums: list(r.enums).map(text),
      attributes: list(r.attributes).map((a) => {
        const attribute = a as { name: unknown; typeId: unknown };
        return { name: text(attribute.name), typeId: text(attribute.typeId) };
      }),
      typeRelationId: r.relation,
    })),
  };
}
