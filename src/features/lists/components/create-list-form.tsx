// "New list": a name and a colour. Opens the new list at once (it exists on this device
// immediately; the server hears of it when there is a connection).
import { useId, useState, type Ref } from 'react';
import { useNavigate } from 'react-router';

import { Button } from '@/components/ui/button';
import { FormError, TextField } from '@/components/ui/field';
import { useServices } from '@/lib/services';
import { attempt } from '@/lib/writes';
import { charactersLeft } from '@/utils/format';
import { LIST_NAME_MAX, listInput, validate, type FieldErrors, type ListColor } from '@sync/index';

import { ColorPicker } from './color-picker';

export function CreateListForm({ inputRef }: { inputRef?: Ref<HTMLInputElement> }) {
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
    setName('');
    setErrors({});
    void navigate(`/lists/${result.value}`);
  }

  const remaining = LIST_NAME_MAX - name.trim().length;
  return (
    <form className="lists-create card" onSubmit={(event) => void submit(event)} noValidate>
      <h2 className="lists-create__title">New list</h2>
      <FormError message={errors._} />
      <TextField
        ref={inputRef}
        id={nameId}
        label="List name"
        name="name"
        value={name}
        placeholder="e.g. Site visit — Block C"
        autoComplete="off"
        maxLength={LIST_NAME_MAX + 20}
        error={errors.name}
        hint={remaining < 20 ? charactersLeft(name.trim().length, LIST_NAME_MAX) : undefined}
        onChange={(event) => {
          setName(event.target.value);
          if (errors.name) setErrors({});
        }}
      />
      <ColorPicker value={color} onChange={setColor} />
      <Button type="submit" variant="primary">
        Create list
      </Button>
    </form>
  );
}
