// A task's checklist on the task screen (product.md §4 "Checklist"): items with a tick and
// their text in place, and "Add item" at the end, all by keyboard. Enter in an item opens a
// new one right after it; Backspace in an empty one removes it and goes to the one before;
// Alt+↑/↓ moves an item; ↑/↓ go from field to field. An item exists once it has text: the new
// line is a draft until Enter, and what Enter saved shows at once, before the device answers.
// Viewers see the items and their ticks as plain text.
import { useLiveQuery } from 'dexie-react-hooks';
import {
  useEffect,
  useId,
  useLayoutEffect,
  useReducer,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
} from 'react';

import { checklistQueries } from '@/data/checklist-queries';
import type { ChecklistItem } from '@/data/rows';
import {
  CHECKLIST_ITEM_TEXT_MAX,
  CHECKLIST_ITEMS_PER_TASK_MAX,
  checklistItemPatch,
} from '@/data/schema';
import { attempt } from '@/data/writes';
import { validate } from '@sync/index';
import { useDeleteWithUndo } from '@/hooks/use-delete-with-undo';
import { useServices } from '@/lib/services';

import { useSyncedDraft } from '../hooks/use-synced-draft';
import { TrashIcon } from './icons';
import './checklist.css';

/** An item's text is saved this long after the last keystroke (ms), as notes are. */
const ITEM_IDLE_SAVE_MS = 600;

/** An item added here that the live query has not brought yet (key: this screen's own). */
interface PendingItem {
  key: string;
  text: string;
  /** The key or id of the entry it goes after; null: at the end. */
  after: string | null;
  /** Its id, once the write has come back. */
  id?: string;
  /** The live query has brought it: from now on it is a stored item (or, deleted, none). */
  seen?: boolean;
}

/** A line of the checklist as shown: a stored item, or one on its way. */
interface Entry {
  key: string;
  id: string | null;
  text: string;
  done: boolean;
  item: ChecklistItem | null;
}

/** The new line after an entry (Enter in an item): a draft until it has text and Enter. */
interface Draft {
  after: string;
  text: string;
  error?: string | undefined;
}

/**
 * Where the focus goes once the checklist has drawn: a line by key (once it is at index `at`,
 * for a move, whose line React may take out and put back), the draft, or Add item.
 */
type FocusTarget = { key: string; at?: number } | 'draft' | 'add';

/** Why an item's text can't be saved (too long), or undefined. */
function textError(text: string): string | undefined {
  if (!text.trim()) return undefined;
  const checked = validate(checklistItemPatch, { text });
  return checked.ok ? undefined : (checked.errors.text ?? checked.errors._);
}

