// The bulk bar (issue 40): while tasks of a list are selected, what can be done to all of them
// at once: complete, status, priority, assignee, due date, move to another list, delete. Each
// menu is the task chips' own (property-menus.tsx, the date menu), opened by its single key
// from the bar or from a selected row (use-list-keys.ts clicks `[data-shortcut]` here); each
// action is one write with one Undo toast (use-bulk-actions.ts). The same keys work in the bar
// itself, and Escape ends the selection. Property changes keep the selection, as Linear does;
// completing, deleting and moving end it. So tasks set to Done by the Status menu stay where
// they are in the list, still selected, as a task ticked on its row does (use-done-section.ts);
// those completed by Complete go to the Done section, as the selection ends with it.
import { useLiveQuery } from 'dexie-react-hooks';
import { useMemo, type ReactNode } from 'react';

import { Button } from '@/components/ui/button';
import { ColorDot } from '@/components/ui/color-dot';
import { Menu, Popover, type MenuItem } from '@/components/ui/menu';
import type { Member } from '@/hooks/use-members';
import { useNow } from '@/hooks/use-now';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { todayIso } from '@/utils/format';

import { useBulkActions } from '../hooks/use-bulk-actions';
import { MOVE_KEY } from '../hooks/use-list-keys';
import { STATUS_LABELS, type TaskRow } from '../task-filter';
import './bulk-bar.css';
import { DateMenu } from './date-menu';
import { dueText } from './due-text';
import { PROPERTY_KEYS } from './property-chips';
import { AssigneeMenu, PriorityMenu, priorityText, StatusMenu } from './property-menus';

export interface BulkBarProps {
  listId: string;
  /** The tasks shown. */
  tasks: readonly TaskRow[];
  /** The selected ones among them, in their order. */
  ids: readonly string[];
  /** The list's members, whom tasks may be assigned to. */
  members: readonly Member[];
  /** The selection is over (cleared, or its tasks completed, deleted or moved). */
  onDone: () => void;
  /** These tasks are being set to Done (and stay selected): the screen keeps them in place. */
  onCompleting: (ids: readonly string[]) => void;
}

/** The value every picked task has for `key`, or undefined when they differ. */
function common<K extends keyof TaskRow>(
  tasks: readonly TaskRow[],
  key: K,
): TaskRow[K] | undefined {
  const first = tasks[0]?.[key];
  return tasks.every((task) => task[key] === first) ? first : undefined;
}

