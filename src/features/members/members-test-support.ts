// Fixtures for the members feature's component tests: other people's devstack clients (the
// app's own is the harness's devstackClient), new accounts, lists and invites made through
// the real sync library and edge functions.
import type { SupabaseClient } from '@supabase/supabase-js';

import { createInvite, acceptInvite, type InviteRole } from '@/lib/api';
import { createTestServices, devstackClient, signInDemo, signUpFresh } from '@/testing/app-harness';

export { SEEDED_LIST, SEEDED_LIST_NAME } from '@/testing/app-harness';

/** Another person's client, with a session of its own that the app never sees. */
export function sideClient() {
  return devstackClient({ side: true });
}

export const signInAs = signInDemo;

/** Signs up a new person (the devstack confirms at once); returns their id and name. */
export async function signUpNew(supabase: SupabaseClient, name?: string) {
  const { id, name: given } = await signUpFresh(supabase, name);
  return { id, name: given };
}

/**
 * A new list owned by `owner`, made through the real sync library, so tests that add,
 * change or remove members never touch the seeded list other suites count on.
 */
export async function ownList(owner: SupabaseClient, name: string): Promise<string> {
  const services = createTestServices({ supabase: owner, online: true, startEngine: true });
  try {
    await services.sync.engine.syncNow();
    const id = await services.sync.repos.lists.create({ name, color: 'green' });
    const status = await services.sync.engine.syncNow();
    if (status.phase !== 'synced' || (await services.sync.pendingCount()) > 0) {
      throw new Error(`the list did not reach the server (${status.phase})`);
    }
    return id;
  } finally {
    await services.close();
  }
}

/** An invite token of `listId` made by its owner. */
export async function inviteToken(
  owner: SupabaseClient,
  listId: string,
  role: InviteRole = 'editor',
): Promise<string> {
  const made = await createInvite(owner, listId, role);
  if (!made.ok) throw new Error(`createInvite: ${made.code} ${made.message}`);
  return made.token;
}

/** Makes `member` a member of `listId` through an invite from `owner`. */
export async function addMember(
  owner: SupabaseClient,
  member: SupabaseClient,
  listId: string,
  role: InviteRole = 'editor',
): Promise<void> {
  const accepted = await acceptInvite(member, await inviteToken(owner, listId, role));
  if (!accepted.ok) throw new Error(`acceptInvite: ${accepted.code} ${accepted.message}`);
}
