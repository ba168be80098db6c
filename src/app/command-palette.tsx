// The command palette (Ctrl/Cmd+K): one field to jump to any list or task by its name and to
// run the main actions. It reads the device database only (`queries.find`), so it works
// offline. Its own chunk, loaded on the first Ctrl+K (from the precache, so offline too); the
// layout keeps it mounted once loaded (opened by the phone's bottom bar too). What matched
// is marked in each result's title. A WAI-ARIA combobox: focus stays in the field, ↑/↓
// move the active option (aria-activedescendant), Enter runs it, Escape closes the palette
// and focus goes back where it was.
import { useLiveQuery } from 'dexie-react-hooks';
import { useDeferredValue, useEffect, useId, useRef, useState, type ReactNode } from 'react';

import { ColorDot } from '@/components/ui/color-dot';
import { accessFor } from '@/hooks/use-list-access';
import { useOnline } from '@/hooks/use-online';
import { useNavigate, usePathPrefix } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession, type SessionMode } from '@/lib/session';

import './command-palette.css';

/** What a result is, as its label says. */
export type CommandKind = 'Action' | 'List' | 'Task';

export interface Command {
  id: string;
  kind: CommandKind;
  title: string;
  /** A second, quieter line: a task's list, where an action acts. */
  detail?: string;
  /** A list's colour (or a task's list's). */
  color?: string;
  /** Words an action is also found by. */
  keywords?: string;
  /** Shown but not runnable, with the reason as its detail. */
  disabled?: boolean;
  run: () => void;
}

/** The actions the palette offers, by what the app can do here. */
export interface ActionContext {
  mode: SessionMode;
  online: boolean;
  /** The list on screen (its own screen, a task or its members), when there is one. */
  currentList: { id: string; name: string; canAddTasks: boolean } | null;
  navigate: (to: string, options?: { state?: unknown }) => void;
  showShortcuts: () => void;
  syncNow: () => void;
}

/**
 * Each action goes the way the app already does it: a new task through the list's `?new=1`
 * (the manifest's "New task" shortcut; off a list, `?new=task` opens the list touched last),
 * a new list through the lists screen's field, signing out through Settings › Account (which
 * warns first about unsynced changes).
 */
export function actionCommands(context: ActionContext): Command[] {
  const { mode, online, currentList, navigate } = context;
  const account = mode === 'signed-in' || mode === 'expired';
  const actions: Command[] = [];
  // Not on a list the user only views: there is nowhere to add it.
  if (currentList?.canAddTasks !== false) {
    actions.push({
      id: 'action:new-task',
      kind: 'Action',
      title: 'New task',
      detail: currentList ? `In ${currentList.name}` : 'In the list you used last',
      keywords: 'add create todo',
      run: () => navigate(currentList ? `/lists/${currentList.id}?new=1` : '/lists?new=task'),
    });
  }
  actions.push(
    {
      id: 'action:new-list',
      kind: 'Action',
      title: 'New list',
      keywords: 'add create project',
      run: () => navigate('/lists?new=list'),
    },
    {
      id: 'action:lists',
      kind: 'Action',
      title: 'Go to lists',
      keywords: 'home all lists',
      run: () => navigate('/lists'),
    },
    {
      id: 'action:today',
      kind: 'Action',
      title: 'Go to Today',
      keywords: 'my work due overdue',
      run: () => navigate('/today'),
    },
    {
      id: 'action:upcoming',
      kind: 'Action',
      title: 'Go to Upcoming',
      keywords: 'my work due week later',
      run: () => navigate('/upcoming'),
    },
    {
      id: 'action:assigned',
      kind: 'Action',
      title: 'Go to Assigned to me',
      keywords: 'my work mine tasks',
      run: () => navigate('/assigned'),
    },
    {
      id: 'action:settings',
      kind: 'Action',
      title: 'Settings',
      keywords: 'preferences profile account storage export',
      run: () => navigate('/settings'),
    },
    {
      id: 'action:shortcuts',
      kind: 'Action',
      title: 'Keyboard shortcuts',
      keywords: 'keys help',
      run: context.showShortcuts,
    },
  );
  if (mode === 'signed-in') {
    actions.push({
      id: 'action:sync',
      kind: 'Action',
      title: 'Sync now',
      keywords: 'refresh upload download',
      ...(online ? {} : { detail: 'Needs a connection', disabled: true }),
      run: context.syncNow,
    });
  }
  if (account) {
    actions.push({
      id: 'action:sign-out',
      kind: 'Action',
      title: 'Sign out',
      keywords: 'log out logout account',
      run: () => navigate('/settings', { state: { signOut: true } }),
    });
  }
  return actions;
}

/**
 * How well `command` matches `text`: 0 its title starts with the text, 1 each word typed
 * starts a word of its title or keywords, 2 each is somewhere inside; null: no match.
 */
