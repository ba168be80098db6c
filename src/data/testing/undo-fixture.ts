// For the undo tests (undo*.test.ts): the device they start from (a list of three tasks,
// nothing queued), the undoer over a history kept in memory, and the reads they check with.
import { clearQueue, storedRow } from '@sync/testing';
import { localOnlyServices } from '@/testing/app-harness';

import { useToasts } from '@/lib/toasts';
import { createUndoer } from '../undo';
import { createUndoHistory, type HistoryStorage } from '../undo-history';

/** The undo history's storage as a Map, for one test (the app keeps it in sessionStorage). */
export function memoryHistoryStorage(): HistoryStorage {
  const items = new Map<string, string>();
  return {
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

/**
 * A local-only device (setup-dom closes it after the test) with the list "Block C" holding
 * Alpha, Bravo and Charlie, nothing queued, and the undoer over a fresh history in `storage`;
 * `field` reads a stored task's column and `titles` a list's task titles in order.
 */
export async function undoFixture(storage = memoryHistoryStorage()) {
  const { sync } = localOnlyServices();
  const listId = await sync.repos.lists.create({ name: 'Block C', color: 'teal' });
  const a = await sync.repos.tasks.create(listId, { title: 'Alpha' });
  const b = await sync.repos.tasks.create(listId, { title: 'Bravo' });
  const c = await sync.repos.tasks.create(listId, { title: 'Charlie' });
  await clearQueue(sync);
  const undoer = createUndoer(sync, createUndoHistory(storage));
  return {
    sync,
    undoer,
    repos: undoer.repos,
    listId,
    a,
    b,
    c,
    storage,
    field: async (id: string, name: string) => (await storedRow(sync, 'tasks', id))?.[name],
    titles: async (id: string) => (await sync.queries.tasks(id)).map((task) => task.title),
  };
}

/** The messages of the toasts showing, oldest first. */
export const toastMessages = () => useToasts.getState().toasts.map((toast) => toast.message);
