// The engine, loaded when it is first asked to run. Push, pull, realtime and their schedule
// only talk to the server, so an app's first screen, which reads and writes the device
// database alone, need not download or run them (issue 16: they were 4 kB of Outpost's app
// shell). Until the engine's code has come, this stands in for it: it keeps the status
// store the screens read, remembers what it was last asked to be (leader, follower or
// idle), and hands that to the engine once it is here. Nothing has run before then, so the
// steps in between need no replay, and a write queued meanwhile is pushed by the start
// (a leader syncs at once).
import type { SyncEngine } from './schedule';
import { createStatusStore, type StatusStore } from './status';

/** A SyncEngine whose code `load` brings when it is first asked for anything. */
export function lazyEngine(load: (status: StatusStore) => Promise<SyncEngine>): SyncEngine {
  const status = createStatusStore();
  let engine: SyncEngine | undefined;
  let loading: Promise<SyncEngine> | undefined;
  let mode: 'idle' | 'leader' | 'follower' = 'idle';
  let retired = false;
  let syncAsked = false;

  function loaded(): Promise<SyncEngine> {
    loading ??= load(status).then(
      (made) => {
        engine = made;
        if (mode === 'leader') made.start();
        else if (mode === 'follower') made.follow();
        if (retired) made.retire();
        if (syncAsked) made.requestSync();
        return made;
      },
      (error: unknown) => {
        // Its code could not be fetched (no network and not in the worker's cache, or a
        // deploy that replaced it): the next call asks again instead of failing for good.
        loading = undefined;
        throw error;
      },
    );
    return loading;
  }

  /** Loads the engine; a failure (a chunk that cannot be fetched) is logged. */
  function loadInBackground(): void {
    loaded().catch((error: unknown) => {
      console.error('[sync] the engine could not be loaded', error);
    });
  }

  return {
    status,
    start() {
      mode = 'leader';
      if (engine) engine.start();
      else loadInBackground();
    },
    follow() {
      mode = 'follower';
      if (engine) engine.follow();
      else loadInBackground();
    },
    async stop() {
      mode = 'idle';
      if (engine) await engine.stop();
    },
    requestSync() {
      if (engine) engine.requestSync();
      else {
        syncAsked = true;
        loadInBackground();
      }
    },
    queued() {
      // Before the engine runs, its start pushes whatever is queued; a write made after its
      // code failed to load asks for it again.
      if (engine) engine.queued();
      else if (mode === 'leader') loadInBackground();
    },
    async syncNow() {
      return (await loaded()).syncNow();
    },
    retire() {
      retired = true;
      if (engine) engine.retire();
      else loadInBackground();
    },
  };
}
