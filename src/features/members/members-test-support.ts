// Fixtures for the members feature's component tests: other people's devstack clients (the
// app's own is the harness's devstackClient), new accounts, lists and invites made through
// the real sync library and edge functions. Realtime goes over `ws`, as in the harness:
// jsdom's WebSocket throws on Node's EventTarget.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { inject } from 'vitest';
import WebSocket from 'ws';

import { createInvite, acceptInvite, type InviteRole } from '@/lib/api';
import { createTestServices } from '@/testing/app-harness';

export const SEEDED_LIST = '11570000-0000-4000-8000-000000000001';
export const SEEDED_LIST_NAME = 'Site inspection — Block C';

const transport = WebSocket as unknown as typeof globalThis.WebSocket;

/** Another person's client, with a session of its own that the app never sees. */
export function sideClient() {
  const { url, anonKey } = inject('devstack');
  return createClient(url, anonKey, {
    auth: {
      persistSession: false,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      storageKey: `side-${crypto.randomUUID()}`,
    },
    realtime: { transport },
  });
}

export async function signInAs(
  supabase: SupabaseClient,
  who: 'alice' | 'bob',
): Promise<SupabaseClient> {
  const { error } = await supabase.auth.signInWithPassword({
    email: `${who}@example.com`,
    password: 'outpost-demo',
  });
  if (error) throw error;
  return supabase;
}

/** Signs up a new person (the devstack confirms at once); returns their id and name. */
export async function signUpNew(
  supabase: SupabaseClient,
  name = `Guest ${crypto.randomUUID().slice(0, 6)}`,
): Promise<{ id: string; name: string }> {
  const { data, error } = await supabase.auth.signUp({
    email: `inv-${crypto.randomUUID()}@example.com`,
    password: 'secret-123',
    options: { data: { display_name: name } },
  });
  if (error || !data.user) throw error ?? new Error('sign-up returned no user');
  return { id: data.user.id, name };
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
