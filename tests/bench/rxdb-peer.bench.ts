// Issue 42's peer figure: RxDB's Supabase replication (rxdb/plugins/replication-supabase: live,
// pulling through its realtime stream, pushing through PostgREST) on RxDB's Dexie storage over
// stock fake-indexeddb, against the same devstack (Postgres 15) and in the same process as
// Outpost's own remote-edit figure (sync-engine.bench.ts, benchRemoteEdits), so the two sit
// side by side. The table is set up as the plugin's docs ask (a text primary key, a `_deleted`
// boolean, a `_modified` timestamptz kept by moddatetime, in the `supabase_realtime`
// publication), with RLS letting signed-in users read and write; the RxDB side uses what its
// docs show and nothing slower (no dev-mode, no schema validator, one instance per database).
// The devstack's change capture picks the table up on the first subscription to it
// (devstack/realtime/postgres-changes-handler.ts), so nothing in devstack/ knows about it.
import { createRequire } from 'node:module';

import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import type { SupabaseClient } from '@supabase/supabase-js';
import type * as RxCore from 'rxdb/plugins/core';
import type { RxCollection, RxDatabase, RxDocument, RxJsonSchema } from 'rxdb/plugins/core';
import type * as RxSupabase from 'rxdb/plugins/replication-supabase';
import type { RxSupabaseReplicationState } from 'rxdb/plugins/replication-supabase';
import type * as RxDexie from 'rxdb/plugins/storage-dexie';

import { startTestDevstack, type TestDevstack } from '../support/devstack';
import { setFakeIndexedDbFixes } from '../support/fake-indexeddb';
import { clientFor, signIn } from '../support/sync-client';
import { bareSubscriber, type BareSubscriber } from './bare-subscriber';
import { percentiles, type Percentiles } from './percentiles';

// RxDB's CommonJS build, the same code as its ESM one: RxDB pins its own Dexie (4.4.2), and
// Dexie's ESM entry refuses to load beside another version in one process, where Outpost's
// (4.4.7) already is. Required, RxDB gets its pinned Dexie as published, unchecked; each Dexie
// only ever opens its own databases.
const require = createRequire(import.meta.url);
const { createRxDatabase, RXDB_VERSION } = require('rxdb/plugins/core') as typeof RxCore;
const { replicateSupabase } = require('rxdb/plugins/replication-supabase') as typeof RxSupabase;
const { getRxStorageDexie } = require('rxdb/plugins/storage-dexie') as typeof RxDexie;

/** Edits timed per fake-indexeddb variant, after WARM_UPS untimed ones. */
const REMOTE_EDITS = 100;
const WARM_UPS = 3;
/** Documents bob edits one at a time in the live-edits figure. */
const LIVE_EDITS = 1_000;
const TABLE = 'rxdb_bench_docs';
/** The document of the remote-edit figure; the live edits take the LIVE_EDITS after it. */
const docId = (n: number) => `doc-${String(n).padStart(4, '0')}`;

/** A row of the bench table, as RxDB holds it (`_deleted`, `_modified` are the plugin's). */
interface BenchDoc {
  id: string;
  title: string;
  notes: string;
  status: string;
  position: string;
}

const SCHEMA: RxJsonSchema<BenchDoc> = {
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 36 },
    title: { type: 'string' },
    notes: { type: 'string' },
    status: { type: 'string' },
    position: { type: 'string' },
  },
  required: ['id', 'title', 'notes', 'status', 'position'],
};

/** The table as the plugin's docs set one up, open to signed-in users, and its rows. */
const TABLE_SQL = `
create extension if not exists moddatetime schema extensions;
create table public.${TABLE} (
  id text primary key,
  title text not null,
  notes text not null default '',
  status text not null default 'todo',
  position text not null,
  _deleted boolean not null default false,
  _modified timestamptz not null default now()
);
create trigger ${TABLE}_modified before update on public.${TABLE}
  for each row execute function extensions.moddatetime('_modified');
alter table public.${TABLE} enable row level security;
create policy "signed-in users read and write" on public.${TABLE}
  for all to authenticated using (true) with check (true);
grant select, insert, update on public.${TABLE} to authenticated;
alter publication supabase_realtime add table public.${TABLE};
insert into public.${TABLE} (id, title, position)
  select 'doc-' || lpad(i::text, 4, '0'), 'Doc ' || i, lpad(i::text, 6, '0')
    from generate_series(0, ${LIVE_EDITS}) i;`;

/** A fetch that counts what goes through it. */
interface CountedFetch {
  fetch: typeof fetch;
  /** Every request. */
  requests: number;
  /** POST and PATCH requests to /rest/v1/ (inserts and updates). */
  writes: number;
}

