// Realtime Authorization for private channels, as hosted Realtime runs it: RLS policies on
// realtime.messages decide. Read is probed at join (and on a new access token): probe rows
// are inserted as the admin, then under the caller's role, claims and `realtime.topic` the
// caller selects them back; write is probed on first use by an INSERT under the caller's
// role. Every probe is rolled back, so nothing is ever stored or announced.
import type { Claims } from '../keys';
import { setRequestContext, type ApiRole } from '../request-db';
import { sqlState, type SqlEngine, type SqlRunner } from '../sql-engine';

export type Extension = 'broadcast' | 'presence';

export interface AuthContext {
  /** The topic without its `realtime:` prefix, what realtime.topic() returns. */
  topic: string;
  role: ApiRole;
  claims: Claims;
  /** The WebSocket upgrade's headers, as `request.headers`. */
  headers: Record<string, string>;
}

/** Thrown to roll a probe transaction back after it has its answer. */
class Rollback<T> extends Error {
  constructor(readonly value: T) {
    super('rollback');
  }
}

/** Runs `fn` in a transaction that is always rolled back, returning what it returned. */
async function rolledBack<T>(db: SqlEngine, fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
  try {
    await db.transaction(async (tx) => {
      throw new Rollback(await fn(tx));
    });
  } catch (error) {
    if (error instanceof Rollback) return error.value as T;
    throw error;
  }
  throw new Error('unreachable: the probe transaction committed');
}

/**
 * The caller's role, claims and headers as for an API request (request-db.ts), plus the
 * topic that realtime.topic() reads.
 */
async function setConnConfig(tx: SqlRunner, ctx: AuthContext): Promise<void> {
  await setRequestContext(tx, ctx.role, ctx.claims, {
    method: '',
    path: '',
    headers: ctx.headers,
  });
  await tx.query(`select set_config('realtime.topic', $1, true)`, [ctx.topic]);
}

/**
 * Which of `extensions` the caller may read on the topic. Throws when a policy fails (the
 * join is then refused like any unauthorised one).
 */
export function readAuthorizations(
  db: SqlEngine,
  ctx: AuthContext,
  extensions: readonly Extension[],
): Promise<Map<Extension, boolean>> {
  return rolledBack(db, async (tx) => {
    // As the admin (RLS does not apply): probes carry topic and extension only, so event,
    // payload and private are NULL / false, as hosted's are.
    const { rows: probes } = await tx.query<{ id: string; extension: Extension }>(
      `insert into realtime.messages (id, topic, extension)
       select gen_random_uuid(), $1, e from unnest($2::text[]) as e
       returning id::text as id, extension`,
      [ctx.topic, `{${extensions.join(',')}}`],
    );
    await setConnConfig(tx, ctx);
    const { rows: seen } = await tx.query<{ id: string }>(
      `select m.id::text as id from realtime.messages m where m.id = any($1::uuid[])`,
      [`{${probes.map((p) => p.id).join(',')}}`],
    );
    const visible = new Set(seen.map((r) => r.id));
    return new Map(probes.map((p) => [p.extension, visible.has(p.id)]));
  });
}

/**
 * Whether the caller may write `extension` on the topic: an INSERT under their role, rolled
 * back. Insufficient privilege (an RLS WITH CHECK failure included) is a plain no; any other
 * error is thrown.
 */
export async function writeAuthorization(
  db: SqlEngine,
  ctx: AuthContext,
  extension: Extension,
): Promise<boolean> {
  try {
    return await rolledBack(db, async (tx) => {
      await setConnConfig(tx, ctx);
      await tx.query(`insert into realtime.messages (topic, extension) values ($1, $2)`, [
        ctx.topic,
        extension,
      ]);
      return true;
    });
  } catch (error) {
    if (sqlState(error) === '42501') return false;
    throw error;
  }
}
