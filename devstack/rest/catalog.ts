// What exists in schema `public`, read from pg_catalog inside the request's transaction, so
// every identifier the REST service puts into SQL is one the database already has.
import type { SqlRunner } from '../sql-engine';
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
