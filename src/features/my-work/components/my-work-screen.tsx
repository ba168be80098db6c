// /today, /upcoming, /assigned — My work (issue 39): open tasks across every list on the
// device, read live from it, so they work offline and others' edits show at once. Rows behave
// as in a list (tick, open, change properties, j/k, Enter, x); a heading per group; tabs
// between the three views on phones (the sidebar has them on wide windows).
import { useCallback, useEffect, useMemo, useRef, useState, type ComponentType } from 'react';

import { EmptyState } from '@/components/ui/empty-state';
import { ColorDot } from '@/components/ui/color-dot';
import { MY_WORK_LIMIT, type MyWorkRow } from '@/data/my-work-queries';
import type { TaskStatus } from '@/data/schema';
import { attempt } from '@/data/writes';
import { accessFor } from '@/hooks/use-list-access';
import { useNow } from '@/hooks/use-now';
import { NavLink } from '@/lib/router';
import { useServices } from '@/lib/services';
import { showToast } from '@/lib/toasts';
import { todayIso } from '@/utils/format';

import '../my-work.css';
import { useMyWork } from '../hooks/use-my-work';
import { useMyWorkKeys } from '../hooks/use-my-work-keys';
import { groupRows, MY_WORK_VIEWS, VIEW_INFO, type MyWorkView } from '../my-work-views';
import { MyWorkRowItem, type MyWorkPropertiesProps } from './my-work-row';

/**
 * Rows drawn in a view's first frame: about a tall screenful (a list draws about as many,
 * virtualised). The rest come in the frame after, so the view shows as fast as a list does
 * whatever it holds.
 */
export const FIRST_FRAME_ROWS = 20;

/** The first `count` rows of `groups`, in their groups (groups left empty are left out). */
function firstRows<G extends { rows: readonly MyWorkRow[] }>(groups: readonly G[], count: number) {
  let left = count;
  const shown: G[] = [];
  for (const group of groups) {
    if (left <= 0) break;
    shown.push(group.rows.length <= left ? group : { ...group, rows: group.rows.slice(0, left) });
    left -= group.rows.length;
  }
  return shown;
}

/** What each view says when it has nothing. */
const EMPTY: Readonly<Record<MyWorkView, { title: string; body: string }>> = {
  today: {
    title: 'Nothing due today',
    body: 'Open tasks due today or overdue, in any of your lists, show here.',
  },
  upcoming: {
    title: 'Nothing due in the next 4 weeks',
    body: 'Open tasks due from tomorrow on show here, by day.',
  },
  assigned: {
    title: 'Nothing assigned to you',
    body: 'Open tasks assigned to you, in any of your lists, show here.',
  },
};

export function MyWorkScreen({
  view,
  Properties,
}: {
  view: MyWorkView;
  /** A row's property chips (the tasks feature's, composed in by the route). */
  Properties: ComponentType<MyWorkPropertiesProps>;
}) {
  const { sync } = useServices();
  const now = useNow(60_000);
  const today = todayIso(now);
  const result = useMyWork(view, today);
  const rows = useMemo(() => result?.rows ?? [], [result]);
  const allGroups = useMemo(() => groupRows(view, rows, today), [view, rows, today]);
  /** Whether the frame after the first has come: every row is drawn from then on. */
  const [settled, setSettled] = useState(false);
  useEffect(() => {
    if (settled || result === undefined) return;
    const frame = requestAnimationFrame(() => setSettled(true));
    return () => cancelAnimationFrame(frame);
  }, [settled, result]);
  const groups = useMemo(
    () => (settled ? allGroups : firstRows(allGroups, FIRST_FRAME_ROWS)),
    [settled, allGroups],
  );
  /** Each group's open tasks, all of them (the first frame draws only some). */
  const openIn = useMemo(
    () =>
      new Map(
        allGroups.map((group) => [
          group.key,
          group.rows.filter((row) => row.task.status !== 'done').length,
        ]),
      ),
    [allGroups],
  );
  const container = useRef<HTMLDivElement>(null);

  const setStatus = useCallback(
    async (row: MyWorkRow, status: TaskStatus): Promise<boolean> => {
      const written = await attempt(() => sync.repos.tasks.setStatus(row.task.id, status));
      if (!written.ok) {
        showToast({
          message: written.errors.status ?? written.errors._ ?? "Couldn't change the status.",
          tone: 'error',
        });
      }
      return written.ok;
    },
    [sync],
  );
  const keys = useMyWorkKeys({
    rows,
    container,
    tick: (row) => {
      if (!accessFor(row.role).canEditTasks) return;
      void setStatus(row, row.task.status === 'done' ? 'todo' : 'done');
    },
  });
  const { title } = VIEW_INFO[view];
  const empty = EMPTY[view];

  return (
    <section className="screen my-work">
      <nav className="my-work__tabs" aria-label="My work">
        {MY_WORK_VIEWS.map((each) => (
          <NavLink key={each} to={VIEW_INFO[each].path} className="my-work__tab">
            {VIEW_INFO[each].title}
          </NavLink>
        ))}
      </nav>
      <h1>{title}</h1>
      {result === undefined ? null : rows.length === 0 ? (
        <EmptyState title={empty.title}>
          <p>{empty.body}</p>
        </EmptyState>
      ) : (
        // The rows' keys (j/k, Enter, x) are handled once here, for every group.
        <div ref={container} className="my-work__groups" onKeyDown={keys.onKeyDown}>
          {groups.map((group) => {
            const headingId = `my-work-${view}-${group.key}`;
            return (
              <section key={group.key} className="my-work__group" aria-labelledby={headingId}>
                <h2 id={headingId} className="my-work__heading">
                  {group.list ? <ColorDot color={group.list.color} size={12} /> : null}
                  {group.heading}
                  <span className="my-work__heading-count">
                    <span className="visually-hidden">, </span>
                    {openIn.get(group.key)}
                    <span className="visually-hidden"> tasks</span>
                  </span>
                </h2>
                <ul role="list" className="my-work__rows">
                  {group.rows.map((row) => (
                    <MyWorkRowItem
                      key={row.task.id}
                      row={row}
                      canEdit={accessFor(row.role).canEditTasks}
                      tabbable={row.task.id === keys.tabbableId}
                      now={now}
                      Properties={Properties}
                      onStatus={setStatus}
                      onFocused={keys.onFocused}
                    />
                  ))}
                </ul>
              </section>
            );
          })}
          {result.capped ? (
            <p className="my-work__capped">
              Showing the first {MY_WORK_LIMIT.toLocaleString()} tasks.
            </p>
          ) : null}
        </div>
      )}
    </section>
  );
}
