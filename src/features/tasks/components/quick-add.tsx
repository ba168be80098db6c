// "Add a task": Enter adds it at the end of the list and leaves the field empty and
// focused for the next one, the way a checklist is typed in. Dates, repeats, priority and
// assignees typed with the title ("Call the engineer tomorrow !high @bob") are understood
// (quick-add-parse.ts) and shown as chips under the field; removing a chip keeps its words
// in the title.
import { useLayoutEffect, useMemo, useRef, useState, type FormEvent, type Ref } from 'react';

import { taskPatch } from '@/data/schema';
import { validate } from '@sync/index';
import { Button } from '@/components/ui/button';
import { TextField } from '@/components/ui/field';
import { useMembers } from '@/hooks/use-members';
import { useNow } from '@/hooks/use-now';
import { useServices } from '@/lib/services';
import { attempt } from '@/data/writes';
import { todayIso } from '@/utils/format';

import { parseQuickAdd, type QuickAddResult } from '../quick-add-parse';

/** What is typed, and the keys of the chips removed from it. */
interface Draft {
  text: string;
  ignore: readonly string[];
}

const EMPTY: Draft = { text: '', ignore: [] };

/** The status line after an add: the title, then what was understood. */
function addedText(parsed: QuickAddResult): string {
  return [`Added “${parsed.title}”`, ...parsed.tokens.map((token) => token.label)].join(' · ');
}

export function QuickAdd({
  listId,
  inputRef,
  onAdded,
}: {
  listId: string;
  inputRef: Ref<HTMLInputElement>;
  /** The new task's id, once it is written. */
  onAdded?: (taskId: string) => void;
}) {
  const { sync } = useServices();
  const members = useMembers(listId);
  const today = todayIso(useNow(60_000));
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [error, setError] = useState<string | undefined>();
  const [added, setAdded] = useState('');
  const formRef = useRef<HTMLFormElement>(null);
  const chipsRef = useRef<HTMLUListElement>(null);
  // Which chip takes focus once a removed one has gone (its place, or the one before).
  const focusChip = useRef<number | null>(null);

  // Members can be @-named by their own names only: "You" and "Member" stand in for names
  // that have not reached this device.
  const named = useMemo(
    () =>
      (members ?? [])
        .filter((member) => member.named)
        .map((member) => ({ id: member.userId, name: member.name })),
    [members],
  );
  const parsed = useMemo(
    () =>
      parseQuickAdd(draft.text, {
        today,
        locale: navigator.language,
        members: named,
        ignore: draft.ignore,
      }),
    [draft, today, named],
  );

  useLayoutEffect(() => {
    const index = focusChip.current;
    if (index === null) return;
    focusChip.current = null;
    const chips = chipsRef.current?.querySelectorAll('button') ?? [];
    const chip = chips[Math.min(index, chips.length - 1)];
    (chip ?? formRef.current?.querySelector('input'))?.focus();
  }, [parsed]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const { title, due_on, repeat, priority, assignee_id } = parsed;
    const input = { title, due_on, repeat, priority, assignee_id };
    const checked = validate(taskPatch, input);
    if (!checked.ok) {
      // "Added …" was about an earlier task; next to an error it would read as this one's.
      setAdded('');
      setError(checked.errors.title ?? checked.errors._ ?? Object.values(checked.errors)[0]);
      return;
    }
    // Cleared at once so typing the next task right away is never overwritten.
    const typed = draft;
    setDraft(EMPTY);
    setError(undefined);
    const result = await attempt(() => sync.repos.tasks.create(listId, input), { creates: true });
    if (result.ok) {
      setAdded(addedText(parsed));
      onAdded?.(result.value);
    } else {
      setAdded('');
      setDraft((now) => (now.text === '' ? typed : now));
      setError(result.errors.title ?? result.errors._ ?? "Couldn't add the task.");
    }
  }

  return (
    <form
      ref={formRef}
      className="tasks-quick-add"
      onSubmit={(event) => void submit(event)}
      noValidate
    >
      <div className="tasks-quick-add__row">
        <TextField
          ref={inputRef}
          label="Add a task"
          hideLabel
          placeholder="Add a task…"
          autoComplete="off"
          value={draft.text}
          error={error}
          onChange={(event) => {
            const text = event.currentTarget.value;
            // A removed chip stays removed while its words are edited; a new task starts afresh.
            setDraft((now) => ({ text, ignore: text.trim() ? now.ignore : [] }));
            if (error) setError(undefined);
          }}
        />
        <Button type="submit" variant="primary">
          Add
        </Button>
      </div>
      <div className="tasks-quick-add__meta">
        {parsed.tokens.length ? (
          <ul ref={chipsRef} className="quick-add-chips" aria-label="Understood">
            {parsed.tokens.map((token, index) => (
              <li key={token.key}>
                <button
                  type="button"
                  className="quick-add-chip"
                  aria-label={`Remove ${token.label}`}
                  onClick={() => {
                    focusChip.current = index;
                    setDraft((now) => ({ ...now, ignore: [...now.ignore, token.key] }));
                  }}
                >
                  {token.label}
                  <span className="quick-add-chip__remove" aria-hidden="true">
                    ×
                  </span>
                </button>
              </li>
            ))}
          </ul>
        ) : null}
        <p className="tasks-quick-add__status" role="status" title={added || undefined}>
          {added}
        </p>
      </div>
    </form>
  );
}
