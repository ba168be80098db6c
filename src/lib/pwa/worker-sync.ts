// The service worker's sync (issue 38): what its `sync` event (changes queued offline:
// background-sync.ts registered it) and its `periodicsync` event (lists kept fresh, where the
// browser grants it) run. One run of the sync library's engine over the app's device database
// (sync/background.ts: under the tabs' Web Lock, with the session the tabs keep in IndexedDB),
// then, under the same lock, the badge and the notifications that the pulled rows make. A run
// that failed (no network yet, a server error), or that left queued changes to an open tab,
// rejects, so the browser tries again later.
import { syncInBackground, type BackgroundResult } from '@sync/background';

import { OUTPOST_APP, OUTPOST_DB_NAME } from '@/data/sync';
import type { Queries } from '@/data/queries';
import { createAppSupabase } from '@/lib/supabase';
import { todayIso } from '@/utils/format';

import { badgeCount, showBadge } from './app-badge';
import { recordBackgroundRun, type BackgroundTrigger } from './background-state';
import { notifyOf } from './background-sync';

/** The worker's own supabase-js client, made at its first run. */
let client: ReturnType<typeof createAppSupabase> | undefined;

/** What a run needs of the worker's registration. */
export type WorkerRegistration = Parameters<typeof notifyOf>[3];

/**
 * One background sync for `trigger`; rejects when it failed, for the browser to retry. The
 * outcome is kept for Settings ("last synced in the background").
 */
export async function runBackgroundSync(
  trigger: BackgroundTrigger,
  registration: WorkerRegistration,
  now: () => number = Date.now,
): Promise<BackgroundResult> {
  client ??= createAppSupabase({ mirror: undefined, worker: true });
  const result = await syncInBackground(
    { supabase: client, dbName: OUTPOST_DB_NAME },
    OUTPOST_APP,
    (queries, run) => afterRun(queries, run, registration, now),
  );
  await recordBackgroundRun({
    at: now(),
    trigger,
    outcome: result.outcome === 'outdated' ? 'failed' : result.outcome,
  });
  if (result.outcome === 'failed' || result.outcome === 'outdated') {
    throw new Error(`background sync failed: ${result.error?.code ?? result.outcome}`);
  }
  // A tab leads and was asked to send them; should it close first, the browser's retry (a few
  // minutes on) finds the lock free.
  if (result.outcome === 'tab-leads' && trigger === 'sync' && result.pending > 0) {
    throw new Error('background sync left to the open tab; trying again later');
  }
  return result;
}

/** The badge and the notifications of a run, read from the device under its lock. */
async function afterRun(
  queries: Queries,
  run: BackgroundResult,
  registration: WorkerRegistration,
  now: () => number,
): Promise<void> {
  const owner = await queries.deviceOwner();
  if (!owner) return;
  const assignedDue = await queries.assignedDueCount(owner, todayIso(now()));
  await showBadge(badgeCount({ pending: run.pending, assignedDue }));
  await notifyOf(run.changes, owner, queries, registration);
}
