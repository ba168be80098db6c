// The app's navigation once signed in: on a wide window a sidebar of the lists (colour, open
// tasks, a dot while changes wait to sync), "+ New list" and Settings; on a phone the bottom
// bar instead (app.css shows one or the other). Both read the lists overview's one live
// query. The new-list dialog's code loads the first time it is asked for.
import { lazy, Suspense, useState } from 'react';

import { ColorDot } from '@/components/ui/color-dot';
import { useListsOverview } from '@/features/lists/hooks/use-lists-overview';
import { NavLink } from '@/lib/router';

import { BottomBar } from './bottom-bar';
import { useBackgroundUpkeep } from './use-background-upkeep';

const NewListDialog = lazy(async () => ({
  default: (await import('@/features/lists/components/new-list-dialog')).NewListDialog,
}));

export function AppNavigation() {
  const lists = useListsOverview();
  // Here because the navigation is mounted once, and not in the app shell.
  useBackgroundUpkeep();
  /** null until first asked for: the dialog's code is loaded then, and stays. */
  const [creating, setCreating] = useState<boolean | null>(null);
  const create = () => setCreating(true);
  return (
    <>
      <nav className="sidebar" aria-label="Main">
        <h2 className="sidebar__heading">
          <NavLink to="/lists" end>
            Lists
          </NavLink>
        </h2>
        <ul className="sidebar__lists">
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
      <BottomBar lists={lists} onNewList={create} />
      {creating !== null ? (
        <Suspense fallback={null}>
          <NewListDialog open={creating} onClose={() => setCreating(false)} />
        </Suspense>
      ) : null}
    </>
  );
}
