// /lists/:listId/tasks/:taskId — one task's fields, each saved as it is changed, then the
// panels other features add (attachments, comments). The title and notes are edited in place,
// the other fields through the chips under the title (a repeating task says what carries on to
// its next occurrence), then the checklist; viewers see the same values as plain text. A full
// page with a way back on narrow windows; beside its list on wide ones (issue 40), a panel
// with Close (and Escape). Either way the chips' single keys and Delete work on it.
import {
  useCallback,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
} from 'react';

import { taskPatch } from '@/data/schema';
import { validate } from '@sync/index';
import { Button } from '@/components/ui/button';
import { FormError, TextAreaField } from '@/components/ui/field';
import { useFirstSyncDone } from '@/hooks/use-first-sync';
import { useList } from '@/hooks/use-list';
import { useListAccess, type ListAccess } from '@/hooks/use-list-access';
import { useMembers } from '@/hooks/use-members';
import { useNow } from '@/hooks/use-now';
import { usePendingRows } from '@/hooks/use-pending-rows';
import { displayName, useProfiles } from '@/hooks/use-profiles';
import { useDeleteWithUndo } from '@/hooks/use-delete-with-undo';
import { isTypingTarget } from '@/hooks/use-shortcut';
import { Link, useNavigate, useParams } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { showToast } from '@/lib/toasts';
import { attempt } from '@/data/writes';
import { relativeTime } from '@/utils/format';

import '../tasks.css';
import '../task-detail.css';
import { useTask } from '../hooks/use-task';
import type { TaskRow } from '../task-filter';
import { Checklist } from './checklist';
import { PropertyChips, PropertyText, type Assignee } from './property-chips';
import { RepeatSummary } from './repeat-menu';
import { TaskNotes } from './task-notes';
import { useTaskScreenKeys } from './task-screen-keys';

type Errors = Partial<Record<string, string>>;

/** The task as a panel beside its list (wide windows) rather than a page of its own. */
export interface TaskPanelOptions {
  /** Back to the list alone (Close, Escape). */
  onClose: () => void;
  /** The task was deleted here (Undo is in its toast): back to the list without it. */
  onDeleted: () => void;
  /**
   * Raised by one when focus should go to the task's heading (opened from the list, as a
   * page's heading gets it after a navigation); the panel does it once the heading shows.
   */
  focusRequest: number;
}

