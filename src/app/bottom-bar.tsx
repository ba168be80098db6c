// A phone's navigation, at the foot of the screen (app.css shows it on narrow windows in
// place of the sidebar): Lists, My work (Today; its screen has tabs to the other views),
// Search (the command palette, which a phone has no Ctrl+K for), New (a task in the open
// list when the user may add one, else a list), Settings. Five icons with short labels, so
// they fit side by side down to 320 px.
import type { ReactNode } from 'react';

import { Link, NavLink, useLocation, usePathPrefix } from '@/lib/router';

import type { ListOverview } from '@/features/lists/hooks/use-lists-overview';

/** A 24 px line icon from its path data, hidden from screen readers (the label names it). */
function Icon({ children }: { children: ReactNode }) {
  return (
    <svg
      className="bottom-bar__icon"
      viewBox="0 0 24 24"
      width={22}
      height={22}
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}

const LISTS_ICON = <path d="M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01" />;
const MY_WORK_ICON = (
  <>
    <circle cx="12" cy="12" r="9" />
    <path d="m8 12 3 3 5-6" />
  </>
);
const SEARCH_ICON = (
  <>
    <circle cx="11" cy="11" r="7" />
    <path d="m20 20-4-4" />
  </>
);
const NEW_ICON = <path d="M12 5v14M5 12h14" />;
const SETTINGS_ICON = (
  <>
    <circle cx="12" cy="12" r="3" />
    <path d="M12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9l2.1 2.1M17 17l2.1 2.1M4.9 19.1 7 17M17 7l2.1-2.1" />
  </>
);

export function BottomBar({
  lists,
  onNewList,
  onSearch,
}: {
  lists: ListOverview[] | undefined;
  onNewList: () => void;
  /** Opens the command palette. */
  onSearch: () => void;
}) {
  const listId = usePathPrefix('/lists/:listId')?.listId;
  const inMyWork = /^\/(today|upcoming|assigned)\/?$/.test(useLocation().pathname);
  const list = lists?.find((each) => each.id === listId);
  return (
    <nav className="bottom-bar" aria-label="Main">
      <NavLink to="/lists" end>
        <Icon>{LISTS_ICON}</Icon>
        Lists
      </NavLink>
      <Link to="/today" aria-current={inMyWork ? 'page' : undefined}>
        <Icon>{MY_WORK_ICON}</Icon>
        My work
      </Link>
      <button type="button" aria-haspopup="dialog" onClick={onSearch}>
        <Icon>{SEARCH_ICON}</Icon>
        Search
      </button>
      {list?.myRole === 'owner' || list?.myRole === 'editor' ? (
        // The list screen focuses its quick add on ?new=1.
        <Link to={`/lists/${list.id}?new=1`}>
          <Icon>{NEW_ICON}</Icon>
          <span>
            New <span className="visually-hidden">task</span>
          </span>
        </Link>
      ) : (
        <button type="button" onClick={onNewList}>
          <Icon>{NEW_ICON}</Icon>
          <span>
            New <span className="visually-hidden">list</span>
          </span>
        </button>
      )}
      <NavLink to="/settings">
        <Icon>{SETTINGS_ICON}</Icon>
        Settings
      </NavLink>
    </nav>
  );
}
