// The bench page of browser.bench.ts (issue 16, figure 3), bundled with esbuild and served on
// the app's origin: the real sync library (createOutpostSync) in Chromium's IndexedDB, signed
// in to the devstack with supabase-js, times an initial sync from an empty device; then the
// same rows, read back from the device database, go into a fresh Dexie database with the
// device's indexes by bulkPut in chunks of 1,000 (the engine's page), and into another by one
// bulkPut of them all, both timed: the faster is the baseline (print.ts). Every other run times
// the baselines first (with the rows the run before stored), so neither side always comes
// second, after the other's writes.
// The last run's device database is the app's own (`outpost`, the app's session key), so the
// app opened next on this origin finds the user signed in and the device synced.
import { createClient } from '@supabase/supabase-js';
import Dexie from 'dexie';

import { deviceStores, setDeviceDatabaseDebug } from '../../../sync/db';
import { createOutpostSync, type OutpostSync } from '../../../src/data/sync';
import { OUTPOST_SCHEMA } from '../../../src/data/tables';
import { storedRows, switchableOnline } from '../../../sync/testing';

// As the app's production build runs (src/main.tsx): Dexie's debug mode, which it turns on by
// itself on localhost, records a stack for every table operation. For the engine and the
// baselines alike.
setDeviceDatabaseDebug(false);

/** The baseline's chunk: the engine's pull page size. */
const CHUNK = 1_000;
/** The tasks table's indexes in the device database (its newest version), for the baseline. */
const TASK_STORES = deviceStores(OUTPOST_SCHEMA).tasks ?? '';

export interface SyncPageOptions {
  url: string;
  publishableKey: string;
  email: string;
  password: string;
  /** Where the app's supabase-js keeps its session (src/lib/supabase.ts). */
  storageKey: string;
  /** The big list, and how many tasks it must hold once synced. */
  listId: string;
  expected: number;
  runs: number;
}

export interface SyncRun {
  /** Task rows on the device after the sync (every list the user is in). */
  rows: number;
  /** From going online until `engine.syncNow()` resolved. */
  engineMs: number;
  /** The same rows by bulkPut into a fresh database, chunks of CHUNK. */
  bulkPutMs: number;
  /** The same rows by one bulkPut of them all into a fresh database. */
  bulkPutOneMs: number;
  /** The baselines were timed before the sync (else after it). */
  baselineFirst: boolean;
  /** sync_pull requests during the sync, and the time spent waiting for them (sent → body read). */
  pulls: number;
  pullWaitMs: number;
}

/** Counts sync_pull requests and the time from sending one to having its whole body. */
function timedFetch() {
  const stats = { pulls: 0, waitMs: 0 };
  const fetchTimed: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.includes('/rest/v1/rpc/sync_pull')) return fetch(input, init);
    const t0 = performance.now();
    const response = await fetch(input, init);
    const body = await response.arrayBuffer();
    stats.pulls += 1;
    stats.waitMs += performance.now() - t0;
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return { stats, fetchTimed };
}

/** Writes `rows` into a fresh database by bulkPut, `chunk` rows at a time (ms). */
async function timedBulkPut(rows: readonly object[], chunk: number): Promise<number> {
  const raw = new Dexie('bulkput-baseline');
  raw.version(1).stores({ tasks: TASK_STORES });
  await raw.open();
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i += chunk) {
    await raw.table('tasks').bulkPut(rows.slice(i, i + chunk));
  }
  const ms = performance.now() - t0;
  const written = await raw.table('tasks').count();
  raw.close();
  await Dexie.delete('bulkput-baseline');
  if (written !== rows.length) throw new Error(`bulkPut wrote ${written} of ${rows.length}`);
  return ms;
}

/** Both baselines with `rows` (ms). */
async function baselines(rows: readonly object[]) {
  return {
    bulkPutMs: await timedBulkPut(rows, CHUNK),
    bulkPutOneMs: await timedBulkPut(rows, rows.length),
  };
}

/**
 * One initial sync, and its baselines: after it with the rows it stored, or before it with
 * `earlier` (the same rows, as the run before stored them). Returns the rows it stored too.
 */
async function oneRun(
  options: SyncPageOptions,
  last: boolean,
  earlier: readonly object[] | undefined,
): Promise<{ run: SyncRun; rows: object[] }> {
  const first = earlier && (await baselines(earlier));
  const { stats, fetchTimed } = timedFetch();
  const supabase = createClient(options.url, options.publishableKey, {
    global: { fetch: fetchTimed },
    auth: {
      persistSession: last,
      autoRefreshToken: last,
      detectSessionInUrl: false,
      storageKey: options.storageKey,
    },
  });
  const { error } = await supabase.auth.signInWithPassword({
    email: options.email,
    password: options.password,
  });
  if (error) throw error;
  const online = switchableOnline(false);
  let sync: OutpostSync | undefined = createOutpostSync({
    supabase,
    online,
    // This page is the only tab: it leads at once (no Web Lock to wait for).
    leadership: (onLeader) => {
      onLeader();
      return () => undefined;
    },
  });
  try {
    sync.start();
    const pullsBefore = { ...stats };
    const t0 = performance.now();
    online.set(true);
    await sync.engine.syncNow();
    const engineMs = performance.now() - t0;
    const pulls = stats.pulls - pullsBefore.pulls;
    const pullWaitMs = stats.waitMs - pullsBefore.waitMs;
    const rows = await storedRows(sync, 'tasks');
    const inList = rows.filter((row) => row.list_id === options.listId).length;
    // A sync cut short (a timeout, a backoff) would make the figure a lie.
    if (inList !== options.expected) {
      throw new Error(`initial sync delivered ${inList} of ${options.expected} tasks`);
    }
    await sync.stop();
    const { bulkPutMs, bulkPutOneMs } = first ?? (await baselines(rows));

    if (last) {
      // Kept for the app: closed, so its next open is the app's own.
      await sync.close();
      sync = undefined;
    }
    return {
      run: {
        rows: rows.length,
        engineMs,
        bulkPutMs,
        bulkPutOneMs,
        baselineFirst: first !== undefined,
        pulls,
        pullWaitMs,
      },
      rows,
    };
  } finally {
    if (sync) {
      await sync.close();
      await Dexie.delete('outpost');
    }
    if (!last) await supabase.auth.signOut({ scope: 'local' });
    await supabase.realtime.disconnect();
  }
}

async function run(options: SyncPageOptions): Promise<SyncRun[]> {
  const runs: SyncRun[] = [];
  let stored: object[] | undefined;
  for (let i = 0; i < options.runs; i++) {
    const done = await oneRun(options, i === options.runs - 1, i % 2 === 1 ? stored : undefined);
    runs.push(done.run);
    stored = done.rows;
  }
  return runs;
}

(window as unknown as { __syncBench: typeof run }).__syncBench = run;
