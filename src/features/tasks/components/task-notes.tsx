// The task screen's notes (issue 40): shown as text whose web addresses are links, edited as a
// plain textarea that grows with the text (no handle, no inner scroll). The way in to editing
// is a real control (the Edit button) beside the heading, and a click on the text (not on a
// link) for a pointer; the links stay reachable by Tab, and nothing interactive is nested.
// Empty notes are the field itself. Saved as the user pauses, leaves the field, hides the
// app or leaves the screen, so nothing typed is lost.
import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';

import { TASK_NOTES_MAX } from '@/data/schema';
import { TextAreaField } from '@/components/ui/field';
import { useServices } from '@/lib/services';
import { attempt } from '@/data/writes';

import { useSyncedDraft } from '../hooks/use-synced-draft';
import { noteParts } from '../note-links';
import type { TaskRow } from '../task-filter';

/** Notes are saved this long after the last keystroke (ms). */
const NOTES_IDLE_SAVE_MS = 600;
/** The notes counter appears from this length on (90 % of the limit): noise before that. */
const NOTES_COUNTER_FROM_CHARS = Math.floor(TASK_NOTES_MAX * 0.9);

/** Whether this browser sizes a textarea to its text by itself (CSS field-sizing). */
function sizesItself(): boolean {
  return typeof CSS !== 'undefined' && CSS.supports?.('field-sizing', 'content') === true;
}

export function TaskNotes({ task, canEdit }: { task: TaskRow; canEdit: boolean }) {
  const { sync } = useServices();
  const headingId = useId();
  const [notes, setNotes] = useSyncedDraft(task.notes);
  const [saveError, setSaveError] = useState<string | undefined>();
  const [editing, setEditing] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  // Where focus goes in the commit that swaps the text and the field.
  const focusNext = useRef<'field' | 'edit' | null>(null);

  const error =
    notes.length > TASK_NOTES_MAX
      ? `Notes can be at most ${TASK_NOTES_MAX.toLocaleString('en-US')} characters.`
      : saveError;
  // Empty notes have nothing to show but the field; notes over the limit stay in it.
  const showField = canEdit && (editing || notes === '' || error !== undefined);

  // ---- Saving: after a pause, on blur, when the app is hidden, and on unmount. ----
  const latest = useRef({ draft: notes, stored: task.notes, canEdit, id: task.id });
  // The draft last sent to be saved, until the stored value has caught up with it: the blur,
  // the timer and unmount do not each queue it.
  const queued = useRef<string | null>(null);
  useLayoutEffect(() => {
    latest.current = { draft: notes, stored: task.notes, canEdit, id: task.id };
    if (task.notes === queued.current) queued.current = null;
  });
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const saveNotes = useCallback(async () => {
    const { draft, stored, canEdit: allowed, id } = latest.current;
    if (!allowed || draft === stored || draft === queued.current) return;
    if (draft.length > TASK_NOTES_MAX) return;
    queued.current = draft;
    const result = await attempt(() => sync.repos.tasks.update(id, { notes: draft }));
    // Refused: the same draft may be tried again.
    if (!result.ok) queued.current = null;
    if (mounted.current) {
      setSaveError(result.ok ? undefined : (result.errors.notes ?? result.errors._));
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
      // Leaving the screen (a link, Back, another task) must never lose what was typed.
      void saveNotes();
    };
  }, [saveNotes]);

  // ---- The field grows with its text: by CSS where it can, else measured here. ----
  useLayoutEffect(() => {
    const element = field.current;
    if (!element || sizesItself()) return;
    element.style.height = 'auto';
    element.style.height = `${element.scrollHeight + element.offsetHeight - element.clientHeight}px`;
  }, [notes, showField]);

  useLayoutEffect(() => {
    const target = focusNext.current;
    focusNext.current = null;
    if (target === 'field' && field.current) {
      const element = field.current;
      element.focus();
      element.setSelectionRange(element.value.length, element.value.length);
    } else if (target === 'edit') {
      editButton.current?.focus();
    }
  }, [showField]);

  function startEditing() {
    focusNext.current = 'field';
    setEditing(true);
  }

  return (
    <div className="task-notes">
      <div className="task-notes__head">
        <h2 id={headingId} className="field__label task-notes__heading">
          Notes
        </h2>
        {canEdit && !showField ? (
          <button
            ref={editButton}
            type="button"
            className="task-notes__edit"
            aria-label="Edit notes"
            onClick={startEditing}
          >
            Edit
          </button>
        ) : null}
      </div>
      {showField ? (
        <TextAreaField
          ref={field}
          label="Notes"
          hideLabel
          className="field__control task-notes__field"
          value={notes}
          rows={2}
          error={error}
          hint={
            notes.length >= NOTES_COUNTER_FROM_CHARS
              ? `${notes.length.toLocaleString('en-US')} / ${TASK_NOTES_MAX.toLocaleString('en-US')}`
              : undefined
          }
          placeholder="Add notes…"
          onFocus={() => setEditing(true)}
          onChange={(event) => setNotes(event.currentTarget.value)}
          onKeyDown={(event) => {
            // Escape ends editing (not the panel around it) and gives focus to Edit.
            if (event.key !== 'Escape' || notes === '' || error !== undefined) return;
            event.preventDefault();
            void saveNotes();
            focusNext.current = 'edit';
            setEditing(false);
          }}
          onBlur={() => {
            void saveNotes();
            setEditing(false);
          }}
        />
      ) : (
        // A click on the text edits it, as on the title; the keyboard's way is Edit.
        <div
          className={canEdit ? 'task-notes__text task-notes__text--editable' : 'task-notes__text'}
          onClick={(event) => {
            if (!canEdit || (event.target as Element).closest('a')) return;
            // Selecting text to copy it is not a request to edit.
            if (window.getSelection()?.toString()) return;
            startEditing();
          }}
        >
          {notes === '' ? (
            <span className="task-notes__empty">No notes.</span>
          ) : (
            noteParts(notes).map((part, index) =>
              part.href ? (
                <a key={index} href={part.href} target="_blank" rel="noopener noreferrer">
                  {part.text}
                </a>
              ) : (
                <span key={index}>{part.text}</span>
              ),
            )
          )}
        </div>
      )}
    </div>
  );
}
