// A phone's navigation, at the foot of the screen (app.css shows it on narrow windows in
// place of the sidebar): Lists, My work (Today; its screen has tabs to the other views),
// New (a task in the open list when the user may add one, else a list), Settings.
import { Link, NavLink, useLocation, usePathPrefix } from '@/lib/router';

import type { ListOverview } from '@/features/lists/hooks/use-lists-overview';

export function BottomBar({
  lists,
  onNewList,
}: {
  lists: ListOverview[] | undefined;
  onNewList: () => void;
}) {
  const listId = usePathPrefix('/lists/:listId')?.listId;
  const inMyWork = /^\/(today|upcoming|assigned)\/?$/.test(useLocation().pathname);
  const list = lists?.find((each) => each.id === listId);
  return (
    <nav className="bottom-bar" aria-label="Main">
      <NavLink to="/lists" end>
        Lists
      </NavLink>
      <Link to="/today" aria-current={inMyWork ? 'page' : undefined}>
        My work
      </Link>
      {list?.myRole === 'owner' || list?.myRole === 'editor' ? (
        // The list screen focuses its quick add on ?new=1.
        <Link to={`/lists/${list.id}?new=1`}>
          <span aria-hidden="true">+</span> New task
        </Link>
      ) : (
        <button type="button" onClick={onNewList}>
          <span aria-hidden="true">+</span> New list
        </button>
      )}
      <NavLink to="/settings">Settings</NavLink>
    </nav>
  );
}
