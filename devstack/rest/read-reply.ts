// How PostgREST answers a read around its rows: the Range header (and its 416s), the total
// `Prefer: count=` asks for (exact; planned from the planner's estimate as PostgREST reads it
// from EXPLAIN; estimated = exact up to db-max-rows, the larger of both beyond), the status
// (200, 206, 416) with Content-Range, and explain plans (application/vnd.pgrst.plan).
import type { Context } from 'hono';

import type { SqlParam, SqlRunner } from '../sql-engine';
import { pgrstError } from './errors';
import type { Media } from './media';
import type { CountPref } from './prefer';

const RANGE_DETAILS = {
  lowerGtUpper:
    'The lower boundary must be lower than or equal to the upper boundary in the Range header.',
  negativeLimit: 'Limit should be greater than or equal to zero.',
};

/** The `Range` header (`Range-Unit: items`), as offset and limit; undefined when absent. */
export function rangeHeader(c: Context): { offset: number; limit: number | undefined } | undefined {
  const header = c.req.header('range');
  if (header === undefined) return undefined;
  const match = /^\s*(?:items=)?(\d{1,15})-(\d{0,15})\s*$/.exec(header);
  if (!match) return undefined;
  const from = Number(match[1]);
  const to = match[2] === '' || match[2] === undefined ? undefined : Number(match[2]);
  if (to !== undefined && to < from) {
    throw pgrstError(
      416,
      'PGRST103',
      'Requested range not satisfiable',
      RANGE_DETAILS.lowerGtUpper,
    );
  }
  return { offset: from, limit: to === undefined ? undefined : to - from + 1 };
}

/** The planner's row estimate for `sql` (the top plan node's "Plan Rows"). */
export async function plannedRows(
  tx: SqlRunner,
  sql: string,
  params: readonly SqlParam[],
): Promise<number> {
  const { rows } = await tx.query<Record<string, unknown>>(`explain (format json) ${sql}`, params);
  const raw = Object.values(rows[0] ?? {})[0];
  // One engine hands the json column over parsed, the other as text.
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [
    { Plan?: { 'Plan Rows'?: number } },
  ];
  return Math.round(plan[0]?.Plan?.['Plan Rows'] ?? 0);
}

/**
 * The total a read reports for `count`, or undefined when none was asked for. `rowsSql`
 * selects the matching rows (no limit or offset) with `params`.
 */
export async function countTotal(
  tx: SqlRunner,
  count: CountPref | undefined,
  rowsSql: string,
  params: readonly SqlParam[],
  maxRows: number,
): Promise<number | undefined> {
  if (count === undefined) return undefined;
  if (count === 'planned') return plannedRows(tx, rowsSql, params);
  const exactSql =
    count === 'exact'
      ? `select count(*)::text as n from (${rowsSql}) _c`
      : `select count(*)::text as n from (${rowsSql} limit ${maxRows + 1}) _c`;
  const { rows } = await tx.query<{ n: string }>(exactSql, params);
  const exact = Number(rows[0]?.n ?? 0);
  if (count === 'exact' || exact <= maxRows) return exact;
  return Math.max(exact, await plannedRows(tx, rowsSql, params));
}

/** PostgREST's status and Content-Range for a page of `shown` rows from `offset`. */
export function rangeStatus(
  offset: number,
  shown: number,
  total: number | undefined,
): { status: number; contentRange: string; error?: string } {
  const upper = offset + shown - 1;
  const range = total !== 0 && offset <= upper ? `${offset}-${upper}` : '*';
  const contentRange = `${range}/${total === undefined ? '*' : String(total)}`;
  if (total === undefined) return { status: 200, contentRange };
  if (offset > total) {
    const error = pgrstError(
      416,
      'PGRST103',
      'Requested range not satisfiable',
      `An offset of ${offset} was requested, but there are only ${total} rows.`,
    );
    return { status: 416, contentRange, error: JSON.stringify(error.body) };
  }
  return { status: shown < total ? 206 : 200, contentRange };
}

/** EXPLAIN of `sql` as PostgREST answers `application/vnd.pgrst.plan`. */
export async function explainBody(
  tx: SqlRunner,
  media: Extract<Media, { kind: 'plan' }>,
  sql: string,
  params: readonly SqlParam[],
): Promise<string> {
  const options = [`format ${media.format}`, ...media.options.map((o) => `${o} true`)];
  const { rows } = await tx.query<Record<string, unknown>>(
    `explain (${options.join(', ')}) ${sql}`,
    params,
  );
  const values = rows.map((row) => Object.values(row)[0]);
  if (media.format === 'json') {
    const raw = values[0];
    return typeof raw === 'string' ? raw : JSON.stringify(raw);
  }
  return values.map((line) => `${String(line)}\n`).join('');
}

export { RANGE_DETAILS };
