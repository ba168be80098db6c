// The first screen's reads, started before the first render (main.tsx). On a list's URL the
// list, the user's role on it, its first tasks and its counts are read while the screen's code
// is still on its way; the screen's hooks ask the same shared queries, so it renders them at
// its first render instead of rendering, then reading, then rendering again.
import type { OutpostSync } from '@/data/sync';
import { firstTasksQuery } from '@/features/tasks/hooks/use-list-tasks';
import { listQuery } from '@/hooks/use-list';
import { roleQuery } from '@/hooks/use-list-access';
import { taskCountsQuery } from '@/hooks/use-task-counts';
import { warmSharedQuery, type QuerySpec } from '@/data/use-shared-live-query';
import { deviceOwnerQuery, sessionUserId, storedUser } from '@/lib/session';

import { screenAt } from './screen-code';

export interface FirstScreenReads {
  /** Settles when every read has its first result. */
  ready: Promise<void>;
  /**
   * Settles when the screen has what it needs to show its rows: every read but a list's
   * counts, which can take longer on a long list and show as "counting" until they come.
   */
  rows: Promise<void>;
  /** Lets the reads go (those the screen shows go on). */
  release: () => void;
}

/** Starts the reads of the screen at `pathname`. */
export function readFirstScreen(sync: OutpostSync, pathname: string): FirstScreenReads {
  const releases: (() => void)[] = [];
  let released = false;
  const read = <T>(spec: QuerySpec<T>): Promise<T> => {
    const warm = warmSharedQuery(sync.queries, spec);
    releases.push(warm.release);
    return warm.first;
  };
  const owner = read(deviceOwnerQuery(sync));
  const reads: Promise<unknown>[] = [owner];
  let counts: Promise<unknown> = Promise.resolve();
  // /lists/:listId
  const listId = screenAt(pathname) === 'list' ? pathname.split('/')[2] : undefined;
  if (listId !== undefined) {
    // Whom the screen reads as (SessionProvider's user): the signed-in account, known at
    // once, or else the device's owner (a session gone, or no account), once read. The list
    // and the role first: the screen shows nothing without them, and the browser answers a
    // page's reads one after another, the counts of a long list taking a while.
    const readAccess = async (userId: string) => {
      if (released) return;
      await Promise.all([
        read(listQuery(sync, listId, userId)),
        read(roleQuery(sync, listId, userId)),
      ]);
    };
    const user = storedUser();
    reads.push(
      user ? readAccess(user.id) : owner.then((id) => readAccess(sessionUserId(null, id))),
    );
    reads.push(read(firstTasksQuery(sync, listId)));
    counts = read(taskCountsQuery(sync, listId));
  }
  const rows = Promise.all(reads).then(() => undefined);
  return {
    ready: Promise.all([rows, counts]).then(() => undefined),
    rows,
    release: () => {
      released = true;
      for (const release of releases) release();
    },
  };
}

/** How long a screen's reads started ahead are kept for it, if it has not taken them (ms). */
const AHEAD_READS_MS = 10_000;

/**
 * Starts a list screen's reads when a press begins on a link to it (pointerdown, or the click
 * itself for a keyboard's Enter), as readFirstScreen does for the opening screen: a press
 * lasts ~100 ms before its click, and the router then renders the screen, which read its list
 * and then its tasks, one read after the other, after it had rendered. The screen's hooks ask
 * the same shared queries, so it renders with what is here by then. Returns the stop.
 */
export function readScreensAhead(sync: OutpostSync, target: EventTarget = document): () => void {
  // The paths whose reads are held: a mouse's press and then its click start them once.
  const held = new Set<string>();
  const ahead = (event: Event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
    const path = link?.getAttribute('href')?.split(/[?#]/)[0];
    if (!path || screenAt(path) !== 'list' || path === window.location.pathname) return;
    if (held.has(path)) return;
    held.add(path);
    const reads = readFirstScreen(sync, path);
    setTimeout(() => {
      held.delete(path);
      reads.release();
    }, AHEAD_READS_MS);
  };
  target.addEventListener('pointerdown', ahead, true);
  target.addEventListener('click', ahead, true);
  return () => {
    target.removeEventListener('pointerdown', ahead, true);
    target.removeEventListener('click', ahead, true);
  };
}