export function Checklist({ taskId, canEdit }: { taskId: string; canEdit: boolean }) {
  const { sync } = useServices();
  const items = useLiveQuery(
    () => sync.queries.extend(checklistQueries).checklist(taskId),
    [sync, taskId],
  );
  const deleteWithUndo = useDeleteWithUndo();
  const headingId = useId();
  const [pending, setPending] = useState<readonly PendingItem[]>([]);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [addText, setAddText] = useState('');
  const [addError, setAddError] = useState<string | undefined>();
  const [announcement, setAnnouncement] = useState('');
  const list = useRef<HTMLUListElement>(null);
  const addField = useRef<HTMLInputElement>(null);
  const focusTarget = useRef<FocusTarget | null>(null);
  // Draws again when only the focus moves (nothing on screen changed).
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  /** Adds run one after another, so an item typed after another goes after it. */
  const adding = useRef<Promise<unknown>>(Promise.resolve());
  /** The id each pending key was given. */
  const ids = useRef(new Map<string, string>());
  const counter = useRef(0);

  // A pending key as the id it was given (kept for the session: a checklist has at most 100).
  const idOf = (key: string) => pending.find((item) => item.key === key)?.id ?? key;

  // Lines in order: the stored items, then those on their way, each after the line it was
  // added after (an item whose write is done but not yet read is still pending).
  const liveIds = new Set((items ?? []).map((item) => item.id));
  // Adjusted while drawing (as use-synced-draft does): no extra commit with the item twice.
  if (pending.some((item) => !item.seen && item.id && liveIds.has(item.id)))
    setPending(
      pending.map((item) => (item.id && liveIds.has(item.id) ? { ...item, seen: true } : item)),
    );
  // An item added here keeps its pending key once stored, so its line is not drawn anew (and
  // does not lose the focus) when the live query brings it.
  const keyOf = new Map(pending.flatMap((item) => (item.id ? [[item.id, item.key] as const] : [])));
  const entries: Entry[] = (items ?? []).map((item) => ({
    key: keyOf.get(item.id) ?? item.id,
    id: item.id,
    text: item.text,
    done: item.done,
    item,
  }));
  for (const item of pending) {
    if (item.seen || (item.id && liveIds.has(item.id))) continue;
    const after = item.after === null ? null : idOf(item.after);
    const at = after === null ? -1 : entries.findIndex((e) => e.key === after || e.id === after);
    entries.splice(at < 0 ? entries.length : at + 1, 0, {
      key: item.key,
      id: item.id ?? null,
      text: item.text,
      done: false,
      item: null,
    });
  }
  const draftAfter = draft
    ? entries.findIndex((e) => e.key === draft.after || e.id === idOf(draft.after))
    : -1;

  // Focus follows the keys once the lines they change are drawn.
  useLayoutEffect(() => {
    const target = focusTarget.current;
    if (!target) return;
    const element =
      target === 'add'
        ? addField.current
        : list.current?.querySelector<HTMLInputElement>(
            target === 'draft' ? '[data-checklist-draft]' : `[data-checklist-key="${target.key}"]`,
          );
    if (!element) return;
    const landed =
      typeof target !== 'object' ||
      target.at === undefined ||
      entries[target.at]?.key === target.key;
    if (landed) focusTarget.current = null;
    if (document.activeElement !== element) {
      element.focus();
      element.setSelectionRange(element.value.length, element.value.length);
    }
  });

  // A viewer has nothing to do with an empty checklist: no heading for it.
  if (items === undefined || (!canEdit && items.length === 0)) return null;
  const done = items.filter((item) => item.done).length;

  function addItem(text: string, after: string | null): string {
    const key = `new-${(counter.current += 1)}`;
    setPending((all) => [...all, { key, text, after }]);
    adding.current = adding.current.then(async () => {
      // The line it goes after was pending too: its id has come by now (adds run in turn).
      const afterId = after === null ? null : (ids.current.get(after) ?? after);
      const result = await attempt(() => sync.repos.checklist.add(taskId, text, afterId));
      if (result.ok) {
        ids.current.set(key, result.value);
        setPending((all) => all.map((p) => (p.key === key ? { ...p, id: result.value } : p)));
      } else {
        setPending((all) => all.filter((p) => p.key !== key));
        setAddError(result.errors.text ?? result.errors._);
      }
    });
    return key;
  }

  /** Moves the focus to a line's field (Add item for none) once drawn. */
  function focusLine(index: number) {
    const entry = entries[index];
    focusTarget.current = entry ? { key: entry.key } : 'add';
    redraw();
  }

  /** ↑/↓ from field to field: the lines, the draft, then Add item. */
  function stepFocus(event: KeyboardEvent<HTMLInputElement>) {
    const fields = Array.from(
      list.current
        ?.closest('.checklist')
        ?.querySelectorAll<HTMLInputElement>('input[type="text"]') ?? [],
    );
    const at = fields.indexOf(event.currentTarget);
    const next = fields[at + (event.key === 'ArrowUp' ? -1 : 1)];
    if (next) {
      event.preventDefault();
      next.focus();
    }
  }

  async function move(index: number, by: -1 | 1, key: string) {
    const all = items ?? [];
    const item = all[index];
    const target = index + by;
    if (!item || target < 0 || target >= all.length) return;
    const [afterId, beforeId] =
      by < 0
        ? [all[index - 2]?.id ?? null, all[index - 1]?.id ?? null]
        : [all[index + 1]?.id ?? null, all[index + 2]?.id ?? null];
    focusTarget.current = { key, at: target };
    const result = await attempt(() => sync.repos.checklist.move(item.id, afterId, beforeId));
    if (result.ok) setAnnouncement(`${item.text}: ${target + 1} of ${all.length}`);
    else focusTarget.current = null;
  }

  function onLineKey(event: KeyboardEvent<HTMLInputElement>, index: number, entry: Entry) {
    if (event.nativeEvent.isComposing) return;
    const itemIndex = (items ?? []).findIndex((item) => item.id === entry.id);
    if (event.altKey && (event.key === 'ArrowUp' || event.key === 'ArrowDown')) {
      event.preventDefault();
      if (entry.item) void move(itemIndex, event.key === 'ArrowUp' ? -1 : 1, entry.key);
    } else if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
      stepFocus(event);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      // After the last item, the new line is Add item itself.
      if (index === entries.length - 1) focusLine(-1);
      else {
        setDraft({ after: entry.key, text: '' });
        focusTarget.current = 'draft';
      }
    } else if (event.key === 'Backspace' && event.currentTarget.value === '' && entry.id) {
      event.preventDefault();
      // The line before; from the first, the one after it (or Add item).
      focusLine(index > 0 ? index - 1 : entries.length > 1 ? 1 : -1);
      const id = entry.id;
      void attempt(() => sync.repos.checklist.delete(id));
    }
  }

  function onDraftKey(event: KeyboardEvent<HTMLInputElement>) {
    if (!draft || event.nativeEvent.isComposing) return;
    if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
      if (!event.altKey) stepFocus(event);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const text = draft.text.trim();
      const error = textError(draft.text);
      if (!text || error) return setDraft({ ...draft, error });
      setDraft({ after: addItem(text, draft.after), text: '' });
    } else if (event.key === 'Backspace' && draft.text === '') {
      event.preventDefault();
      focusLine(draftAfter);
      setDraft(null);
    } else if (event.key === 'Escape') {
      focusLine(draftAfter);
      setDraft(null);
    }
  }

  function onAddKey(event: KeyboardEvent<HTMLInputElement>) {
    if (event.nativeEvent.isComposing) return;
    if (event.key === 'ArrowUp') stepFocus(event);
    else if (event.key === 'Backspace' && addText === '' && entries.length > 0) {
      event.preventDefault();
      focusLine(entries.length - 1);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const text = addText.trim();
      const error = textError(addText);
      if (error) return setAddError(error);
      if (!text) return;
      if (items && items.length + pending.length >= CHECKLIST_ITEMS_PER_TASK_MAX)
        return setAddError(`A checklist can have at most ${CHECKLIST_ITEMS_PER_TASK_MAX} items.`);
      addItem(text, null);
      setAddText('');
      setAddError(undefined);
    }
  }

  const draftLine = draft ? (
    <li key="draft" className="checklist__item checklist__item--draft">
      <input
        type="checkbox"
        className="checklist__tick"
        disabled
        aria-label="New item: not saved yet"
      />
      <LineField
        label="New item"
        value={draft.text}
        error={draft.error}
        draft
        onChange={(text) => setDraft({ ...draft, text, error: textError(text) })}
        onKeyDown={onDraftKey}
        onBlur={() => {
          const text = draft.text.trim();
          // Leaving a new line with text saves it, as Enter would; an empty one just goes.
          if (text && !textError(draft.text)) addItem(text, draft.after);
          if (!text || !textError(draft.text)) setDraft(null);
        }}
      />
    </li>
  ) : null;

  return (
    <section className="checklist" aria-labelledby={headingId}>
      <h2 id={headingId} className="field__label checklist__heading">
        Checklist
        {items.length > 0 ? (
          <span className="checklist__progress">
            <span aria-hidden="true">
              {done}/{items.length}
            </span>
            <span className="visually-hidden">
              , {done} of {items.length} done
            </span>
          </span>
        ) : null}
      </h2>
      {entries.length > 0 || draftLine ? (
        <ul ref={list} className="checklist__items" role="list">
          {entries.flatMap((entry, index): ReactNode[] => [
            <li
              key={entry.key}
              className={`checklist__item${entry.done ? ' checklist__item--done' : ''}`}
            >
              {canEdit ? (
                <EditableLine
                  entry={entry}
                  onKeyDown={(event) => onLineKey(event, index, entry)}
                  onRemove={() => {
                    if (!entry.id) return;
                    focusLine(index + 1 < entries.length ? index + 1 : index - 1);
                    void deleteWithUndo('checklist_items', entry.id, entry.text);
                  }}
                />
              ) : (
                <>
                  <input
                    type="checkbox"
                    className="checklist__tick"
                    checked={entry.done}
                    disabled
                    aria-label={`Done: ${entry.text}`}
                  />
                  <span className="checklist__text">{entry.text}</span>
                </>
              )}
            </li>,
            index === draftAfter ? draftLine : null,
          ])}
          {draft && draftAfter < 0 ? draftLine : null}
        </ul>
      ) : null}
      {canEdit ? (
        <AddItem
          field={addField}
          value={addText}
          error={addError}
          onChange={(text) => {
            setAddText(text);
            setAddError(textError(text));
          }}
          onKeyDown={onAddKey}
        />
      ) : null}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
    </section>
  );
}