export function TaskDetailScreen({
  presence,
  renderExtras,
  panel,
}: {
  /** Who else has the task open (the route's, so this screen needs no realtime). */
  presence?: ReactNode;
  renderExtras?: (task: { taskId: string; listId: string }) => ReactNode;
  panel?: TaskPanelOptions | undefined;
}) {
  const { listId = '', taskId = '' } = useParams();
  const list = useList(listId);
  const lookup = useTask(listId, taskId);
  // Known before anything shows, so editors never see a flash of read-only fields.
  const access = useListAccess(listId);
  const firstSyncDone = useFirstSyncDone();
  const navigate = useNavigate();
  const deleteWithUndo = useDeleteWithUndo();
  // Set while this screen deletes the task, so its own delete never reads as someone else's.
  const [leaving, setLeaving] = useState(false);

  const onDeleted = panel?.onDeleted;
  const onDelete = useCallback(
    async (title: string) => {
      setLeaving(true);
      if (!(await deleteWithUndo('tasks', taskId, title))) setLeaving(false);
      else if (onDeleted) onDeleted();
      else void navigate(`/lists/${listId}`);
    },
    [deleteWithUndo, navigate, listId, taskId, onDeleted],
  );

  const root = useRef<HTMLElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const headingId = useId();
  const live = lookup?.state === 'live' ? lookup.task : null;
  useTaskScreenKeys({
    root,
    inPanel: panel !== undefined,
    enabled: access.canEditTasks && live !== null && !leaving,
    onDelete: () => {
      if (live) void onDelete(live.title);
    },
  });

  // Focus to the heading when the panel asks, in the commit that shows it.
  const focusHandled = useRef(0);
  const focusRequest = panel?.focusRequest ?? 0;
  useLayoutEffect(() => {
    if (focusRequest === focusHandled.current || !heading.current) return;
    focusHandled.current = focusRequest;
    heading.current.focus();
  });
  // A panel that moves to another task starts at its top.
  useLayoutEffect(() => {
    root.current?.scrollTo?.({ top: 0 });
  }, [taskId]);

  if (list === undefined || lookup === undefined || access.role === undefined || leaving)
    return null;
  const Heading = panel ? 'h2' : 'h1';
  // The page's section, or the panel beside the list (`className`: the page's only).
  const frame = (className: string, children: ReactNode, busy = false) =>
    panel ? (
      <aside
        ref={root}
        className="task-detail task-panel"
        aria-labelledby={headingId}
        aria-busy={busy || undefined}
        onKeyDown={(event: KeyboardEvent) => {
          // Escape closes the panel, unless a popup or a field has used it (menus stop it).
          if (event.key !== 'Escape' || event.defaultPrevented || isTypingTarget(event.target))
            return;
          event.preventDefault();
          panel.onClose();
        }}
      >
        <div className="task-panel__bar">
          <Button
            variant="ghost"
            size="sm"
            className="task-panel__close"
            aria-label="Close"
            aria-keyshortcuts="Escape"
            title="Close (Esc)"
            onClick={panel.onClose}
          >
            <span aria-hidden="true">✕</span>
          </Button>
        </div>
        {children}
      </aside>
    ) : (
      <section
        ref={root}
        className={className ? `screen task-detail ${className}` : 'screen task-detail'}
        aria-busy={busy || undefined}
      >
        {children}
      </section>
    );

  // Not here yet on a device whose first sync is still running: it may be on its way.
  if ((list === null || lookup.state === 'missing') && !firstSyncDone) {
    return frame(
      'screen--narrow',
      <>
        <Heading id={headingId} ref={heading} tabIndex={-1}>
          Loading…
        </Heading>
        <p>This device is getting your lists for the first time.</p>
      </>,
      true,
    );
  }
  if (lookup.state !== 'live' || list === null) {
    return frame(
      'screen--narrow',
      <>
        <Heading id={headingId} ref={heading} tabIndex={-1}>
          {lookup.state === 'deleted'
            ? 'This task was deleted by someone else'
            : 'This task isn’t on this device'}
        </Heading>
        <p>
          {lookup.state === 'deleted'
            ? 'It is no longer in the list.'
            : 'It may have been deleted, or you no longer have access to its list.'}
        </p>
        {panel ? null : (
          <Link to={list ? `/lists/${listId}` : '/lists'} className="btn btn--primary">
            {list ? `Back to ${list.name}` : 'Back to your lists'}
          </Link>
        )}
      </>,
    );
  }
  const task = lookup.task;
  return frame(
    '',
    <>
      {panel ? null : (
        <Link to={`/lists/${listId}`} className="back-link">
          <span aria-hidden="true">←</span> {list.name}
        </Link>
      )}
      {/* Keyed by the task shown: the previous one stays until the next one is read. */}
      <TaskFields
        key={task.id}
        task={task}
        access={access}
        presence={presence}
        headingLevel={Heading}
        headingId={headingId}
        headingRef={heading}
      />
      <Checklist key={`checklist-${taskId}`} taskId={taskId} canEdit={access.canEditTasks} />
      {renderExtras?.({ taskId, listId })}
      {/* Last on the screen: destructive, and rarely what a visit is for. */}
      {access.canEditTasks ? (
        <div className="task-detail__actions">
          <Button
            variant="danger-outline"
            aria-keyshortcuts="Delete"
            onClick={() => void onDelete(task.title)}
          >
            Delete task
          </Button>
        </div>
      ) : null}
    </>,
  );
}