export function BulkBar({ listId, tasks, ids, members, onDone, onCompleting }: BulkBarProps) {
  const actions = useBulkActions();
  const now = useNow(60_000);
  const { userId } = useSession();
  const picked = useMemo(() => {
    const chosen = new Set(ids);
    return tasks.filter((task) => chosen.has(task.id));
  }, [tasks, ids]);
  const status = common(picked, 'status');
  const priority = common(picked, 'priority');
  const assignee = common(picked, 'assignee_id');
  const due = common(picked, 'due_on');
  const firstTitle = picked[0]?.title ?? '';
  /** Ends the selection once a write that ends it went through. */
  const thenDone = (written: boolean) => {
    if (written) onDone();
  };
  /** Before the Status menu marks them done: those not done yet stay in place, ticked. */
  const keepCompleting = () =>
    onCompleting(picked.filter((task) => task.status !== 'done').map((task) => task.id));

  return (
    <div
      className="bulk-bar"
      role="region"
      aria-label="Selection"
      data-bulk-bar=""
      onKeyDown={(event) => {
        // In a popup, keys are the popup's (its Escape closes only it: menu.tsx).
        const target = event.target as HTMLElement;
        if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
        if (target.closest('.popover__panel')) return;
        const { key } = event;
        const button =
          key === 'Delete' || key === 'Backspace'
            ? event.currentTarget.querySelector<HTMLElement>('[data-bulk-delete]')
            : event.currentTarget.querySelector<HTMLElement>(`[data-shortcut="${key}"]`);
        if (key === 'Escape') onDone();
        else if (button) button.click();
        else return;
        event.preventDefault();
      }}
    >
      <span className="bulk-bar__count" aria-live="polite">
        {ids.length.toLocaleString()} selected
      </span>
      <div className="bulk-bar__actions">
        <Button
          variant="primary"
          size="sm"
          onClick={() => void actions.complete(ids).then(thenDone)}
        >
          Complete
        </Button>

        <BarMenu name="Status" shortcut={PROPERTY_KEYS.status}>
          {(close) => (
            <StatusMenu
              selected={status}
              onPick={(to) => {
                close();
                if (to === 'done') keepCompleting();
                void actions.update(ids, { status: to }, `set to ${STATUS_LABELS[to]}`);
              }}
            />
          )}
        </BarMenu>

        <BarMenu name="Priority" shortcut={PROPERTY_KEYS.priority}>
          {(close) => (
            <PriorityMenu
              selected={priority}
              onPick={(to) => {
                close();
                void actions.update(ids, { priority: to }, `set to ${priorityText(to)}`);
              }}
            />
          )}
        </BarMenu>

        <BarMenu name="Assignee" shortcut={PROPERTY_KEYS.assignee_id}>
          {(close) => (
            <AssigneeMenu
              selected={assignee}
              members={members}
              meId={userId}
              onPick={(to) => {
                close();
                const name = members.find((member) => member.userId === to)?.name;
                void actions.update(
                  ids,
                  { assignee_id: to },
                  name === undefined ? 'unassigned' : `assigned to ${name}`,
                );
              }}
            />
          )}
        </BarMenu>

        <BarMenu name="Due date" popup="dialog" shortcut={PROPERTY_KEYS.due_on}>
          {(close) => (
            <DateMenu
              value={due ?? null}
              today={todayIso(now)}
              clearable={picked.some((task) => task.due_on !== null)}
              onPick={(date) => {
                close();
                void actions.update(
                  ids,
                  { due_on: date },
                  date === null ? 'with no due date' : `due ${dueText(date, now, true).date}`,
                );
              }}
            />
          )}
        </BarMenu>

        <BarMenu name="Move to" shortcut={MOVE_KEY}>
          {(close) => (
            <MoveMenu
              listId={listId}
              onPick={(list) => {
                close();
                void actions.move(ids, list).then(thenDone);
              }}
            />
          )}
        </BarMenu>

        <Button
          variant="ghost"
          size="sm"
          className="bulk-bar__delete"
          data-bulk-delete=""
          aria-keyshortcuts="Delete"
          title="Delete (Delete)"
          onClick={() => void actions.remove(ids, firstTitle).then(thenDone)}
        >
          Delete
        </Button>
      </div>
      <Button
        variant="ghost"
        size="sm"
        className="bulk-bar__clear"
        title="Clear (Esc)"
        onClick={onDone}
      >
        Clear
      </Button>
    </div>
  );
}

/** One of the bar's menu buttons, named by what it sets (and its popup so too), with a caret. */
function BarMenu({
  name,
  popup = 'menu',
  shortcut,
  children,
}: {
  name: string;
  popup?: 'menu' | 'dialog';
  shortcut: string;
  children: (close: () => void) => ReactNode;
}) {
  return (
    <Popover
      label={name}
      popup={popup}
      popupLabel={name}
      shortcut={shortcut}
      className="bulk-bar__menu"
      trigger={
        <>
          {name}
          <svg
            className="bulk-bar__caret"
            width="10"
            height="10"
            viewBox="0 0 10 10"
            aria-hidden="true"
          >
            <path d="M2 3.5l3 3 3-3" fill="none" stroke="currentColor" strokeWidth="1.5" />
          </svg>
        </>
      }
    >
      {children}
    </Popover>
  );
}

/** The user's other lists they may add tasks to (owner or editor), by name. */
function MoveMenu({
  listId,
  onPick,
}: {
  listId: string;
  onPick: (list: { id: string; name: string }) => void;
}) {
  const { sync } = useServices();
  const { userId } = useSession();
  const lists = useLiveQuery(
    async () =>
      (await sync.queries.lists(userId))
        .filter(({ list, role }) => list.id !== listId && (role === 'owner' || role === 'editor'))
        .map(({ list }) => list)
        .sort((a, b) => a.name.localeCompare(b.name)),
    [sync, userId, listId],
  );
  // The menu takes the focus as it mounts: it waits for its items.
  if (lists === undefined) return null;
  const items: MenuItem[] =
    lists.length === 0
      ? [{ value: '', label: 'No other list you can add to', disabled: true }]
      : lists.map((list) => ({
          value: list.id,
          label: list.name,
          icon: <ColorDot color={list.color} size={10} />,
        }));
  return (
    <Menu
      label="Move to"
      items={items}
      onSelect={(value) => {
        const list = lists.find((each) => each.id === value);
        if (list) onPick(list);
      }}
    />
  );
}