/** One item an editor can tick, retype (saved after a pause, on Enter and on leaving) or remove. */
function EditableLine({
  entry,
  onKeyDown,
  onRemove,
}: {
  entry: Entry;
  onKeyDown: (event: KeyboardEvent<HTMLInputElement>) => void;
  onRemove: () => void;
}) {
  const { sync } = useServices();
  const [text, setText] = useSyncedDraft(entry.text);
  const [error, setError] = useState<string | undefined>();
  const id = entry.id;

  async function save(value: string) {
    if (!id || !value.trim() || value.trim() === entry.text || textError(value)) return;
    const result = await attempt(() => sync.repos.checklist.update(id, { text: value }));
    setError(result.ok ? undefined : (result.errors.text ?? result.errors._));
  }

  useEffect(() => {
    if (text === entry.text) return;
    const timer = setTimeout(() => void save(text), ITEM_IDLE_SAVE_MS);
    return () => clearTimeout(timer);
  });

  return (
    <>
      <input
        type="checkbox"
        className="checklist__tick"
        checked={entry.done}
        disabled={!id}
        aria-label={`Done: ${entry.text}`}
        onChange={(event) => {
          const done = event.currentTarget.checked;
          if (id) void attempt(() => sync.repos.checklist.update(id, { done }));
        }}
      />
      <LineField
        label={`Item: ${entry.text}`}
        value={text}
        error={error}
        dataKey={entry.key}
        onChange={(value) => {
          setText(value);
          setError(textError(value));
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.nativeEvent.isComposing) void save(text);
          onKeyDown(event);
        }}
        onBlur={() => {
          // An emptied item goes back to its text (Backspace in it removes it).
          if (!text.trim()) {
            setText(entry.text);
            setError(undefined);
          } else void save(text);
        }}
      />
      <button
        type="button"
        className="checklist__remove"
        aria-label={`Remove ${entry.text}`}
        title="Remove"
        disabled={!id}
        onClick={onRemove}
      >
        <TrashIcon />
      </button>
    </>
  );
}

