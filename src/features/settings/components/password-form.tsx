// Settings › Account › Change password: the new password twice, checked as the sign-up
// screen checks it, then sent on the current session. Needs a connection (GoTrue decides),
// and says so offline instead of failing on submit.
import { useId, useRef, useState, type FormEvent } from 'react';

import { NewPasswordFields, withoutEditedErrors } from '@/components/ui/new-password-fields';
import { useOnline } from '@/hooks/use-online';
import { useServices } from '@/lib/services';

import {
  changePassword,
  checkNewPassword,
  type NewPasswordErrors,
  type NewPasswordInput,
} from '../utils/change-password';
import { SettingsForm, SettingsFormSubmit } from './settings-form';

const EMPTY: NewPasswordInput = { password: '', repeat: '' };

export function PasswordForm({ email }: { email: string | null }) {
  const { supabase } = useServices();
  const online = useOnline();
  const ids = { password: useId(), repeat: useId() };
  const passwordRef = useRef<HTMLInputElement>(null);
  const repeatRef = useRef<HTMLInputElement>(null);
  const [values, setValues] = useState<NewPasswordInput>(EMPTY);
  const [errors, setErrors] = useState<NewPasswordErrors>({});
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  function edit(field: keyof NewPasswordInput, value: string) {
    setValues((current) => ({ ...current, [field]: value }));
    // The edited field's error and the form's go; the other field's stays until submit.
    setErrors((current) => withoutEditedErrors(current, field));
    setStatus('');
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!online || busy) return;
    const found = checkNewPassword(values);
    setErrors(found);
    setStatus('');
    const first = found.password ? 'password' : found.repeat ? 'repeat' : null;
    if (first) {
      (first === 'password' ? passwordRef : repeatRef).current?.focus();
      return;
    }
    setBusy(true);
    const result = await changePassword(supabase, values.password);
    setBusy(false);
    if (!result.ok) {
      setErrors(result.field ? { [result.field]: result.message } : { _: result.message });
      if (result.field) (result.field === 'password' ? passwordRef : repeatRef).current?.focus();
      return;
    }
    setValues(EMPTY);
    setStatus(
      'Password changed. Other devices signed in to this account will need to sign in again.',
    );
  }

  return (
    <SettingsForm title="Change password" onSubmit={submit}>
      <NewPasswordFields
        email={email}
        ids={ids}
        passwordRef={passwordRef}
        repeatRef={repeatRef}
        values={values}
        errors={errors}
        disabled={busy}
        onEdit={edit}
      />
      <SettingsFormSubmit
        online={online}
        busy={busy}
        label="Change password"
        busyLabel="Changing…"
        error={errors._}
        offlineHint="Changing your password"
      >
        <span className="settings-muted" role="status">
          {status}
        </span>
      </SettingsFormSubmit>
    </SettingsForm>
  );
}
