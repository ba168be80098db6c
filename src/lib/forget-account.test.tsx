// Issue 35: a sign-out leaves nothing of the person in the tab. The undo history (values
// before and after, copies of deleted tasks) went on living in sessionStorage and in memory,
// for the next person to read or undo into; so did toasts and held deletes naming their
// rows. The session clears them whenever the tab's person changes: a sign-out, another
// account's sign-in, local data deleted in another tab, or a reload that finds someone else.
// An ended session and the account that claims local-only rows keep them: same person.
import { act, render, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { LOCAL_USER_ID } from '@sync/index';
import { type OutpostSync } from '@/data/sync';
import { setDeviceOwner } from '@sync/testing';
import {
  ALICE_ID,
  createTestServices,
  devstackClient,
  localOnlyServices,
  markLocalOnly,
  Providers,
  signInDemo,
  storeAliceSession,
  type TestServices,
} from '@/testing/app-harness';

import { holdDelete, useHeldDeletes } from '@/data/held-deletes';
import { TAB_USER_KEY } from './forget-account';
import { announceSignOut, LOCAL_ONLY_KEY, useSession, type Session } from './session';
import { showToast, useToasts } from './toasts';
import { undoerOf, type Undoer } from '@/data/undo';
import { UNDO_STORAGE_KEY } from '@/data/undo-history';
import { loadUndo } from '@/data/undo-services';

const BOB_ID = 'b0b00000-0000-4000-8000-000000000002';

let services: TestServices | undefined;

/** The app's providers around a probe of the session; resolves once the session is ready. */
async function renderSession(app: TestServices): Promise<{ current: () => Session }> {
  let session: Session | undefined;
  function Probe() {
    session = useSession();
    return null;
  }
  render(
    <Providers services={app}>
      <Probe />
    </Providers>,
  );
  await waitFor(() => expect(session?.ready).toBe(true));
  return { current: () => session! };
}

/** Edits that fill the history: a rename and a delete (which keeps a copy of the task). */
async function editWithUndo(sync: OutpostSync): Promise<Undoer> {
  const undoer = undoerOf(sync);
  const listId = await sync.repos.lists.create({ name: 'Payroll', color: 'teal' });
  const renamed = await sync.repos.tasks.create(listId, { title: 'Salary review' });
  const deleted = await sync.repos.tasks.create(listId, { title: 'Dismiss Carol' });
  await undoer.repos.tasks.update(renamed, { title: 'Salary review: Dave -10%' });
  await undoer.repos.tasks.delete(deleted);
  expect(sessionStorage.getItem(UNDO_STORAGE_KEY)).toContain('Dismiss Carol');
  showToast({ message: 'Deleted “Dismiss Carol”' });
  holdDelete({ id: deleted, undo: () => Promise.resolve() }, 60_000);
  return undoer;
}

/** Nothing of the last person is left in this tab (the history, in storage and memory). */
async function expectForgotten(undoer: Undoer): Promise<void> {
  await waitFor(() => expect(sessionStorage.getItem(UNDO_STORAGE_KEY)).toBeNull());
  expect(useToasts.getState().toasts).toEqual([]);
  expect(useHeldDeletes.getState().held).toEqual([]);
  // In memory too: nothing to undo (and no write made).
  expect(await undoer.undo()).toBe(false);
  expect(sessionStorage.getItem(UNDO_STORAGE_KEY)).toBeNull();
}

async function expectKept(): Promise<void> {
  // Forgetting, were it to come, runs once its chunk and undo's have loaded: let them.
  await act(async () => {
    await import('./forget-account');
    await loadUndo();
  });
  expect(sessionStorage.getItem(UNDO_STORAGE_KEY)).toContain('Dismiss Carol');
  expect(useToasts.getState().toasts).not.toEqual([]);
}

describe("the tab's own state of a person", () => {
  it('goes at sign-out: undo history stored and in memory, toasts, held deletes', async () => {
    storeAliceSession();
    services = createTestServices();
    const session = await renderSession(services);
    expect(session.current().mode).toBe('signed-in');
    const undoer = await editWithUndo(services.sync);
    expect(sessionStorage.getItem(TAB_USER_KEY)).toBe(ALICE_ID);

    await act(async () => {
      expect((await services!.sync.signOut({ force: true })).signedOut).toBe(true);
    });
    await waitFor(() => expect(session.current().mode).toBe('none'));
    await expectForgotten(undoer);
    expect(sessionStorage.getItem(TAB_USER_KEY)).toBeNull();
  });

  it('stays while the session has only ended, and goes when another account signs in', async () => {
    const client = await signInDemo(devstackClient(), 'alice');
    services = createTestServices({ supabase: client });
    await setDeviceOwner(services.sync, ALICE_ID);
    const session = await renderSession(services);
    const undoer = await editWithUndo(services.sync);

    // The session ends by itself (not a sign-out): still Alice's device and Alice's edits.
    await act(() => client.auth.signOut({ scope: 'local' }));
    await waitFor(() => expect(session.current().mode).toBe('expired'));
    await expectKept();

    await act(() => signInDemo(client, 'bob'));
    await waitFor(() => expect(session.current().user?.email).toBe('bob@example.com'));
    await expectForgotten(undoer);
  });

  it('stays with the account that claims local-only rows, until it signs out', async () => {
    markLocalOnly();
    storeAliceSession();
    sessionStorage.setItem(TAB_USER_KEY, LOCAL_USER_ID);
    services = createTestServices();
    const session = await renderSession(services);
    const undoer = await editWithUndo(services.sync);
    // The rows made without an account became Alice's: her edits to undo.
    expect(session.current().userId).toBe(ALICE_ID);
    await expectKept();
    expect(sessionStorage.getItem(TAB_USER_KEY)).toBe(ALICE_ID);

    await act(async () => {
      await services!.sync.signOut({ force: true });
    });
    await expectForgotten(undoer);
  });

  it('goes when local data is deleted in another tab', async () => {
    services = localOnlyServices();
    const session = await renderSession(services);
    expect(session.current().mode).toBe('local');
    const undoer = await editWithUndo(services.sync);
    expect(sessionStorage.getItem(TAB_USER_KEY)).toBe(LOCAL_USER_ID);

    // What the other tab's "Delete data on this device" does besides its wipe.
    localStorage.removeItem(LOCAL_ONLY_KEY);
    announceSignOut();
    await waitFor(() => expect(session.current().mode).toBe('none'));
    await expectForgotten(undoer);
  });

  it('goes when a reloaded tab finds another person than the one it kept state for', async () => {
    storeAliceSession();
    services = createTestServices();
    const undoer = undoerOf(services.sync);
    await editWithUndo(services.sync);
    // As if Bob had used this tab, then Alice signed in elsewhere while it slept.
    sessionStorage.setItem(TAB_USER_KEY, BOB_ID);
    await renderSession(services);
    await expectForgotten(undoer);
    expect(sessionStorage.getItem(TAB_USER_KEY)).toBe(ALICE_ID);
  });
});
