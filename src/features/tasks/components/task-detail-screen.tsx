// /lists/:listId/tasks/:taskId — one task's fields, each saved as it is changed (notes as
// the user pauses, leaves the field or the screen), then the panels other features add
// (attachments, comments). Viewers see the same fields read-only.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';

import {
  PRIORITIES,
  STATUS_TRANSITIONS,
  TASK_NOTES_MAX,
  taskPatch,
  validate,
  type Priority,
  type TaskStatus,
} from '@sync/index';
import { Button } from '@/components/ui/button';
import { FormError, SelectField, TextAreaField, TextField } from '@/components/ui/field';
import { useFirstSyncDone } from '@/hooks/use-first-sync';
import { useList } from '@/hooks/use-list';
import { useListAccess, type ListAccess } from '@/hooks/use-list-access';
import { useMembers } from '@/hooks/use-members';
import { useNow } from '@/hooks/use-now';
import { usePendingRows } from '@/hooks/use-pending-rows';
import { displayName, useProfiles } from '@/hooks/use-profiles';
import { useDeleteWithUndo } from '@/hooks/use-delete-with-undo';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { attempt } from '@/lib/writes';
import { relativeTime } from '@/utils/format';

import '../tasks.css';
import { useSyncedDraft } from '../hooks/use-synced-draft';
import { useTask } from '../hooks/use-task';
import { PRIORITY_LABELS, STATUS_LABELS, type TaskRow } from '../task-filter';
import { dueText } from './due-text';

/** Notes are saved this long after the last keystroke (ms). */
const NOTES_IDLE_SAVE_MS = 600;
/** The notes counter appears from this length on (90 % of the limit): noise before that. */
const NOTES_COUNTER_FROM_CHARS = Math.floor(TASK_NOTES_MAX * 0.9);

type Errors = Partial<Record<string, string>>;

