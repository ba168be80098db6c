// /lists/:listId — the tasks screen, with the avatars of others viewing the list; and
// /lists/:listId/tasks/:taskId (issue 40): on a wide window the same screen with the task in a
// panel beside it, which follows the row focused in the list (j/k) and closes back to it; on
// a narrow one the task's own page. Both paths render this one component (routes.tsx), so
// opening, following and closing a task never remounts the list: its scroll, focus and
// selection stay as they were.
import { Suspense, useCallback, useLayoutEffect, useRef, useState } from 'react';

import { useNavigate, useParams } from '@/lib/router';
import { PresenceAvatars } from '@/features/members/components/presence-avatars';
import { TasksScreen } from '@/features/tasks/components/tasks-screen';

import { lazyScreen } from '../lazy-screen';
import { RouteErrorBoundary } from '../route-error';
import './list-route.css';
import { TASK_BESIDE_LIST_QUERY, useMediaQuery } from './use-media-query';

/** The task's screen: its own chunk (as SCREEN_CODE.task), loaded when a task opens. */
const TaskScreen = lazyScreen(async () => (await import('./task-route')).TaskRoute);
// Opened at a task's address, its code is asked for along with the list's, not after it.
if (/\/tasks\/[^/]+\/?$/.test(window.location.pathname)) {
  void TaskScreen.preload().catch(() => undefined); // a failure shows when it renders
}

/** A task's row in the list, if it is rendered (the list is virtualised). */
function rowOf(list: HTMLElement | null, id: string | null): HTMLElement | null {
  if (!list || !id) return null;
  return (
    Array.from(list.querySelectorAll<HTMLElement>('[data-task-id]')).find(
      (row) => row.dataset.taskId === id,
    ) ?? null
  );
}

/** The id of the row after (else before) a task's, to take its place if it goes. */
function neighbourOf(list: HTMLElement | null, id: string): string | null {
  const rows = Array.from(list?.querySelectorAll<HTMLElement>('[data-task-id]') ?? []);
  const index = rows.findIndex((row) => row.dataset.taskId === id);
  if (index < 0) return null;
  return (rows[index + 1] ?? rows[index - 1])?.dataset.taskId ?? null;
}

export function ListRoute() {
  const { listId = '', taskId } = useParams();
  const wide = useMediaQuery(TASK_BESIDE_LIST_QUERY);
  const navigate = useNavigate();
  // The task in the panel (none on narrow windows, where it has the page).
  const openId = wide ? taskId : undefined;
  const split = useRef<HTMLDivElement>(null);
  const [focusRequest, setFocusRequest] = useState(0);
  // The open task as last committed, the row that takes its place if it is deleted, and
  // the task the panel has just deleted (its row may still be on screen for a moment).
  const shown = useRef<string | undefined>(undefined);
  const neighbour = useRef<string | null>(null);
  const deleted = useRef<string | null>(null);

  useLayoutEffect(() => {
    const before = shown.current;
    shown.current = openId;
    if (openId) {
      neighbour.current = neighbourOf(split.current, openId);
      // Opened (from the list, a link, the palette): focus goes to its heading, as a page's
      // does. Following the list's focus (j/k) leaves it in the list.
      if (!before) setFocusRequest((count) => count + 1);
    } else if (before) {
      // Closed: back to its row, or to the one in its place once it is deleted. Not found
      // (scrolled out of the DOM), the layout puts focus on the list's heading.
      const gone = deleted.current === before;
      deleted.current = null;
      const row = gone ? null : rowOf(split.current, before);
      (row ?? rowOf(split.current, neighbour.current))?.focus();
    }
  }, [openId]);

  const onRowFocus = useCallback(
    (id: string) => {
      // Only while a task is open here: focusing its row on close must not reopen it.
      if (shown.current === undefined || id === shown.current) return;
      void navigate(`/lists/${listId}/tasks/${id}`, { replace: true });
    },
    [navigate, listId],
  );
  const onClose = useCallback(() => void navigate(`/lists/${listId}`), [navigate, listId]);
  const onDeleted = useCallback(() => {
    deleted.current = shown.current ?? null;
    void navigate(`/lists/${listId}`);
  }, [navigate, listId]);

  // Its own boundaries: a task's page that crashes is reset by opening another, a panel by
  // closing it; and the list stays on screen while the task's code arrives.
  const task = taskId ? (
    <RouteErrorBoundary key={openId ? 'panel' : taskId}>
      <Suspense fallback={null}>
        <TaskScreen panel={openId ? { onClose, onDeleted, focusRequest } : undefined} />
      </Suspense>
    </RouteErrorBoundary>
  ) : null;
  if (taskId && !openId) return task;
  return (
    <div
      ref={split}
      className={openId ? 'list-split list-split--open' : 'list-split'}
      onKeyDown={(event) => {
        // Enter (o, →) on the open task's own row: into the panel, as opening it does (the
        // list does not open it again: use-list-keys.ts).
        const row = event.target instanceof HTMLElement ? event.target : null;
        if (!openId || row?.dataset.taskId !== openId) return;
        if (['Enter', 'o', 'ArrowRight'].includes(event.key)) setFocusRequest((count) => count + 1);
      }}
    >
      <TasksScreen
        presence={<PresenceAvatars listId={listId} />}
        openTaskId={openId}
        onRowFocus={openId ? onRowFocus : undefined}
      />
      {task}
    </div>
  );
}
