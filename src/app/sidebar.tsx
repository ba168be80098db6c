// The app's navigation once signed in: on a wide window a sidebar of My work's views (Today
// and Assigned to me with their counts, Upcoming), the lists (colour, open tasks, a dot while
// changes wait to sync), "+ New list" and Settings; on a phone the bottom bar instead
// (app.css shows one or the other). Both read the lists overview's one live query. The
// new-list dialog's code loads the first time it is asked for. The header's sync status comes
// with it (layout.tsx): it too shows only once the device is someone's, and the app shell has
// no room for it.
import { lazy, Suspense, useState } from 'react';

import { ColorDot } from '@/components/ui/color-dot';
import { MY_WORK_LIMIT, type MyWorkRows } from '@/data/my-work-queries';
import { useListsOverview } from '@/features/lists/hooks/use-lists-overview';
import { useMyWorkView } from '@/hooks/use-my-work-view';
import { useNow } from '@/hooks/use-now';
import { NavLink } from '@/lib/router';
import { todayIso } from '@/utils/format';

import { BottomBar } from './bottom-bar';
import { useBackgroundUpkeep } from './use-background-upkeep';

export { SyncStatus } from '@/components/sync/sync-status';

const NewListDialog = lazy(async () => ({
  default: (await import('@/features/lists/components/new-list-dialog')).NewListDialog,
}));

/**
 * Today's and Assigned to me's counts for the day the clock says, from the views' own shared
 * queries (so either view opens from memory); undefined: loading.
 */
function useMyWorkCounts() {
  const today = todayIso(useNow(60_000));
  return { today: useMyWorkView('today', today), assigned: useMyWorkView('assigned', today) };
}

/** A view's count as a badge says it: blank until known, "500+" past the views' cap. */
const countText = (view: MyWorkRows | undefined) =>
  view === undefined ? '' : view.capped ? `${MY_WORK_LIMIT}+` : String(view.rows.length);

/** `onSearch`: opens the command palette (the bottom bar's Search). */
export function AppNavigation({ onSearch }: { onSearch: () => void }) {
  const lists = useListsOverview();
  const counts = useMyWorkCounts();
  const views = [
    ['/today', 'Today', countText(counts.today), 'due'],
    ['/upcoming', 'Upcoming', '', ''],
    ['/assigned', 'Assigned to me', countText(counts.assigned), 'open'],
  ] as const;
  // Here because the navigation is mounted once, and not in the app shell.
  useBackgroundUpkeep();
  /** null until first asked for: the dialog's code is loaded then, and stays. */
  const [creating, setCreating] = useState<boolean | null>(null);
  const create = () => setCreating(true);
  return (
    <>
      <nav className="sidebar" aria-label="Main">
        <ul className="sidebar__lists" aria-label="My work">
          {views.map(([path, name, count, what]) => (
            <li key={path}>
              <NavLink
                to={path}
                className="sidebar__item"
                aria-label={count ? `${name}, ${count} ${what}` : name}
              >
                <span className="sidebar__name">{name}</span>
                <span className="sidebar__count">{count}</span>
              </NavLink>
            </li>
          ))}
        </ul>
        <h2 className="sidebar__heading">
          <NavLink to="/lists" end>
            Lists
          </NavLink>
        </h2>
        <ul className="sidebar__lists" aria-label="Lists">
          {lists?.map((list) => (
            <li key={list.id}>
              <NavLink
                to={`/lists/${list.id}`}
                className="sidebar__item"
                aria-label={`${list.name}, ${list.open} open${list.pending > 0 ? `, ${list.pending} waiting to sync` : ''}`}
              >
                <ColorDot color={list.color} size={10} />
                <span className="sidebar__name">{list.name}</span>
                <span className="sidebar__count">{list.open}</span>
                {list.pending > 0 ? (
                  <span className="sidebar__pending" title={`${list.pending} waiting to sync`} />
                ) : null}
              </NavLink>
            </li>
          ))}
        </ul>
        <button type="button" className="sidebar__item" onClick={create}>
          <span aria-hidden="true">+</span> New list
        </button>
        <NavLink to="/settings" className="sidebar__item">
          Settings
        </NavLink>
      </nav>
      <BottomBar lists={lists} onNewList={create} onSearch={onSearch} />
      {creating !== null ? (
        <Suspense fallback={null}>
          <NewListDialog open={creating} onClose={() => setCreating(false)} />
        </Suspense>
      ) : null}
    </>
  );
}
