// Fixtures for the members feature's component tests: other people's devstack clients (the
// app's own is the harness's devstackClient), new accounts, lists and invites made through
// the real sync library and edge functions.
import type { SupabaseClient } from '@supabase/supabase-js';

import { createInvite, acceptInvite, type InviteRole } from '@/lib/api';
import { devstackClient, signInDemo, signUpFresh } from '@/testing/app-harness';

export { ownList, SEEDED_LIST, SEEDED_LIST_NAME } from '@/testing/app-harness';

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