/** A line's text field, with its error under it. */
function LineField({
  label,
  value,
  error,
  draft,
  dataKey,
  onChange,
  onKeyDown,
  onBlur,
}: {
  label: string;
  value: string;
  error: string | undefined;
  draft?: boolean;
  dataKey?: string;
  onChange: (value: string) => void;
  onKeyDown: (event: KeyboardEvent<HTMLInputElement>) => void;
  onBlur: () => void;
}) {
  const errorId = useId();
  return (
    <div className="checklist__field">
      <input
        type="text"
        className="checklist__input"
        aria-label={label}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        data-checklist-key={dataKey}
        data-checklist-draft={draft ? '' : undefined}
        value={value}
        onChange={(event) => onChange(event.currentTarget.value)}
        onKeyDown={onKeyDown}
        onBlur={onBlur}
      />
      {error ? (
        <div id={errorId} className="field__error">
          {error}
        </div>
      ) : null}
    </div>
  );
}

/** The field at the end: Enter adds its text as the last item and clears it for the next. */
function AddItem({
  field,
  value,
  error,
  onChange,
  onKeyDown,
}: {
  field: RefObject<HTMLInputElement | null>;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
  onKeyDown: (event: KeyboardEvent<HTMLInputElement>) => void;
}) {
  const errorId = useId();
  const hintId = useId();
  return (
    <div className="checklist__add">
      <input
        ref={field}
        type="text"
        className="checklist__input field__control"
        aria-label="Add item"
        placeholder="Add item…"
        aria-invalid={error ? true : undefined}
        aria-describedby={[error ? errorId : '', hintId].filter(Boolean).join(' ')}
        value={value}
        onChange={(event) => onChange(event.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <span id={hintId} hidden>
        Enter adds it. In an item: Enter adds one after it, Alt+Up or Alt+Down moves it.
      </span>
      {error ? (
        <div id={errorId} className="field__error">
          {error}
        </div>
      ) : null}
      {value.length > CHECKLIST_ITEM_TEXT_MAX * 0.9 ? (
        <div className="field__hint">
          {value.length} / {CHECKLIST_ITEM_TEXT_MAX}
        </div>
      ) : null}
    </div>
  );
}
