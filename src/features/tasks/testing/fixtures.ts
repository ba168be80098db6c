// Test fixtures for the tasks screens: a local-only device with a list made through the
// repositories, and tasks written straight into the device database (10,000 of them).
import { generateNKeysBetween } from 'fractional-indexing';

import { LOCAL_USER_ID, type LocalRow } from '@sync/index';
import { putStoredRows, storedRows } from '@sync/testing';
import { useToasts } from '@/lib/toasts';
import { createTestServices, markLocalOnly, type TestServices } from '@/testing/app-harness';
import { serverRow } from '@/testing/fixtures';
import type { Task } from '@/data/rows';

export { addMember, putMembership, sharedList } from '@/testing/fixtures';

export async function localListDevice(name = 'Groceries'): Promise<{
  services: TestServices;
  listId: string;
}> {
  markLocalOnly();
  useToasts.setState({ toasts: [] });
  const services = createTestServices();
  const listId = await services.sync.repos.lists.create({ name, color: 'teal' });
  return { services, listId };
}

/** `count` synced tasks titled "Task 1"…, in order, written in one bulk put. */
export async function seedTasks(
  services: TestServices,
  listId: string,
  count: number,
  extra: (index: number) => Partial<Task> = () => ({}),
): Promise<string[]> {
  const positions = generateNKeysBetween(null, null, count);
  const rows = positions.map((position, i) =>
    serverRow('tasks', {
      id: crypto.randomUUID(),
      list_id: listId,
      title: `Task ${i + 1}`,
      notes: '',
      status: 'todo',
      priority: 0,
      due_on: null,
      assignee_id: null,
      repeat: null,
      follows_id: null,
      position,
      completed_at: null,
      created_by: LOCAL_USER_ID,
      ...extra(i),
    }),
  );
  await putStoredRows(services.sync, 'tasks', rows);
  return rows.map((row) => row.id);
}

/** Live task rows of a list in the order the screens show them: position, then id. */
export async function dbTasks(services: TestServices, listId: string): Promise<LocalRow[]> {
  const rows = (await storedRows(services.sync, 'tasks')).filter((row) => row.list_id === listId);
  // Fractional indexes (and ids) compare by code unit, not by locale.
  const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return rows
    .filter((row) => !row.deleted_at)
    .sort((a, b) => compare(String(a.position), String(b.position)) || compare(a.id, b.id));
}