export function matchScore(command: Command, text: string): number | null {
  const needle = text.trim().toLocaleLowerCase();
  if (!needle) return 2;
  const title = command.title.toLocaleLowerCase();
  if (title.startsWith(needle)) return 0;
  const haystack = `${title} ${command.keywords ?? ''}`.toLocaleLowerCase();
  const words = haystack.split(/\s+/);
  const typed = needle.split(/\s+/);
  if (typed.every((part) => words.some((word) => word.startsWith(part)))) return 1;
  return typed.every((part) => haystack.includes(part)) ? 2 : null;
}

/** Whether `text[index]` starts a word (after a space or a mark, not inside a word). */
const startsWord = (text: string, index: number) =>
  index === 0 || !/[\p{L}\p{N}]/u.test(text[index - 1] ?? '');

/**
 * Where `text` matched in `title`, as [start, end) ranges in order, for the palette to mark:
 * the whole text at the title's start, else each typed word where it starts a word of the
 * title, or anywhere in it. Words matched only by an action's keywords mark nothing.
 */
export function matchedRanges(title: string, text: string): [number, number][] {
  const needle = text.trim().toLocaleLowerCase();
  const lower = title.toLocaleLowerCase();
  // A letter whose lower case is longer ("İ") would shift every index after it.
  if (!needle || lower.length !== title.length) return [];
  if (lower.startsWith(needle)) return [[0, needle.length]];
  const found: [number, number][] = [];
  for (const part of needle.split(/\s+/)) {
    let at = lower.indexOf(part);
    for (let from = at; from !== -1; from = lower.indexOf(part, from + 1)) {
      if (startsWord(lower, from)) {
        at = from;
        break;
      }
    }
    if (at !== -1) found.push([at, at + part.length]);
  }
  found.sort((a, b) => a[0] - b[0]);
  // Overlapping or touching ranges make one mark.
  const merged: [number, number][] = [];
  for (const [start, end] of found) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** `title` with what matched `text` in <mark>; its text (and accessible name) unchanged. */
function MarkedTitle({ title, text }: { title: string; text: string }) {
  const parts: ReactNode[] = [];
  let from = 0;
  for (const [start, end] of matchedRanges(title, text)) {
    parts.push(title.slice(from, start), <mark key={start}>{title.slice(start, end)}</mark>);
    from = end;
  }
  parts.push(title.slice(from));
  return <span className="palette__title">{parts}</span>;
}

const KIND_ORDER: Record<CommandKind, number> = { Action: 0, List: 1, Task: 2 };

/**
 * The commands matching `text`, best first; with no text, the actions, then the lists. An
 * action is matched by whole words or their starts ("s" is not "New list"); a list or task
 * also by a part of a word, as the device's search found it.
 */
export function rankCommands(commands: readonly Command[], text: string): Command[] {
  const typed = text.trim() !== '';
  return commands
    .map((command, index) => ({ command, index, score: matchScore(command, text) }))
    .filter(
      (entry): entry is typeof entry & { score: number } =>
        entry.score !== null && !(typed && entry.command.kind === 'Action' && entry.score > 1),
    )
    .sort(
      (a, b) =>
        a.score - b.score ||
        KIND_ORDER[a.command.kind] - KIND_ORDER[b.command.kind] ||
        a.index - b.index,
    )
    .map((entry) => entry.command);
}

/** The list whose screens are showing, from the address. */
function useCurrentListId(): string | null {
  return usePathPrefix('/lists/:listId')?.listId ?? null;
}

export function CommandPalette({
  open,
  onClose,
  onShowShortcuts,
}: {
  open: boolean;
  onClose: () => void;
  onShowShortcuts: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !open || dialog.open) return;
    const opener = document.activeElement as HTMLElement | null;
    if (typeof dialog.showModal === 'function') dialog.showModal();
    else dialog.setAttribute('open', '');
    // Not autoFocus: that would run before the opener is known.
    dialog.querySelector<HTMLElement>('[role="combobox"]')?.focus();
    return () => {
      if (typeof dialog.close === 'function') dialog.close();
      else dialog.removeAttribute('open');
      // Back where it was, unless what ran moved focus on purpose (a field it opened).
      if (document.activeElement === document.body || dialog.contains(document.activeElement)) {
        opener?.focus?.();
      }
    };
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="palette"
      aria-label="Command palette"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop (the dialog element itself, outside its content) closes it.
        if (event.target === event.currentTarget) onClose();
      }}
    >
      {open ? <PaletteBody onClose={onClose} onShowShortcuts={onShowShortcuts} /> : null}
    </dialog>
  );
}

