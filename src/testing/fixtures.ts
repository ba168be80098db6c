// Rows written straight into a test device's database, as the server would send them, for
// what the repositories cannot make on their own: lists shared with this device's user in a
// given role, other members.
import { LOCAL_USER_ID } from '@sync/index';
import { type Role } from '@/data/schema';
import { serverRow } from '@/data/testing/server-row';
import { putStoredRows } from '@sync/testing';

import type { TestServices } from './app-harness';

export { serverRow };

/** A list someone else owns, shared with this device's user as `role`. */
export async function sharedList(
  services: TestServices,
  role: 'owner' | 'editor' | 'viewer',
  name = 'Site visit',
): Promise<string> {
  const listId = crypto.randomUUID();
  const owner = crypto.randomUUID();
  await putStoredRows(services.sync, 'lists', [
    serverRow('lists', { id: listId, name, color: 'blue', created_by: owner }),
  ]);
  await addMember(services, listId, owner, 'owner', 'Olivia Owner');
  await putMembership(services, listId, role);
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
  await putStoredRows(services.sync, 'profiles', [
    serverRow('profiles', { id: userId, display_name: displayName, avatar_path: null }),
  ]);
  await putMembership(services, listId, role, userId);
  return userId;
}

/** A membership of `userId` (default: this device's local user) as the server would send it. */
export async function putMembership(
  services: TestServices,
  listId: string,
  role: Role,
  userId: string = LOCAL_USER_ID,
): Promise<void> {
  await putStoredRows(services.sync, 'memberships', [
    serverRow('memberships', { id: crypto.randomUUID(), list_id: listId, user_id: userId, role }),
  ]);
}
