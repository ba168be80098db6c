// The services' side of undo (lib/undo.ts), small enough for the app shell: the screens get a
// sync whose edits go through undo's recording repositories, loaded in their own chunk after
// the first paint (from the precache, so offline too). An edit made before it has come waits
// for it; every other write goes straight to the repositories.
import type { OutpostSync } from './sync';
import type { Repositories } from './repositories';

type Undo = typeof import('./undo');

let loading: Promise<Undo> | undefined;
/** Undo's chunk once it has come. */
let loaded: Undo | undefined;

/** Undo's chunk: loaded once, on the first edit, undo key or `preloadUndo`; tried again after a failure. */
export function loadUndo(): Promise<Undo> {
  return (loading ??= import('./undo').then(
    (undo) => (loaded = undo),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  ));
}

/** Loads undo's chunk after the first paint, so the first edit does not wait for it. */
export function preloadUndo(): void {
  void loadUndo();
}

/** The repositories' methods that undo records (undo.test.ts holds undo.ts to this list). */
export const RECORDED = {
  lists: ['rename', 'recolor', 'delete', 'undoDelete'],
  tasks: [
    'update',
    'setStatus',
    'move',
    'completeMany',
    'undoComplete',
    'delete',
    'undoDelete',
    'updateMany',
    'undoUpdateMany',
    'deleteMany',
    'undoDeleteMany',
    'moveMany',
    'undoMoveMany',
  ],
  comments: ['edit', 'delete', 'undoDelete'],
  attachments: ['delete', 'undoDelete'],
  checklist: ['add', 'update', 'move', 'delete', 'undoDelete'],
} as const satisfies { [K in keyof Repositories]?: readonly (keyof Repositories[K])[] };

type Method = (...args: unknown[]) => Promise<unknown>;

/** The sync each recording sync wraps; and the recording sync of each sync. */
const raws = new WeakMap<OutpostSync, OutpostSync>();
const recording = new WeakMap<OutpostSync, OutpostSync>();

/** The sync library under a recording sync (itself for any other). */
export function rawSync(sync: OutpostSync): OutpostSync {
  return raws.get(sync) ?? sync;
}

/** `sync` with repositories that note every edit for undo: the one the screens get. */
export function withUndo(sync: OutpostSync): OutpostSync {
  if (raws.has(sync)) return sync;
  let made = recording.get(sync);
  if (made) return made;
  const repos: Record<string, Record<string, unknown>> = { ...sync.repos };
  for (const [entity, methods] of Object.entries(RECORDED)) {
    const wrapped: Record<string, unknown> = { ...repos[entity] };
    for (const name of methods) {
      wrapped[name] = (...args: unknown[]) => {
        // The write starts now, in the tick of the user's action, never after a wait for
        // undo's code: a page closed or reloaded right after a tap must not lose the edit.
        // Until the chunk has come (or when it will not load), the edit goes unrecorded.
        let target: Record<string, unknown> = sync.repos[entity as keyof Repositories];
        if (loaded) target = loaded.undoerOf(sync).repos[entity as keyof Repositories];
        else
          loadUndo().catch((error: unknown) =>
            console.warn('[outpost] undo is not available; edits are saved without it', error),
          );
        return (target[name] as Method)(...args);
      };
    }
    repos[entity] = wrapped;
  }
  made = { ...sync, repos: repos as unknown as Repositories };
  raws.set(made, sync);
  recording.set(sync, made);
  return made;
}