function TaskFields({
  task,
  access,
  presence,
  headingLevel: Heading,
  headingId,
  headingRef,
}: {
  task: TaskRow;
  access: ListAccess;
  presence: ReactNode;
  /** The title's heading: h1 on its own page, h2 in the panel beside the list's h1. */
  headingLevel: 'h1' | 'h2';
  headingId: string;
  headingRef: RefObject<HTMLHeadingElement | null>;
}) {
  const { sync } = useServices();
  const { userId } = useSession();
  const members = useMembers(task.list_id);
  const profiles = useProfiles();
  const pending = usePendingRows(task.list_id).has(task.id);
  const now = useNow(30_000);
  const canEdit = access.canEditTasks;
  const [errors, setErrors] = useState<Errors>({});
  const [editingTitle, setEditingTitle] = useState(false);
  const titleButton = useRef<HTMLButtonElement>(null);
  const titleHintId = useId();

  async function save(field: string, changes: Parameters<typeof sync.repos.tasks.update>[1]) {
    const result = await attempt(() => sync.repos.tasks.update(task.id, changes));
    setErrors((prev) => ({
      ...prev,
      [field]: result.ok ? undefined : (result.errors[field] ?? result.errors._),
    }));
    return result.ok;
  }

  // ---- Assignee: live members only; a former member stays visible but can't be picked. ----
  const assignee: Assignee | null = task.assignee_id
    ? (() => {
        const member = (members ?? []).find((m) => m.userId === task.assignee_id);
        return member
          ? { id: member.userId, name: member.name, avatarPath: member.avatarPath, member: true }
          : {
              id: task.assignee_id,
              name: displayName(profiles, task.assignee_id, 'Someone'),
              avatarPath: null,
              // Unknown until the members have loaded: not called a former member meanwhile.
              member: members === undefined,
            };
      })()
    : null;

  const creator =
    task.created_by === userId ? 'you' : displayName(profiles, task.created_by, 'someone');
  const created = Date.parse(task.created_at);
  const updated = Date.parse(task.updated_at);
  const completed = task.completed_at ? Date.parse(task.completed_at) : NaN;

  const wasEditing = useRef(false);
  // In the commit that shows the title again (see comment-item.tsx).
  useLayoutEffect(() => {
    if (wasEditing.current && !editingTitle) titleButton.current?.focus();
    wasEditing.current = editingTitle;
  }, [editingTitle]);

  const propertyError =
    errors.status ?? errors.priority ?? errors.due_on ?? errors.repeat ?? errors.assignee_id;

  return (
    <>
      <div className="task-detail__heading">
        <Heading
          id={headingId}
          ref={headingRef}
          tabIndex={-1}
          className={editingTitle ? 'visually-hidden' : 'task-detail__title'}
        >
          {canEdit && !editingTitle ? (
            <button
              ref={titleButton}
              type="button"
              className="task-detail__title-button"
              aria-describedby={titleHintId}
              onClick={() => setEditingTitle(true)}
              onKeyDown={(event) => {
                if (event.key === 'F2') {
                  event.preventDefault();
                  setEditingTitle(true);
                }
              }}
            >
              {task.title}
            </button>
          ) : (
            task.title
          )}
        </Heading>
        {canEdit && !editingTitle ? (
          <span id={titleHintId} hidden>
            Edit title
          </span>
        ) : null}
        {editingTitle ? <TitleEditor task={task} onClose={() => setEditingTitle(false)} /> : null}
      </div>
      <p className="task-detail__info">
        {pending ? <span className="badge badge--pending">Not synced yet</span> : null}
        <span>
          Added by {creator}
          {Number.isFinite(created) ? ` · ${relativeTime(created, now)}` : ''}
        </span>
        {Number.isFinite(updated) && updated - created > 1_000 ? (
          <span>Edited {relativeTime(updated, now)}</span>
        ) : null}
        {task.status === 'done' && Number.isFinite(completed) ? (
          <span>
            Completed{' '}
            <time dateTime={task.completed_at ?? undefined}>{relativeTime(completed, now)}</time>
          </span>
        ) : null}
        {presence}
      </p>

      <FormError message={errors._} />

      {canEdit ? (
        <PropertyChips
          task={task}
          now={now}
          members={members ?? []}
          assignee={assignee}
          meId={userId}
          onChange={(field, change) =>
            void save(field, change).then((saved) => {
              if (saved && 'repeat' in change && change.repeat === null)
                showToast({ message: 'Stopped repeating. This task stays; no more will follow.' });
            })
          }
        />
      ) : (
        <>
          <PropertyText task={task} now={now} assignee={assignee} />
          <p className="task-detail__read-only">You can view this list but not edit it.</p>
        </>
      )}
      <FormError message={propertyError} />
      <RepeatSummary task={task} now={now} />

      <TaskNotes task={task} canEdit={canEdit} />
    </>
  );
}

/**
 * The title in place: a textarea that grows with the text (long titles wrap, as in the
 * heading), Enter or leaving the field saves, Escape cancels. Titles are one line, so line
 * breaks (pasted ones) become spaces.
 */
function TitleEditor({ task, onClose }: { task: TaskRow; onClose: () => void }) {
  const { sync } = useServices();
  const [draft, setDraft] = useState(task.title);
  const [error, setError] = useState<string | undefined>();
  // Escape closes without saving; the blur that follows must not save either.
  const closed = useRef(false);
  const field = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => {
    const element = field.current;
    if (!element) return;
    element.style.height = 'auto';
    element.style.height = `${element.scrollHeight + 2}px`;
  }, [draft]);

  async function commit() {
    if (closed.current) return;
    if (draft.trim() === task.title) {
      closed.current = true;
      onClose();
      return;
    }
    const checked = validate(taskPatch, { title: draft });
    if (!checked.ok) {
      setError(checked.errors.title ?? checked.errors._);
      return;
    }
    closed.current = true;
    const result = await attempt(() => sync.repos.tasks.update(task.id, { title: draft }));
    if (result.ok) {
      onClose();
    } else {
      closed.current = false;
      setError(result.errors.title ?? result.errors._);
    }
  }

  return (
    <div className="task-detail__title-editor">
      <TextAreaField
        ref={field}
        label="Title"
        rows={1}
        value={draft}
        error={error}
        hint="Enter to save · Esc to cancel"
        // Opened by the user's own click or key on the title, so taking focus is expected.
        autoFocus
        onFocus={(event) => event.currentTarget.select()}
        onChange={(event) => {
          setDraft(event.currentTarget.value.replace(/\r?\n/g, ' '));
          if (error) setError(undefined);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.nativeEvent.isComposing) {
            event.preventDefault();
            void commit();
          } else if (event.key === 'Escape') {
            event.preventDefault();
            closed.current = true;
            onClose();
          }
        }}
        onBlur={() => void commit()}
      />
    </div>
  );
}