function PaletteBody({
  onClose,
  onShowShortcuts,
}: {
  onClose: () => void;
  onShowShortcuts: () => void;
}) {
  const { sync } = useServices();
  const { mode, userId } = useSession();
  const online = useOnline();
  const navigate = useNavigate();
  const listboxId = useId();
  const optionId = (index: number) => `${listboxId}-${index}`;
  const [text, setText] = useState('');
  const deferred = useDeferredValue(text);
  const [active, setActive] = useState(0);
  const currentListId = useCurrentListId();

  const found = useLiveQuery(() => sync.queries.find(userId, deferred), [sync, userId, deferred]);
  const currentList = useLiveQuery(async () => {
    if (!currentListId) return null;
    const [list, role] = await Promise.all([
      sync.queries.list(currentListId, userId),
      sync.queries.role(currentListId, userId),
    ]);
    return list
      ? { id: list.id, name: list.name, canAddTasks: accessFor(role).canEditTasks }
      : null;
  }, [sync, userId, currentListId]);

  const actions = actionCommands({
    mode,
    online,
    currentList: currentList ?? null,
    navigate: (to, options) => void navigate(to, options),
    showShortcuts: onShowShortcuts,
    syncNow: () => sync.engine.requestSync(),
  });
  const lists: Command[] = (found?.lists ?? []).map((list) => ({
    id: `list:${list.id}`,
    kind: 'List',
    title: list.name,
    color: list.color,
    run: () => void navigate(`/lists/${list.id}`),
  }));
  const tasks: Command[] = (found?.tasks ?? []).map(({ task, list }) => ({
    id: `task:${task.id}`,
    kind: 'Task',
    title: task.title,
    detail: list.name,
    color: list.color,
    run: () => void navigate(`/lists/${list.id}/tasks/${task.id}`),
  }));
  // The database matched lists and tasks by the deferred text; rank them all by what is typed.
  const results = rankCommands([...actions, ...lists, ...tasks], text);
  const activeIndex = Math.min(active, Math.max(results.length - 1, 0));
  const activeCommand = results[activeIndex];

  useEffect(() => {
    document.getElementById(optionId(activeIndex))?.scrollIntoView?.({ block: 'nearest' });
  });

  const run = (command: Command | undefined) => {
    if (!command || command.disabled) return;
    onClose();
    command.run();
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    const last = results.length - 1;
    let next: number | null = null;
    if (event.key === 'ArrowDown') next = activeIndex >= last ? 0 : activeIndex + 1;
    else if (event.key === 'ArrowUp') next = activeIndex <= 0 ? last : activeIndex - 1;
    else if (event.key === 'Home' && event.ctrlKey) next = 0;
    else if (event.key === 'End' && event.ctrlKey) next = last;
    else if (event.key === 'Escape') {
      // The dialog's own cancel does this too; the combobox pattern asks it of the field.
      event.preventDefault();
      onClose();
      return;
    } else if (event.key === 'Enter') {
      event.preventDefault();
      run(activeCommand);
      return;
    }
    if (next === null) return;
    event.preventDefault();
    setActive(Math.max(next, 0));
  };

  return (
    <div className="palette__body">
      <input
        className="palette__input"
        type="text"
        role="combobox"
        aria-label="Search lists, tasks and actions"
        aria-expanded="true"
        aria-controls={listboxId}
        aria-autocomplete="list"
        aria-activedescendant={activeCommand ? optionId(activeIndex) : undefined}
        placeholder="Jump to a list or task, or run an action…"
        autoComplete="off"
        spellCheck={false}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      <ul id={listboxId} role="listbox" aria-label="Results" className="palette__results">
        {results.map((command, index) => (
          <li
            key={command.id}
            id={optionId(index)}
            role="option"
            aria-selected={index === activeIndex}
            aria-disabled={command.disabled ? true : undefined}
            className="palette__option"
            // Focus stays in the field: a click picks without taking it.
            onMouseDown={(event) => event.preventDefault()}
            onMouseMove={() => {
              if (index !== activeIndex) setActive(index);
            }}
            onClick={() => run(command)}
          >
            <span className="palette__mark" aria-hidden="true">
              {command.color ? <ColorDot color={command.color} size={10} /> : null}
            </span>
            <span className="palette__text">
              <MarkedTitle title={command.title} text={text} />
              {command.detail ? <span className="palette__detail">{command.detail}</span> : null}
            </span>
            <span className="palette__kind">{command.kind}</span>
          </li>
        ))}
      </ul>
      {/* Always there, so a screen reader hears it when it fills. */}
      <p className="palette__empty" role="status">
        {results.length === 0 && found ? `Nothing matches “${text.trim()}”.` : ''}
      </p>
      <p className="palette__hint" aria-hidden="true">
        <kbd>↑</kbd> <kbd>↓</kbd> to move · <kbd>Enter</kbd> to open · <kbd>Esc</kbd> to close
      </p>
    </div>
  );
}
