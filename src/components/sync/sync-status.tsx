// The header's sync status (product.md §4 "Connection"): one icon and one label per state, with the
// number of changes waiting. Being offline is a normal state here, never styled as an error.
// Screen readers hear state changes that matter (not every syncing ↔ synced flicker). On
// phones it shrinks to the icon and a word or the waiting count; the full text stays in the
// link for assistive technology. Without an account nothing ever syncs, so no count there.
// A delete in its Undo window is held on the device, not waiting for the network: the status
// says "Deleting…" with an Undo for it, and does not count it as waiting. Until the engine has
// said how sync stands (its code loading, or a new tab waiting for the leader tab), nothing is
// shown online: not "Offline", which it is not. A sync that begins quietly (all synced,
// nothing of the user's waiting, nothing to download: the catch-up once realtime has joined,
// a wake-up's check) goes on showing "Synced" for its first second; most end sooner, and a
// flick to "Syncing…" on every page load only drew the eye.
import { useEffect, useState } from 'react';

import { Link } from '@/lib/router';

import type { Download } from '@sync/index';

import { useNow } from '@/hooks/use-now';
import { useOnline } from '@/hooks/use-online';
import { useSyncStatus } from '@/hooks/use-sync-status';
import { errorMessage } from '@/lib/error-messages';
import { useHeldDeletes } from '@/data/held-deletes';
import { reloadToLatest } from '@/lib/pwa/service-worker';
import { useSession } from '@/lib/session';
import { relativeTime } from '@/utils/format';

export type SyncBadgeState =
  'local' | 'offline' | 'syncing' | 'synced' | 'retrying' | 'sign-in' | 'outdated';

const ICONS: Record<SyncBadgeState, string> = {
  local: '◇',
  offline: '○',
  syncing: '↻',
  synced: '✓',
  retrying: '!',
  'sign-in': '→',
  outdated: '↑',
};

/** The word phones show beside the icon. */
const SHORT_LABELS: Record<SyncBadgeState, string> = {
  local: 'This device',
  offline: 'Offline',
  syncing: 'Syncing',
  synced: 'Synced',
  retrying: 'Retrying',
  'sign-in': 'Sign in',
  outdated: 'Update',
};

/** A first sync's progress: rows so far, of how many when the server said. */
function downloadText({ received, expected }: Download): string {
  return expected === null
    ? `${received.toLocaleString()} items so far`
    : `${Math.min(received, expected).toLocaleString()} of ${expected.toLocaleString()} items`;
}

/** How long a quiet sync shows "Synced" before it says "Syncing…". */
export const QUIET_SYNC_MS = 1_000;

/**
 * Whether the sync under way began quietly and is still quiet, and is younger than
 * QUIET_SYNC_MS. A sync that began with changes waiting (an edit going out) is never hidden,
 * even once they are sent.
 */
function useQuietSync(syncing: boolean, quiet: boolean): boolean {
  // Each sync is a run: counted, and marked quiet or not as it begins (state from the last
  // render, the way React derives state from props).
  const [run, setRun] = useState({ syncing, quiet: syncing && quiet, n: 0 });
  if (run.syncing !== syncing) setRun({ syncing, quiet: syncing && quiet, n: run.n + 1 });
  const [lasted, setLasted] = useState(-1);
  const hiding = syncing && run.quiet;
  useEffect(() => {
    if (!hiding) return;
    const timer = setTimeout(() => setLasted(run.n), QUIET_SYNC_MS);
    return () => clearTimeout(timer);
  }, [hiding, run.n]);
  return hiding && quiet && lasted !== run.n;
}

function pendingText(pending: number): string {
  if (pending === 0) return '';
  return pending === 1 ? '1 change waiting' : `${pending.toLocaleString()} changes waiting`;
}

