// Test fixtures for the tasks screens: a local-only device with a list made through the
// repositories, and rows written straight into the device database where a test needs
// what the repositories cannot make on their own (a list shared with us as a viewer, other
// members, 10,000 tasks).
import { generateNKeysBetween } from 'fractional-indexing';

import { LOCAL_USER_ID, type LocalRow } from '@sync/index';
import { useToasts } from '@/lib/toasts';
import { createTestServices, markLocalOnly, type TestServices } from '@/testing/app-harness';

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

function stamp(): Pick<LocalRow, '_v'> & Record<string, unknown> {
  const at = new Date().toISOString();
  return { created_at: at, updated_at: at, deleted_at: null, version: 1, _v: 1 };
}

/** A list someone else owns, shared with this device's user as `role`. */
export async function sharedList(
  services: TestServices,
  role: 'owner' | 'editor' | 'viewer',
  name = 'Site visit',
): Promise<string> {
  const listId = crypto.randomUUID();
  const owner = crypto.randomUUID();
  await services.sync.db.rows('lists').put({
    id: listId,
    name,
    color: 'blue',
    created_by: owner,
    ...stamp(),
  });
  await addMember(services, listId, owner, 'owner', 'Olivia Owner');
  await services.sync.db.rows('memberships').put({
    id: crypto.randomUUID(),
    list_id: listId,
    user_id: LOCAL_USER_ID,
    role,
    ...stamp(),
  });
  return listId;
}

/** Another person on a list (membership + profile); returns their user id. */
export async function addMember(
  services: TestServices,
  listId: string,
  userId: string,
  role: 'owner' | 'editor' | 'viewer',
  displayName: string,
): Promise<string> {
  await services.sync.db.rows('profiles').put({
    id: userId,
    display_name: displayName,
    avatar_path: null,
    ...stamp(),
  });
  await services.sync.db.rows('memberships').put({
    id: crypto.randomUUID(),
    list_id: listId,
    user_id: userId,
    role,
    ...stamp(),
  });
  return userId;
}

/** `count` synced tasks titled "Task 1"…, in order, written in one bulk put. */
export async function seedTasks(
  services: TestServices,
  listId: string,
  count: number,
  extra: (index: number) => Record<string, unknown> = () => ({}),
): Promise<string[]> {
  const positions = generateNKeysBetween(null, null, count);
  const rows: LocalRow[] = positions.map((position, i) => ({
    id: crypto.randomUUID(),
    list_id: listId,
    title: `Task ${i + 1}`,
    notes: '',
    status: 'todo',
    priority: 0,
    due_on: null,
    assignee_id: null,
    position,
    completed_at: null,
    created_by: LOCAL_USER_ID,
    ...stamp(),
    ...extra(i),
  }));
  await services.sync.db.rows('tasks').bulkPut(rows);
  return rows.map((row) => row.id);
}

/** Live task rows of a list in position order, as the database has them. */
export async function dbTasks(services: TestServices, listId: string): Promise<LocalRow[]> {
  const rows = await services.sync.db.rows('tasks').where('list_id').equals(listId).toArray();
  return rows
    .filter((row) => !row.deleted_at)
    .sort((a, b) => {
      // Fractional indexes compare by code unit, not by locale.
      const [x, y] = [String(a.position), String(b.position)];
      return x < y ? -1 : x > y ? 1 : 0;
    });
}