function countedFetch(): CountedFetch {
  const counted: CountedFetch = {
    requests: 0,
    writes: 0,
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      const method = (
        init?.method ?? (input instanceof Request ? input.method : 'GET')
      ).toUpperCase();
      counted.requests += 1;
      if (
        new URL(url).pathname.startsWith('/rest/v1/') &&
        (method === 'POST' || method === 'PATCH')
      ) {
        counted.writes += 1;
      }
      return fetch(input, init);
    },
  };
  return counted;
}

/** One user's RxDB database, its collection replicated live with the devstack. */
interface Peer {
  client: SupabaseClient;
  docs: RxCollection<BenchDoc>;
  replication: RxSupabaseReplicationState<BenchDoc>;
  net: CountedFetch;
  close(): Promise<void>;
}

async function openPeer(
  stack: TestDevstack,
  who: 'alice' | 'bob',
  errors: unknown[],
): Promise<Peer> {
  const net = countedFetch();
  const client = clientFor(stack, net.fetch);
  await signIn(client, `${who}@example.com`);
  const db: RxDatabase<{ docs: RxCollection<BenchDoc> }> = await createRxDatabase({
    name: `rxdb-peer-${who}`,
    // Its own IndexedDB, as another device's.
    storage: getRxStorageDexie({ indexedDB: new IDBFactory(), IDBKeyRange }),
    // One tab: no cross-tab event channel, leadership at once.
    multiInstance: false,
  });
  await db.addCollections({ docs: { schema: SCHEMA } });
  const replication = replicateSupabase<BenchDoc>({
    tableName: TABLE,
    client,
    collection: db.docs,
    replicationIdentifier: `rxdb-peer-${who}`,
    live: true,
    pull: {},
    push: {},
  });
  // A retry (after 5 s) would pass for slowness: every error fails the bench instead.
  replication.error$.subscribe((error) => errors.push(error));
  await replication.awaitInitialReplication();
  return {
    client,
    docs: db.docs,
    replication,
    net,
    close: async () => {
      await replication.cancel();
      await db.close();
      await client.removeAllChannels();
      await client.realtime.disconnect();
    },
  };
}

/** Resolves once `doc`'s collection holds `title` for it (its observable, no polling). */
function visible(doc: RxDocument<BenchDoc>, title: string): Promise<void> {
  return new Promise((resolve) => {
    const watch = doc.$.subscribe((latest) => {
      if (latest.title !== title) return;
      resolve();
      queueMicrotask(() => watch.unsubscribe());
    });
  });
}

/**
 * Another channel on `client` (alice's, the one her replication uses) on the table's
 * postgres_changes, storing nothing: when each title's UPDATE reaches her socket, the floor
 * under the replication's figure. The same client, so the same token: the devstack reads a
 * change once per token, and a client of its own would be served after hers.
 */
function floorSubscriber(client: SupabaseClient): Promise<BareSubscriber> {
  const channel = client.channel('rxdb-peer-floor');
  return bareSubscriber(
    channel,
    (joining, arrived) =>
      joining.on(
        'postgres_changes',
        { event: 'UPDATE', schema: 'public', table: TABLE },
        (payload: { new: { title?: unknown } }) => arrived(payload.new.title),
      ),
    async () => {
      await client.removeChannel(channel);
    },
  );
}

/** Remote edit → visible, for one fake-indexeddb variant. */
export interface RxdbRemoteFigures {
  /** 'stock', or with the sync kit's fixes of fake-indexeddb's costs (as Outpost's figure runs). */
  variant: 'stock' | 'kit fixes';
  visible: Percentiles;
  /** The same edits' UPDATE reaching alice's socket, on a bare channel (ms from the write). */
  floor: Percentiles;
  /** bob's POST / PATCH requests to /rest/v1/ per edit. */
  bobWritesPerEdit: number;
  /** Every request alice's client made, per edit. */
  aliceRequestsPerEdit: number;
}

/** Live edits: bob edits LIVE_EDITS documents one after the other (stock fake-indexeddb). */
export interface RxdbLiveFigures {
  edits: number;
  /** bob's POST / PATCH requests to /rest/v1/ for them. */
  writeRequests: number;
  /** Each edit's local write (incrementalPatch awaited) (ms). */
  write: Percentiles;
  /** From the first write until bob's replication was in sync (ms). */
  allPushedMs: number;
}

export interface RxdbPeerFigures {
  version: string;
  remote: RxdbRemoteFigures[];
  live: RxdbLiveFigures;
}

