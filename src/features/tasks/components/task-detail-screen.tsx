// /lists/:listId/tasks/:taskId — one task's fields, each saved as it is changed (notes as
// the user pauses, leaves the field or the screen), then the panels other features add
// (attachments, comments). The title and notes are edited in place, the other fields through
// the chips under the title (a repeating task says what carries on to its next occurrence),
// then the checklist; viewers see the same values as plain text.
import {
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type ReactNode,
} from 'react';

import { TASK_NOTES_MAX, taskPatch } from '@/data/schema';
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
import { Link, useNavigate, useParams } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { showToast } from '@/lib/toasts';
import { attempt } from '@/data/writes';
import { relativeTime } from '@/utils/format';

import '../tasks.css';
import '../task-detail.css';
import { useSyncedDraft } from '../hooks/use-synced-draft';
import { useTask } from '../hooks/use-task';
import type { TaskRow } from '../task-filter';
import { Checklist } from './checklist';
import { PropertyChips, PropertyText, type Assignee } from './property-chips';
import { RepeatSummary } from './repeat-menu';

/** Notes are saved this long after the last keystroke (ms). */
const NOTES_IDLE_SAVE_MS = 600;
/** The notes counter appears from this length on (90 % of the limit): noise before that. */
const NOTES_COUNTER_FROM_CHARS = Math.floor(TASK_NOTES_MAX * 0.9);

type Errors = Partial<Record<string, string>>;

export function TaskDetailScreen({
  presence,
  renderExtras,
}: {
  /** Who else has the task open (the route's, so this screen needs no realtime). */
  presence?: ReactNode;
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
      <TaskFields key={taskId} task={lookup.task} access={access} presence={presence} />
      <Checklist key={`checklist-${taskId}`} taskId={taskId} canEdit={access.canEditTasks} />
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

function TaskFields({
  task,
  access,
  presence,
}: {
  task: TaskRow;
  access: ListAccess;
  presence: ReactNode;
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
        <h1 className={editingTitle ? 'visually-hidden' : 'task-detail__title'}>
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
        </h1>
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

      <div className="task-detail__notes">
        {canEdit ? (
          <TextAreaField
            label="Notes"
            value={notes}
            rows={4}
            error={notesError}
            hint={
              notes.length >= NOTES_COUNTER_FROM_CHARS
                ? `${notes.length.toLocaleString('en-US')} / ${TASK_NOTES_MAX.toLocaleString('en-US')}`
                : undefined
            }
            placeholder="Add notes…"
            onChange={(event) => setNotes(event.currentTarget.value)}
            onBlur={() => void saveNotes()}
          />
        ) : (
          <>
            <h2 className="field__label">Notes</h2>
            <p className="task-detail__notes-text">{task.notes || 'No notes.'}</p>
          </>
        )}
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