export function TaskDetailScreen({
  renderExtras,
}: {
  renderExtras?: (task: { taskId: string; listId: string }) => ReactNode;
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

  const onDelete = useCallback(
    async (title: string) => {
      setLeaving(true);
      if (await deleteWithUndo('tasks', taskId, title)) void navigate(`/lists/${listId}`);
      else setLeaving(false);
    },
    [deleteWithUndo, navigate, listId, taskId],
  );

  if (list === undefined || lookup === undefined || access.role === undefined || leaving)
    return null;
  // Not here yet on a device whose first sync is still running: it may be on its way.
  if ((list === null || lookup.state === 'missing') && !firstSyncDone) {
    return (
      <section className="screen screen--narrow task-detail" aria-busy="true">
        <h1>Loading…</h1>
        <p>This device is getting your lists for the first time.</p>
      </section>
    );
  }
  if (lookup.state !== 'live' || list === null) {
    return (
      <section className="screen screen--narrow task-detail">
        <h1>
          {lookup.state === 'deleted'
            ? 'This task was deleted by someone else'
            : 'This task isn’t on this device'}
        </h1>
        <p>
          {lookup.state === 'deleted'
            ? 'It is no longer in the list.'
            : 'It may have been deleted, or you no longer have access to its list.'}
        </p>
        <Link to={list ? `/lists/${listId}` : '/lists'} className="btn btn--primary">
          {list ? `Back to ${list.name}` : 'Back to your lists'}
        </Link>
      </section>
    );
  }
  const title = lookup.task.title;
  return (
    <section className="screen task-detail">
      <Link to={`/lists/${listId}`} className="back-link">
        <span aria-hidden="true">←</span> {list.name}
      </Link>
      <TaskFields key={taskId} task={lookup.task} access={access} />
      {renderExtras?.({ taskId, listId })}
      {/* Last on the screen: destructive, and rarely what a visit is for. */}
      {access.canEditTasks ? (
        <div className="task-detail__actions">
          <Button variant="danger-outline" onClick={() => void onDelete(title)}>
            Delete task
          </Button>
        </div>
      ) : null}
    </section>
  );
}

function TaskFields({ task, access }: { task: TaskRow; access: ListAccess }) {
  const { sync } = useServices();
  const { userId } = useSession();
  const members = useMembers(task.list_id);
  const profiles = useProfiles();
  const pending = usePendingRows(task.list_id).has(task.id);
  const now = useNow(30_000);
  const canEdit = access.canEditTasks;
  const [errors, setErrors] = useState<Errors>({});
  const [editingTitle, setEditingTitle] = useState(false);
  const editTitleButton = useRef<HTMLButtonElement>(null);

  async function save(field: string, changes: Parameters<typeof sync.repos.tasks.update>[1]) {
    const result = await attempt(() => sync.repos.tasks.update(task.id, changes));
    setErrors((prev) => ({
      ...prev,
      [field]: result.ok ? undefined : (result.errors[field] ?? result.errors._),
    }));
    return result.ok;
  }

  // ---- Notes: saved after a pause, on blur, when the app is hidden, and on unmount. ----
  const [notes, setNotes] = useSyncedDraft(task.notes);
  const notesError =
    notes.length > TASK_NOTES_MAX
      ? `Notes can be at most ${TASK_NOTES_MAX.toLocaleString('en-US')} characters.`
      : errors.notes;
  const notesState = useRef({ draft: notes, saved: task.notes, canEdit, id: task.id });
  useLayoutEffect(() => {
    notesState.current = { draft: notes, saved: task.notes, canEdit, id: task.id };
  });
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const saveNotes = useCallback(async () => {
    const { draft, saved, canEdit: allowed, id } = notesState.current;
    if (!allowed || draft === saved || draft.length > TASK_NOTES_MAX) return;
    // Marked as saved at once so the blur, the timer and unmount do not each queue it.
    notesState.current = { ...notesState.current, saved: draft };
    const result = await attempt(() => sync.repos.tasks.update(id, { notes: draft }));
    if (mounted.current) {
      setErrors((prev) => ({
        ...prev,
        notes: result.ok ? undefined : (result.errors.notes ?? result.errors._),
      }));
    }
  }, [sync]);
  useEffect(() => {
    if (notes === task.notes) return;
    const timer = setTimeout(() => void saveNotes(), NOTES_IDLE_SAVE_MS);
    return () => clearTimeout(timer);
  }, [notes, task.notes, saveNotes]);
  useEffect(() => {
    const onHide = () => {
      if (document.visibilityState === 'hidden') void saveNotes();
    };
    document.addEventListener('visibilitychange', onHide);
    return () => {
      document.removeEventListener('visibilitychange', onHide);
      // Leaving the screen (a link, Back) must never lose what was typed.
      void saveNotes();
    };
  }, [saveNotes]);

  // ---- Due date: a draft, because a date typed part-way is empty until it is complete. ----
  const [due, setDue] = useSyncedDraft(task.due_on ?? '');
  const dueInfo = task.due_on ? dueText(task.due_on, now, task.status === 'done') : null;

  // ---- Assignee: live members only; a former member stays visible but can't be picked. ----
  const assigneeIsMember =
    !task.assignee_id || (members ?? []).some((member) => member.userId === task.assignee_id);

  const creator =
    task.created_by === userId ? 'you' : displayName(profiles, task.created_by, 'someone');
  const created = Date.parse(task.created_at);
  const updated = Date.parse(task.updated_at);
  const completed = task.completed_at ? Date.parse(task.completed_at) : NaN;

  const wasEditing = useRef(false);
  // In the commit that shows the button again (see comment-item.tsx).
  useLayoutEffect(() => {
    if (wasEditing.current && !editingTitle) editTitleButton.current?.focus();
    wasEditing.current = editingTitle;
  }, [editingTitle]);

  return (
    <>
      <div className="task-detail__heading">
        <h1 className={editingTitle ? 'visually-hidden' : 'task-detail__title'}>{task.title}</h1>
        {editingTitle ? (
          <TitleEditor task={task} onClose={() => setEditingTitle(false)} />
        ) : canEdit ? (
          <button
            ref={editTitleButton}
            type="button"
            className="btn btn--ghost btn--sm task-detail__edit-title"
            onClick={() => setEditingTitle(true)}
          >
            Edit title
          </button>
        ) : null}
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
        {access.role === 'viewer' ? <span className="badge">View only</span> : null}
      </p>

      <FormError message={errors._} />

      <div className="task-detail__fields">
        <div className="task-detail__grid">
          <SelectField
            label="Status"
            value={task.status}
            disabled={!canEdit}
            error={errors.status}
            hint={
              task.status === 'done' && Number.isFinite(completed) ? (
                <>
                  Completed{' '}
                  <time dateTime={task.completed_at ?? undefined}>
                    {relativeTime(completed, now)}
                  </time>
                </>
              ) : undefined
            }
            onChange={(event) =>
              void save('status', { status: event.currentTarget.value as TaskStatus })
            }
          >
            {[task.status, ...STATUS_TRANSITIONS[task.status]].map((status) => (
              <option key={status} value={status}>
                {STATUS_LABELS[status]}
              </option>
            ))}
          </SelectField>

          <SelectField
            label="Priority"
            value={String(task.priority)}
            disabled={!canEdit}
            error={errors.priority}
            onChange={(event) =>
              void save('priority', { priority: Number(event.currentTarget.value) as Priority })
            }
          >
            {PRIORITIES.map((priority) => (
              <option key={priority} value={priority}>
                {PRIORITY_LABELS[priority]}
              </option>
            ))}
          </SelectField>

          <div className="task-detail__due">
            <TextField
              label="Due date"
              type="date"
              value={due}
              readOnly={!canEdit}
              error={errors.due_on}
              hint={
                dueInfo ? (
                  <span className={dueInfo.overdue ? 'task-detail__overdue' : ''}>
                    {dueInfo.text}
                  </span>
                ) : undefined
              }
              onChange={(event) => {
                const value = event.currentTarget.value;
                setDue(value);
                if (/^\d{4}-\d{2}-\d{2}$/.test(value) && value !== task.due_on) {
                  void save('due_on', { due_on: value });
                }
              }}
              onBlur={() => {
                if (due === '' && task.due_on) void save('due_on', { due_on: null });
              }}
            />
            {canEdit && task.due_on ? (
              <Button
                size="sm"
                className="task-detail__clear"
                aria-label="Clear due date"
                onClick={() => {
                  setDue('');
                  void save('due_on', { due_on: null });
                }}
              >
                Clear
              </Button>
            ) : null}
          </div>

          <SelectField
            label="Assignee"
            value={task.assignee_id ?? ''}
            disabled={!canEdit}
            error={errors.assignee_id}
            onChange={(event) =>
              void save('assignee_id', { assignee_id: event.currentTarget.value || null })
            }
          >
            <option value="">Unassigned</option>
            {(members ?? []).map((member) => (
              <option key={member.userId} value={member.userId}>
                {member.userId === userId && member.named ? `${member.name} (you)` : member.name}
              </option>
            ))}
            {!assigneeIsMember && task.assignee_id ? (
              <option value={task.assignee_id} disabled>
                {displayName(profiles, task.assignee_id, 'Someone')} (no longer a member)
              </option>
            ) : null}
          </SelectField>
        </div>

        <TextAreaField
          label="Notes"
          value={notes}
          readOnly={!canEdit}
          rows={6}
          error={notesError}
          hint={
            notes.length >= NOTES_COUNTER_FROM_CHARS
              ? `${notes.length.toLocaleString('en-US')} / ${TASK_NOTES_MAX.toLocaleString('en-US')}`
              : undefined
          }
          placeholder={canEdit ? 'Details, links, steps…' : undefined}
          onChange={(event) => setNotes(event.currentTarget.value)}
          onBlur={() => void saveNotes()}
        />
      </div>
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
        // Opened by the user's own "Edit title", so taking focus is expected.
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