/**
 * RxDB's Supabase replication on one devstack: remote edit → visible (REMOTE_EDITS per
 * fake-indexeddb variant, alternating edit by edit so drift on the shared machine hits both),
 * then LIVE_EDITS edits of different documents by bob alone, counting his write requests.
 */
export async function benchRxdbPeer(): Promise<RxdbPeerFigures> {
  const stack = await startTestDevstack('postgres');
  const errors: unknown[] = [];
  /** What is open, closed at the end whatever happens. */
  const open: { close(): Promise<void> }[] = [];
  const failed = () => {
    if (errors.length > 0) throw new Error('bench: RxDB replication failed', { cause: errors[0] });
  };
  try {
    await stack.db.exec(TABLE_SQL);
    // Stock fake-indexeddb (issue 42), as the independent benchmark had it.
    setFakeIndexedDbFixes(false);
    const alice = await openPeer(stack, 'alice', errors);
    open.push(alice);
    const bob = await openPeer(stack, 'bob', errors);
    open.push(bob);
    const bare = await floorSubscriber(alice.client);
    open.push(bare);
    const aliceDoc = await alice.docs.findOne(docId(0)).exec(true);
    const bobDoc = await bob.docs.findOne(docId(0)).exec(true);

    const inSync = async () => {
      await bob.replication.awaitInSync();
      await alice.replication.awaitInSync();
    };
    /** One edit by bob: ms until alice's collection shows it, and until the bare socket heard it. */
    const edit = async (title: string) => {
      const shown = visible(aliceDoc, title);
      const heard = bare.heard(title);
      const t0 = performance.now();
      await bobDoc.incrementalPatch({ title });
      await shown;
      const ms = performance.now() - t0;
      const floorMs = (await heard) - t0;
      await inSync();
      return { ms, floorMs };
    };
    for (let i = 0; i < WARM_UPS; i++) await edit(`warm-up ${i}`);
    failed();

    const runs = (['stock', 'kit fixes'] as const).map((variant) => ({
      variant,
      visible: [] as number[],
      floor: [] as number[],
      bobWrites: 0,
      aliceRequests: 0,
    }));
    for (let i = 0; i < REMOTE_EDITS * runs.length; i++) {
      const run = runs[i % runs.length];
      if (!run) throw new Error('bench: no variant');
      setFakeIndexedDbFixes(run.variant === 'kit fixes');
      const writesBefore = bob.net.writes;
      const requestsBefore = alice.net.requests;
      const { ms, floorMs } = await edit(`remote edit ${i}`);
      run.visible.push(ms);
      run.floor.push(floorMs);
      run.bobWrites += bob.net.writes - writesBefore;
      run.aliceRequests += alice.net.requests - requestsBefore;
    }
    setFakeIndexedDbFixes(false);
    failed();
    const remote = runs.map((run) => ({
      variant: run.variant,
      visible: percentiles(run.visible),
      floor: percentiles(run.floor),
      bobWritesPerEdit: run.bobWrites / REMOTE_EDITS,
      aliceRequestsPerEdit: run.aliceRequests / REMOTE_EDITS,
    }));
    // Bob alone from here, as in Outpost's live-edit figure.
    for (const done of [bare, alice]) {
      open.splice(open.indexOf(done), 1);
      await done.close();
    }

    const ids = Array.from({ length: LIVE_EDITS }, (_, i) => docId(i + 1));
    const docs = await bob.docs.findByIds(ids).exec();
    const writesBefore = bob.net.writes;
    const writes: number[] = [];
    const t0 = performance.now();
    for (const [i, id] of ids.entries()) {
      const doc = docs.get(id);
      if (!doc) throw new Error(`bench: bob has no ${id}`);
      const at = performance.now();
      await doc.incrementalPatch({ title: `live edit ${i}` });
      writes.push(performance.now() - at);
    }
    await bob.replication.awaitInSync();
    const allPushedMs = performance.now() - t0;
    const writeRequests = bob.net.writes - writesBefore;
    failed();
    const { rows } = await stack.db.query(
      `select count(*)::int as n from public.${TABLE} where title like 'live edit %'`,
    );
    const onServer = Number(rows[0]?.n);
    if (onServer !== LIVE_EDITS) throw new Error(`bench: ${onServer} live edits on the server`);
    return {
      version: RXDB_VERSION,
      remote,
      live: { edits: LIVE_EDITS, writeRequests, write: percentiles(writes), allPushedMs },
    };
  } finally {
    setFakeIndexedDbFixes(true);
    for (const item of open.reverse()) await item.close();
    await stack.stop();
  }
}
