// What a sign-out (or another account's sign-in) clears on this device besides the sync
// library's wipe of its database: the person's undo history (its values and deleted rows, in
// sessionStorage and in memory), what toasts and held deletes still show of their data, and
// the worker's caches of their files (attachments loaded by signed URL, with workbox's
// record of them, and files shared to Outpost but not yet attached). session.tsx hands every
// tab's person here as it changes; its own chunk keeps the app shell small. The full list of
// what the device keeps, and why the rest stays, is in src/README.md "What sign-out
// leaves".
import { LOCAL_USER_ID } from '@sync/index';

import { useHeldDeletes } from '@/data/held-deletes';
import { clearAttachmentCache } from './pwa/attachment-cache';
import { forgetAttachmentExpiry } from './pwa/attachment-expiry';
import { clearShares } from './pwa/share-cache';
import { useToasts } from './toasts';
import { forgetStoredHistory } from '@/data/undo-history';
import { loadUndo } from '@/data/undo-services';

/**
 * Forgets this tab's state of the person who used it and, with `device`, the caches the
 * tabs share (one tab saw the change happen: a tab that only finds, after a reload, that the
 * person changed while it slept leaves those to the tab that saw it, which may since have
 * kept a share for the next person). Never throws: each part is tried, and a failure said.
 */
export async function forgetAccount({ device }: { device: boolean }): Promise<void> {
  useToasts.setState({ toasts: [] });
  useHeldDeletes.setState({ held: [] });
  const steps: Promise<unknown>[] = [
    // Through undo's chunk when it loads, so the history in memory goes too; when it does not
    // load, no history was made in memory, and the stored one is removed here.
    loadUndo().then(
      (undo) => undo.forgetUndoHistory(),
      () => forgetStoredHistory(),
    ),
  ];
  if (device) steps.push(clearAttachmentCache(), forgetAttachmentExpiry(), clearShares());
  for (const result of await Promise.allSettled(steps)) {
    if (result.status === 'rejected') {
      console.error('[outpost] could not clear what the last account left', result.reason);
    }
  }
}

/**
 * sessionStorage: whose this tab's own state is (its undo history): an account's id, or
 * LOCAL_USER_ID. Kept beside that state, so a tab restored or reloaded after someone else
 * signed in still finds it belonged to another person.
 */
export const TAB_USER_KEY = 'outpost:tab-user';

/** Whether this page has followed a person yet (a change it sees is a live one). */
let followed = false;
/** The person this page followed last (where sessionStorage cannot be reached). */
let last: string | null = null;

/**
 * Follows this tab's person (null: nobody's, signed out). When that is another person than
 * the one the tab kept state for (a sign-out, another account's sign-in, local data deleted),
 * the previous one's is forgotten; local-only rows claimed by the account that signs in stay
 * the same person's, and an ended session is still its account's (session.tsx says so).
 */
export async function followTabUser(tabUser: string | null): Promise<void> {
  let store: Storage | undefined;
  try {
    store = sessionStorage;
  } catch {
    // Sandboxed: this page's memory is all the tab keeps.
  }
  const before = store ? store.getItem(TAB_USER_KEY) : last;
  last = tabUser;
  const claimed = before === LOCAL_USER_ID && tabUser !== null;
  // A change seen live clears the caches the tabs share too; one found at start-up leaves
  // them to the tab that saw it (which did), as a share may since be the next person's.
  const device = followed;
  followed = true;
  try {
    if (tabUser === null) store?.removeItem(TAB_USER_KEY);
    else store?.setItem(TAB_USER_KEY, tabUser);
  } catch {
    // Full or refused: the tab's own state could not be stored either.
  }
  if (before !== null && before !== tabUser && !claimed) await forgetAccount({ device });
}
