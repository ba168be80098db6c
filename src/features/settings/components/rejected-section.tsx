// Settings › Rejected changes: the device's log of changes the server refused (product.md §4
// "rejected": reverted, and the reason shown), newest first, each explained in a sentence
// with a way to the list or task when it is still here. Reading one and dismissing it is
// the user's call; nothing expires on its own.
import { useLiveQuery } from 'dexie-react-hooks';
import { Link } from 'react-router';

import { Button } from '@/components/ui/button';
import { rejectionLabel } from '@/components/sync/rejection-toasts';
import { useNow } from '@/hooks/use-now';
import { describeRejection, ROW_NOUNS } from '@/lib/error-messages';
import { useServices } from '@/lib/services';
import { relativeTime } from '@/utils/format';
import type { OutpostSync, Rejection } from '@sync/index';

import { SettingsSection } from './settings-section';

const OPS: Readonly<Record<string, string>> = { patch: 'edit', insert: 'new', delete: 'delete' };

interface RejectionView {
  rejection: Rejection & { id: number };
  sentence: string;
  /** Where the row can still be seen on this device. */
  link: { to: string; label: string } | null;
}

function isLive(row: Record<string, unknown> | undefined): boolean {
  return Boolean(row) && !row?.deleted_at;
}

async function describeAll(sync: OutpostSync): Promise<RejectionView[]> {
  const rejections = await sync.db._rejections.orderBy('id').reverse().toArray();
  return Promise.all(
    rejections.map(async (rejection): Promise<RejectionView> => {
      // A table this app version does not know (a log from a newer one) has no rows here.
      const known = sync.db.registry.some((spec) => spec.name === rejection.table);
      const row = known ? await sync.db.rows(rejection.table).get(rejection.rowId) : undefined;
      const sentence = describeRejection(rejection, rejectionLabel(rejection.data, row));
      return {
        rejection: { ...rejection, id: rejection.id ?? 0 },
        sentence,
        link: await linkFor(sync, rejection, row),
      };
    }),
  );
}

async function linkFor(
  sync: OutpostSync,
  rejection: Rejection,
  row: Record<string, unknown> | undefined,
): Promise<RejectionView['link']> {
  const listId = rejection.listId ?? (typeof row?.list_id === 'string' ? row.list_id : undefined);
  if (!listId || !isLive(await sync.db.rows('lists').get(listId))) return null;
  const taskId =
    rejection.table === 'tasks'
      ? rejection.rowId
      : [rejection.data.task_id, row?.task_id].find((id) => typeof id === 'string');
  if (typeof taskId === 'string' && isLive(await sync.db.rows('tasks').get(taskId))) {
    return { to: `/lists/${listId}/tasks/${taskId}`, label: 'Open task' };
  }
  return { to: `/lists/${listId}`, label: 'Open list' };
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
