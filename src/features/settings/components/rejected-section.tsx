// Settings › Rejected changes: the device's log of changes the server refused (product.md §4
// "rejected": reverted, and the reason shown), newest first, each explained in a sentence
// with a way to the list or task when it is still here. Reading one and dismissing it is
// the user's call; nothing expires on its own.
import { useLiveQuery } from 'dexie-react-hooks';

import { Button } from '@/components/ui/button';
import { rejectionLabel } from '@/components/sync/rejection-toasting';
import { useNow } from '@/hooks/use-now';
import { describeRejection, ROW_NOUNS } from '@/lib/rejection-messages';
import { Link } from '@/lib/router';
import { useServices } from '@/lib/services';
import { relativeTime } from '@/utils/format';
import type { OutpostSync } from '@/data/sync';
import type { Rejection } from '@sync/index';

import { SettingsSection } from './settings-section';

const OPS: Readonly<Record<string, string>> = { patch: 'edit', insert: 'new', delete: 'delete' };

interface RejectionView {
  rejection: Rejection & { id: number };
  sentence: string;
  /** Where the row can still be seen on this device. */
  link: { to: string; label: string } | null;
}

async function describeAll(sync: OutpostSync): Promise<RejectionView[]> {
  return (await sync.queries.rejections()).map(({ rejection, row, listId, taskId }) => ({
    rejection,
    sentence: describeRejection(rejection, rejectionLabel(rejection.data, row)),
    link: !listId
      ? null
      : taskId
        ? { to: `/lists/${listId}/tasks/${taskId}`, label: 'Open task' }
        : { to: `/lists/${listId}`, label: 'Open list' },
  }));
}

export function RejectedSection() {
  const { sync } = useServices();
  const now = useNow();
  const views = useLiveQuery(() => describeAll(sync), [sync]);

  return (
    <SettingsSection id="rejected" title="Rejected changes">
      {views === undefined ? null : views.length === 0 ? (
        <p className="settings-muted">No rejected changes. Everything you changed was accepted.</p>
      ) : (
        <>
          <p>
            The server refused these changes, so they were undone on this device. Read why, then
            dismiss them.
          </p>
          <ul className="settings-rejections" aria-label="Rejected changes">
            {views.map(({ rejection, sentence, link }) => {
              const noun = ROW_NOUNS[rejection.table] ?? 'item';
              return (
                <li key={rejection.id} className="settings-rejection">
                  <p id={`rejection-${rejection.id}`} className="settings-rejection__sentence">
                    {sentence}
                  </p>
                  <p className="settings-rejection__meta">
                    <span className="badge badge--error">{noun}</span>{' '}
                    <span>{OPS[rejection.op] ?? rejection.op}</span> ·{' '}
                    <time dateTime={new Date(rejection.at).toISOString()}>
                      {relativeTime(rejection.at, now)}
                    </time>
                  </p>
                  <div className="settings-actions">
                    {link ? (
                      <Link className="btn btn--ghost btn--sm" to={link.to}>
                        {link.label}
                      </Link>
                    ) : null}
                    <Button
                      size="sm"
                      onClick={() => void sync.dismissRejection(rejection.id)}
                      aria-describedby={`rejection-${rejection.id}`}
                    >
                      Dismiss
                    </Button>
                  </div>
                </li>
              );
            })}
          </ul>
          <div className="settings-actions">
            <Button onClick={() => void sync.clearRejections()}>Clear all</Button>
          </div>
        </>
      )}
    </SettingsSection>
  );
}
