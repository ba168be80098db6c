// Settings › Account › Change password: the new password twice, checked as the sign-up
// screen checks it, then sent on the current session. Needs a connection (GoTrue decides),
// and says so offline instead of failing on submit.
import { useId, useRef, useState, type FormEvent } from 'react';

import { Button } from '@/components/ui/button';
import { FormError, TextField } from '@/components/ui/field';
import { useOnline } from '@/hooks/use-online';
import { PASSWORD_RULE } from '@/lib/auth';
import { useServices } from '@/lib/services';

import {
  changePassword,
  checkNewPassword,
  type NewPasswordErrors,
  type NewPasswordInput,
} from '../utils/change-password';

const EMPTY: NewPasswordInput = { password: '', repeat: '' };

export function PasswordForm({ email }: { email: string | null }) {
  const { supabase } = useServices();
  const online = useOnline();
  const ids = { password: useId(), repeat: useId(), hint: useId() };
  const passwordRef = useRef<HTMLInputElement>(null);
  const repeatRef = useRef<HTMLInputElement>(null);
  const [values, setValues] = useState<NewPasswordInput>(EMPTY);
  const [errors, setErrors] = useState<NewPasswordErrors>({});
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  function edit(field: keyof NewPasswordInput, value: string) {
    setValues((current) => ({ ...current, [field]: value }));
    // The edited field's error and the form's go; the other field's stays until submit.
    setErrors((current) => {
      const others = { ...current };
      delete others[field];
      delete others._;
      return others;
    });
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
    <form
      className="settings-form"
      aria-labelledby={`${ids.hint}-title`}
      onSubmit={(event) => void submit(event)}
      noValidate
    >
      <h3 id={`${ids.hint}-title`} className="settings-form__title">
        Change password
      </h3>
      {/* Lets a password manager file the new password under the right account. */}
      {email ? (
        <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
      ) : null}
      <TextField
        ref={passwordRef}
        id={ids.password}
        label="New password"
        type="password"
        name="new-password"
        autoComplete="new-password"
        value={values.password}
        error={errors.password}
        hint={PASSWORD_RULE}
        disabled={busy}
        onChange={(event) => edit('password', event.target.value)}
      />
      <TextField
        ref={repeatRef}
        id={ids.repeat}
        label="Repeat new password"
        type="password"
        name="repeat-password"
        autoComplete="new-password"
        value={values.repeat}
        error={errors.repeat}
        disabled={busy}
        onChange={(event) => edit('repeat', event.target.value)}
      />
      <FormError message={errors._} />
      <div className="settings-actions">
        <Button
          type="submit"
          variant="primary"
          disabled={!online || busy}
          aria-describedby={online ? undefined : ids.hint}
        >
          {busy ? 'Changing…' : 'Change password'}
        </Button>
        <span className="settings-muted" role="status">
          {status}
        </span>
      </div>
      {online ? null : (
        <p id={ids.hint} className="settings-muted">
          Changing your password needs a connection. It works again once you&apos;re online.
        </p>
      )}
    </form>
  );
}