export function SyncStatus() {
  const status = useSyncStatus();
  const online = useOnline();
  const session = useSession();
  const now = useNow();
  const held = useHeldDeletes((state) => state.held);
  const quietSync = useQuietSync(
    status.phase === 'syncing',
    status.pending === 0 &&
      status.download === null &&
      status.lastError === null &&
      status.lastSyncedAt !== null,
  );

  let state: SyncBadgeState;
  let label: string;
  if (status.lastError?.code === 'APP_OUTDATED') {
    state = 'outdated';
    label = errorMessage('APP_OUTDATED');
  } else if (session.mode === 'local') {
    state = 'local';
    label = 'On this device only';
  } else if (!online || status.phase === 'offline') {
    state = 'offline';
    label = 'Offline';
  } else if (status.phase === 'starting') {
    // Online, and the engine has not said how sync stands: no state rather than a guess.
    return <div className="sync-status sync-status--starting" data-state="starting" />;
  } else if (session.mode === 'expired' || status.phase === 'signed-out') {
    state = 'sign-in';
    label = errorMessage('AUTH_EXPIRED');
  } else if (
    status.phase === 'backing-off' ||
    // A retry in progress after a failure is still "retrying" until it succeeds; flicking
    // to "Syncing…" on every attempt would only draw the eye.
    (status.phase === 'syncing' && status.lastError?.transient === true)
  ) {
    state = 'retrying';
    label = 'Sync paused, retrying';
  } else if (status.phase === 'syncing' && !quietSync) {
    state = 'syncing';
    // Back after longer than the server keeps deletions: everything is pulled again (the
    // data on screen stays usable meanwhile).
    label =
      status.lastError?.code === 'CURSOR_EXPIRED'
        ? errorMessage('CURSOR_EXPIRED')
        : status.download
          ? 'Downloading your lists…'
          : 'Syncing…';
  } else {
    state = 'synced';
    label = status.lastSyncedAt ? `Synced ${relativeTime(status.lastSyncedAt, now)}` : 'Synced';
  }
  const download = state === 'syncing' ? status.download : null;
  // The newest delete still in its Undo window, when nothing more pressing is to be said.
  const deleting =
    (state === 'synced' || state === 'syncing' || state === 'local') && !download
      ? held[held.length - 1]
      : undefined;
  if (deleting) label = 'Deleting…';
  // Local-only changes wait for an account, not for a connection: counting them says nothing.
  // Held deletes are not waiting for the network either.
  const waiting = deleting ? Math.max(0, status.pending - held.length) : status.pending;
  const pending = state === 'local' ? '' : pendingText(waiting);
  const detail =
    state === 'offline'
      ? pending
        ? `${pending} — saved on this device`
        : 'Changes are saved on this device'
      : download
        ? downloadText(download)
        : pending;

  // What assistive technology announces: stable wording per state (no timers, no flicker).
  const announced =
    state === 'syncing' || state === 'synced' ? 'Online' : `${label}${detail ? `. ${detail}` : ''}`;

  const content = (
    <>
      <span className="sync-status__icon" aria-hidden="true">
        {ICONS[state]}
      </span>
      <span className="sync-status__label">{label}</span>
      {detail ? <span className="sync-status__detail">{detail}</span> : null}
      {download?.expected ? (
        <progress
          className="sync-status__progress"
          max={download.expected}
          value={Math.min(download.received, download.expected)}
          aria-label="First sync"
        />
      ) : null}
      {/* Drawn from attributes by CSS: visual only, so the text is never said or found twice. */}
      <span
        className="sync-status__short"
        aria-hidden="true"
        data-label={deleting ? 'Deleting' : SHORT_LABELS[state]}
        data-count={pending ? waiting.toLocaleString() : undefined}
      />
    </>
  );

  return (
    <div className={`sync-status sync-status--${state}`} data-state={state}>
      {state === 'sign-in' ? (
        <Link className="sync-status__body" to="/sign-in">
          {content}
        </Link>
      ) : state === 'local' ? (
        <Link className="sync-status__body" to="/sign-up" title="Create an account to sync">
          {content}
        </Link>
      ) : state === 'outdated' ? (
        // Checks for the new version first: a plain reload would start the cached old one.
        <button type="button" className="sync-status__body" onClick={() => void reloadToLatest()}>
          {content}
        </button>
      ) : (
        <Link className="sync-status__body" to="/settings#sync">
          {content}
        </Link>
      )}
      {deleting ? (
        <button
          type="button"
          className="sync-status__undo"
          aria-label="Undo delete"
          onClick={() => void deleting.undo()}
        >
          Undo
        </button>
      ) : null}
      <span className="visually-hidden" role="status" aria-live="polite">
        {announced}
      </span>
    </div>
  );
}
