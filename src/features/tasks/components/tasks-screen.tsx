// /lists/:listId — a list's tasks: a one-line header (name, counts, presence, Export and
// Members), one compact bar (quick add, status filter and search, both in the URL, Select),
// bulk actions, and the virtualised, sortable list, its done tasks in a "Done" section after
// it under "All" (hooks/use-done-section.ts). Everything reads the device database; the first
// tasks are read alone (one bounded read, whatever the list's size), then the whole list,
// filtered in memory, so typing in search never waits; counts come from indexes.
// Select boxes show on hover (or always while selecting); phones reach them through the
// bar's "Select" (or a long-press on a row).
import {
  useCallback,
  useDeferredValue,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';

import { Button } from '@/components/ui/button';
import { ColorDot } from '@/components/ui/color-dot';
import { EmptyState } from '@/components/ui/empty-state';
import { TextField } from '@/components/ui/field';
import { useFirstSyncDone } from '@/hooks/use-first-sync';
import { useList } from '@/hooks/use-list';
import { useListAccess } from '@/hooks/use-list-access';
import { useMembers, type Member } from '@/hooks/use-members';
import { usePendingRows } from '@/hooks/use-pending-rows';
import { useProfiles } from '@/hooks/use-profiles';
import { useShortcut } from '@/hooks/use-shortcut';
import { useTaskCounts } from '@/hooks/use-task-counts';
import { dropSearchParam, Link, useParams, useSearchParams } from '@/lib/router';
import { useSession } from '@/lib/session';

import '../tasks.css';
import { useListTasks } from '../hooks/use-list-tasks';
import {
  buildSearchIndex,
  FILTER_LABELS,
  filterTasks,
  parseStatusFilter,
  STATUS_FILTERS,
  type StatusFilter,
} from '../task-filter';
import { useDoneSection } from '../hooks/use-done-section';
import { BulkBar } from './bulk-bar';
import { ChevronIcon } from './icons';
import { ListHeaderActions } from './list-header-actions';
import type { Assignee } from './property-chips';
import { QuickAdd } from './quick-add';
import { TaskList } from './task-list';

/** How long a task just added stays highlighted (ms). */
const NEW_TASK_HIGHLIGHT_MS = 2_000;

/** The members while they load: one array, so the memoised rows stay put. */
const NO_MEMBERS: readonly Member[] = [];

/** What a screen beside the list (the task panel) asks of it. */
export interface ListPanelProps {
  /** The task open beside the list: its row is marked current. */
  openTaskId?: string | undefined;
  /** The keys moved the focus to a task's row: the panel follows it. */
  onRowFocus?: ((taskId: string) => void) | undefined;
}

export function TasksScreen({
  presence,
  openTaskId,
  onRowFocus,
}: { presence?: ReactNode } & ListPanelProps) {
  const { listId = '' } = useParams();
  const list = useList(listId);
  // Known before anything shows, so editors never see a flash of the read-only list.
  const role = useListAccess(listId).role;
  const firstSyncDone = useFirstSyncDone();
  // The list's first tasks and counts are read now, with the list and the role, not after
  // them: the list below gets them from the same shared queries at its first render.
  useListTasks(listId);
  useTaskCounts(listId);

  if (list === undefined || role === undefined) return null;
  // Not here yet on a device whose first sync is still running: it may be on its way.
  if (list === null && !firstSyncDone) return <LoadingList />;
  if (list === null) {
    return (
      <section className="screen screen--narrow tasks-screen">
        <h1>This list isn&apos;t on this device</h1>
        <p>It was deleted, or you no longer have access to it.</p>
        <Link to="/lists" className="btn btn--primary">
          Back to your lists
        </Link>
      </section>
    );
  }
  return (
    <ListTasks
      key={listId}
      listId={listId}
      name={list.name}
      color={list.color}
      presence={presence}
      openTaskId={openTaskId}
      onRowFocus={onRowFocus}
    />
  );
}

/** While the first sync may still bring the list: a heading, so the screen is not blank. */
function LoadingList() {
  return (
    <section className="screen screen--narrow tasks-screen" aria-busy="true">
      <h1>Loading…</h1>
      <p>This device is getting your lists for the first time.</p>
    </section>
  );
}

function ListTasks({
  listId,
  name,
  color,
  presence,
  openTaskId,
  onRowFocus,
}: {
  listId: string;
  name: string;
  color: string;
  presence: ReactNode;
} & ListPanelProps) {
  const { mode, userId } = useSession();
  const [params, setParams] = useSearchParams();
  const access = useListAccess(listId);
  const members = useMembers(listId);
  const profiles = useProfiles();
  const pending = usePendingRows(listId);
  const { tasks, complete } = useListTasks(listId);
  const counts = useTaskCounts(listId);
  const quickAddRef = useRef<HTMLInputElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const doneId = useId();

  const status = parseStatusFilter(params.get('status'));
  // The field is the source of truth while typing; the URL follows it (replace, no history).
  const [query, setQuery] = useState(() => params.get('q') ?? '');
  const deferredQuery = useDeferredValue(query);
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());
  const [selectMode, setSelectMode] = useState(false);
  const [justAdded, setJustAdded] = useState<string | null>(null);

  useEffect(() => {
    if (!justAdded) return;
    const timer = setTimeout(() => setJustAdded(null), NEW_TASK_HIGHLIGHT_MS);
    return () => clearTimeout(timer);
  }, [justAdded]);

  useShortcut('n', () => quickAddRef.current?.focus(), access.canEditTasks);
  useShortcut('/', () => searchRef.current?.focus());

  // ?new=1 (the "New task" app shortcut, the lists screen) focuses quick add once it shows.
  const wantsNew = params.get('new') === '1';
  useEffect(() => {
    if (!wantsNew || !access.canEditTasks) return;
    quickAddRef.current?.focus();
    dropSearchParam(setParams, 'new');
  }, [wantsNew, access.canEditTasks, setParams]);

  const setParam = useCallback(
    (key: string, value: string | null) => {
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          if (value) next.set(key, value);
          else next.delete(key);
          return next;
        },
        { replace: true },
      );
    },
    [setParams],
  );

  const all = useMemo(() => tasks ?? [], [tasks]);
  const index = useMemo(() => buildSearchIndex(all), [all]);
  const shown = useMemo(
    () => filterTasks(all, index, status, deferredQuery),
    [all, index, status, deferredQuery],
  );
  const sections = useDoneSection(listId, shown, status, deferredQuery.trim() !== '');

  const assignees = useMemo(() => {
    const map = new Map<string, Assignee>();
    for (const profile of profiles.values()) {
      map.set(profile.id, {
        id: profile.id,
        name: profile.display_name || 'Someone',
        avatarPath: profile.avatar_path,
        // Unknown until the members have loaded: not called a former member meanwhile.
        member: members === undefined,
      });
    }
    for (const member of members ?? []) {
      map.set(member.userId, {
        id: member.userId,
        name: member.name,
        avatarPath: member.avatarPath,
        member: true,
      });
    }
    return map;
  }, [members, profiles]);

  // Selection only ever counts what is shown: a task that a filter, a search, a collapsed
  // Done section or a change elsewhere hides leaves it (and stays out when shown again), as
  // in Gmail or Linear, so Complete never acts on tasks the user can't see. Adjusted while
  // rendering, so no frame shows a count that includes hidden tasks.
  const shownSelected = useMemo(
    () => sections.visible.filter((task) => selected.has(task.id)).map((task) => task.id),
    [sections.visible, selected],
  );
  if (shownSelected.length !== selected.size) setSelected(new Set(shownSelected));

  const toggleSelected = useCallback((id: string) => {
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);

  const selectMany = useCallback((ids: readonly string[]) => {
    setSelected((prev) => new Set([...prev, ...ids]));
  }, []);

  const memberCount = members?.length;
  const filtering = status !== 'all' || deferredQuery.trim() !== '';
  const stale = query !== deferredQuery;
  const selecting = access.canEditTasks && (selectMode || shownSelected.length > 0);
  // Filters and search have nothing to work on in a list with no tasks at all.
  const hasTasks = tasks === undefined || !complete || all.length > 0;

  function clearSelection() {
    setSelected(new Set());
    setSelectMode(false);
  }

  // What both lists (the open tasks and the done ones) share.
  const listProps = {
    listId,
    canEdit: access.canEditTasks,
    selected,
    onToggleSelected: toggleSelected,
    onSelectMany: selectMany,
    onClearSelection: clearSelection,
    pending,
    assignees,
    members: members ?? NO_MEMBERS,
    meId: userId,
    selecting,
    openTaskId,
    onRowFocus,
    onCompleting: sections.keep,
  };

  return (
    // data-list-id: the list this screen shows, for the browser bench (tests/bench), which
    // checks every painted count against it (the URL changes a frame before the screen).
    <section className="screen tasks-screen" data-list-id={listId}>
      <header className="tasks-screen__header">
        <h1 className="tasks-screen__title" ref={headingRef} tabIndex={-1}>
          <ColorDot color={color} size={12} />
          <span className="tasks-screen__name" title={name}>
            {name}
          </span>
        </h1>
        {/* Blank (its height kept) until the device has answered: never a made-up 0. */}
        <p className="tasks-screen__counts" aria-busy={counts === undefined}>
          {counts === undefined ? (
            '\u00a0'
          ) : (
            <>
              {counts.open.toLocaleString()} open · {counts.done.toLocaleString()} done
            </>
          )}
          {access.role === 'viewer' ? <span className="badge">View only</span> : null}
        </p>
        <div className="tasks-screen__header-side">
          {presence}
          {/* Export is made on the server (export-list), and without an account a list has
              no one else to see or invite. */}
          {mode === 'local' ? null : (
            <ListHeaderActions
              listId={listId}
              listName={name}
              hasPending={pending.size > 0}
              memberCount={memberCount}
            />
          )}
        </div>
      </header>

      {access.canEditTasks || hasTasks ? (
        <div className="tasks-bar">
          {access.canEditTasks ? (
            <QuickAdd listId={listId} inputRef={quickAddRef} onAdded={setJustAdded} />
          ) : null}
          {hasTasks ? (
            <div className="tasks-toolbar">
              <div className="tasks-toolbar__filters" role="group" aria-label="Show tasks">
                {STATUS_FILTERS.map((filter: StatusFilter) => (
                  <button
                    key={filter}
                    type="button"
                    className="tasks-toolbar__filter"
                    aria-pressed={status === filter}
                    onClick={() => setParam('status', filter === 'all' ? null : filter)}
                  >
                    {FILTER_LABELS[filter]}
                  </button>
                ))}
              </div>
              {access.canEditTasks ? (
                <button
                  type="button"
                  className="tasks-toolbar__select-toggle"
                  aria-pressed={selecting}
                  onClick={() => (selecting ? clearSelection() : setSelectMode(true))}
                >
                  Select
                </button>
              ) : null}
              <div className="tasks-toolbar__search">
                <TextField
                  ref={searchRef}
                  type="search"
                  label="Search tasks"
                  hideLabel
                  placeholder="Search tasks"
                  autoComplete="off"
                  value={query}
                  onChange={(event) => {
                    const value = event.currentTarget.value;
                    setQuery(value);
                    setParam('q', value.trim() ? value : null);
                  }}
                />
                {query ? null : (
                  <kbd className="tasks-toolbar__search-key keyboard-only" aria-hidden="true">
                    /
                  </kbd>
                )}
              </div>
            </div>
          ) : null}
        </div>
      ) : null}

      {shownSelected.length > 0 && access.canEditTasks ? (
        <BulkBar
          listId={listId}
          tasks={sections.visible}
          ids={shownSelected}
          members={members ?? NO_MEMBERS}
          onCompleting={sections.keep}
          onDone={() => {
            clearSelection();
            // The bar (and its focused button) goes away: keep focus on the screen.
            headingRef.current?.focus();
          }}
        />
      ) : null}

      <div
        className={
          stale ? 'tasks-screen__results tasks-screen__results--stale' : 'tasks-screen__results'
        }
      >
        {/* Until the whole list is read, a filter or an empty first window would say "no
            tasks" that may not be so: nothing is shown rather than a guess. */}
        {tasks === undefined ||
        (!complete && (filtering || all.length === 0)) ? null : all.length === 0 ? (
          <EmptyState title="No tasks yet">
            <p>
              {access.canEditTasks ? (
                <>
                  Add the first one above<span className="keyboard-only"> (press n)</span>. It is
                  saved on this device at once.
                </>
              ) : (
                'Tasks added by the list’s editors will show here.'
              )}
            </p>
          </EmptyState>
        ) : shown.length === 0 ? (
          <EmptyState title="No tasks match">
            <p>
              {filtering && deferredQuery.trim()
                ? `Nothing ${status === 'all' ? '' : `in “${FILTER_LABELS[status]}” `}matches “${deferredQuery.trim()}”.`
                : `No tasks are “${FILTER_LABELS[status]}”.`}
            </p>
            <Button
              variant="secondary"
              size="sm"
              onClick={() => {
                setQuery('');
                setParams(new URLSearchParams(), { replace: true });
              }}
            >
              Show all tasks
            </Button>
          </EmptyState>
        ) : (
          <>
            {sections.open.length > 0 ? (
              <TaskList
                {...listProps}
                tasks={sections.open}
                highlightId={justAdded}
                // The first tasks alone: the open ones count the list's rows to come.
                total={complete || !counts ? undefined : counts.open}
              />
            ) : (
              <p className="tasks-screen__all-done">Everything in this list is done.</p>
            )}
            {sections.done.length > 0 && complete ? (
              <div className="tasks-done">
                <button
                  type="button"
                  className="tasks-done__toggle"
                  aria-expanded={sections.expanded}
                  aria-controls={doneId}
                  onClick={sections.toggle}
                >
                  <ChevronIcon />
                  Done ({sections.done.length.toLocaleString()})
                </button>
                <div id={doneId}>
                  {sections.expanded ? (
                    <TaskList
                      {...listProps}
                      label="Done tasks"
                      tasks={sections.done}
                      highlightId={null}
                    />
                  ) : null}
                </div>
              </div>
            ) : null}
          </>
        )}
      </div>
    </section>
  );
}
