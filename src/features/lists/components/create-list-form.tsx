// "New list": a name and a colour, in the new-list dialog. Opens the new list at once (it
// exists on this device immediately; the server hears of it when there is a connection).
import { useId, useState } from 'react';

import { Button } from '@/components/ui/button';
import { FormError, TextField } from '@/components/ui/field';
import { useNavigate } from '@/lib/router';
import { useServices } from '@/lib/services';
import { attempt } from '@/data/writes';
import { charactersLeft } from '@/utils/format';
import { LIST_NAME_MAX, listInput, type ListColor } from '@/data/schema';
import { validate, type FieldErrors } from '@sync/index';

import { ColorPicker } from './color-picker';

/** `onDone`: the form is finished with (created, or cancelled). */
export function CreateListForm({ onDone }: { onDone: () => void }) {
  const { sync } = useServices();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [color, setColor] = useState<ListColor>('teal');
  const [errors, setErrors] = useState<FieldErrors>({});
  const nameId = useId();

  /** Puts the cursor where the problem is (a refused name), ready to fix. */
  function showErrors(next: FieldErrors) {
    setErrors(next);
    if (next.name) document.getElementById(nameId)?.focus();
  }

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    const checked = validate(listInput, { name, color });
    if (!checked.ok) {
      showErrors(checked.errors);
      return;
    }
    const result = await attempt(() => sync.repos.lists.create(checked.value), { creates: true });
    if (!result.ok) {
      showErrors(result.errors);
      return;
    }
    onDone();
    void navigate(`/lists/${result.value}`);
  }

  const remaining = LIST_NAME_MAX - name.trim().length;
  return (
    <form className="lists-create" onSubmit={(event) => void submit(event)} noValidate>
      <FormError message={errors._} />
      <TextField
        id={nameId}
        label="List name"
        name="name"
        value={name}
        placeholder="e.g. Site visit — Block C"
        autoComplete="off"
        // The dialog's first field; said outright for browsers without a dialog's own focus.
        autoFocus
        maxLength={LIST_NAME_MAX + 20}
        error={errors.name}
        hint={remaining < 20 ? charactersLeft(name.trim().length, LIST_NAME_MAX) : undefined}
        onChange={(event) => {
          setName(event.target.value);
          if (errors.name) setErrors({});
        }}
      />
      <ColorPicker value={color} onChange={setColor} />
      <div className="dialog__actions">
        <Button onClick={onDone}>Cancel</Button>
        <Button type="submit" variant="primary">
          Create list
        </Button>
      </div>
    </form>
  );
}
