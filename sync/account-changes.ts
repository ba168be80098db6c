// What a change of the device's user does to the store: a sign-in claims the local-only rows
// (or wipes another user's store first), a sign-out ends the session and wipes. Both are rare
// and neither is ever on an app's first screen, so the account (account.ts) loads this when
// one happens rather than every app's shell carrying it.
import type { SignOutHooks } from './account';
import type { SyncDatabase } from './db';
import { rewriteQueued } from './outbox';
import { endLocalSession } from './session-end';

/** Empties every table of the store, the library's own included (in the caller's transaction). */
export async function wipe(db: SyncDatabase): Promise<void> {
  for (const table of db.allTables()) await table.clear();
}

/**
 * Gives the rows whose owner columns hold `from` (the local-only user) to `to`, queued inserts
 * included (in the caller's transaction).
 */
export async function claimRows(db: SyncDatabase, from: string, to: string): Promise<void> {
  const claim = (record: Record<string, unknown>) => {
    for (const column of db.schema.ownerColumns) if (record[column] === from) record[column] = to;
  };
  for (const spec of db.registry) await db.rows(spec.name).toCollection().modify(claim);
  // Queued inserts carry the same columns.
  await rewriteQueued(db, claim);
}

/** Ends the session on this device, then wipes the store (Account.signOut). */
export async function endSessionAndWipe(db: SyncDatabase, hooks: SignOutHooks): Promise<void> {
  // Not supabase-js's signOut alone: with no network it keeps the session (and the account
  // came back). The token is handed over to be revoked, then the session leaves.
  await endLocalSession(await hooks.supabase, hooks.keepForRevocation);
  await db.transaction('rw', db.allTables(), () => wipe(db));
}
