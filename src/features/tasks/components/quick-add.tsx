// "Add a task": Enter adds it at the end of the list and leaves the field empty and
// focused for the next one, the way a checklist is typed in.
import { useState, type FormEvent, type Ref } from 'react';

import { taskPatch } from '@/data/schema';
import { validate } from '@sync/index';
import { Button } from '@/components/ui/button';
import { TextField } from '@/components/ui/field';
import { useServices } from '@/lib/services';
import { attempt } from '@/data/writes';

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
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [added, setAdded] = useState('');

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const checked = validate(taskPatch, { title });
    if (!checked.ok) {
      // "Added …" was about an earlier task; next to an error it would read as this one's.
      setAdded('');
      setError(checked.errors.title ?? checked.errors._);
      return;
    }
    // Cleared at once so typing the next task right away is never overwritten.
    const typed = title;
    setTitle('');
    setError(undefined);
    const result = await attempt(() => sync.repos.tasks.create(listId, { title: typed }), {
      creates: true,
    });
    if (result.ok) {
      setAdded(`Added “${typed.trim()}”`);
      onAdded?.(result.value);
    } else {
      setAdded('');
      setTitle((now) => (now === '' ? typed : now));
      setError(result.errors.title ?? result.errors._ ?? "Couldn't add the task.");
    }
  }

  return (
    <form className="tasks-quick-add" onSubmit={(event) => void submit(event)} noValidate>
      <div className="tasks-quick-add__row">
        <TextField
          ref={inputRef}
          label="Add a task"
          hideLabel
          placeholder="Add a task…"
          autoComplete="off"
          value={title}
          error={error}
          onChange={(event) => {
            setTitle(event.currentTarget.value);
            if (error) setError(undefined);
          }}
        />
        <Button type="submit" variant="primary">
          Add
        </Button>
      </div>
      <p className="tasks-quick-add__status" role="status" title={added || undefined}>
        {added}
      </p>
    </form>
  );
}
