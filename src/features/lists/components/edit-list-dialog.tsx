// Rename and recolour a list (owners and editors). One save writes both changes.
import { useId, useState } from 'react';

import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FormError, TextField } from '@/components/ui/field';
import { useServices } from '@/lib/services';
import { attempt } from '@/data/writes';
import { listInput, type ListColor } from '@/data/schema';
import { validate, type FieldErrors } from '@sync/index';

import { ColorPicker } from './color-picker';

export function EditListDialog({
  list,
  onClose,
}: {
  list: { id: string; name: string; color: ListColor };
  onClose: () => void;
}) {
  const { sync } = useServices();
  const [name, setName] = useState(list.name);
  const [color, setColor] = useState<ListColor>(list.color);
  const [errors, setErrors] = useState<FieldErrors>({});
  const nameId = useId();

  /** Puts the cursor where the problem is (a refused name), ready to fix. */
  function showErrors(next: FieldErrors) {
    setErrors(next);
    if (next.name) document.getElementById(nameId)?.focus();
  }

  async function save(event: React.FormEvent) {
    event.preventDefault();
    const checked = validate(listInput, { name, color });
    if (!checked.ok) {
      showErrors(checked.errors);
      return;
    }
    if (checked.value.name !== list.name) {
      const renamed = await attempt(() => sync.repos.lists.rename(list.id, checked.value.name));
      if (!renamed.ok) return showErrors(renamed.errors);
    }
    if (checked.value.color !== list.color) {
      const recoloured = await attempt(() =>
        sync.repos.lists.recolor(list.id, checked.value.color),
      );
      if (!recoloured.ok) return showErrors(recoloured.errors);
    }
    onClose();
  }

  return (
    <Dialog open title="Edit list" onClose={onClose}>
      <form onSubmit={(event) => void save(event)} noValidate>
        <FormError message={errors._} />
        <TextField
          id={nameId}
          label="List name"
          value={name}
          error={errors.name}
          autoComplete="off"
          autoFocus
          onChange={(event) => {
            setName(event.target.value);
            if (errors.name) setErrors({});
          }}
        />
        <ColorPicker value={color} onChange={setColor} />
        <div className="dialog__actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary">
            Save
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
