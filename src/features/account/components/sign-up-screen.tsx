// /sign-up — name, email, password. Needs a connection. From local-only use, what is on the
// device is claimed by the new account and uploaded by the sync engine on its own; where the
// project confirms emails first, the screen says to check the inbox instead of moving on.
import { useId, useState } from 'react';

import { Button } from '@/components/ui/button';
import { FormError, TextField } from '@/components/ui/field';
import { useOnline } from '@/hooks/use-online';
import { PASSWORD_RULE, signUp, validateSignUp, type SignUpInput } from '@/lib/auth';
import { Link, useNavigate } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { DISPLAY_NAME_MAX } from '@/data/schema';

import '../account.css';
import { useAccountSubmit } from '../hooks/use-account-submit';
import { withoutError } from '../hooks/use-first-error-focus';
import { useNextPath } from '../hooks/use-next-path';
import { OfflineNotice } from './offline-notice';
import { UnsyncedChangesDialog } from './unsynced-changes-dialog';

export function SignUpScreen() {
  const { supabase } = useServices();
  const { mode } = useSession();
  const online = useOnline();
  const navigate = useNavigate();
  const { next, query } = useNextPath();
  const [values, setValues] = useState<SignUpInput>({ name: '', email: '', password: '' });
  /** Set when the account exists but its email must be confirmed before signing in. */
  const [confirmEmailTo, setConfirmEmailTo] = useState<string | null>(null);
  const ids = { name: useId(), email: useId(), password: useId(), form: useId() };
  // A new account is never the one an expired session's unsynced changes belong to, so the
  // same question is asked before it would delete them.
  const { errors, setErrors, submitting, risk, submit, confirmRisk, cancelRisk } = useAccountSubmit(
    {
      fields: [
        ['name', ids.name],
        ['email', ids.email],
        ['password', ids.password],
        ['_', ids.form],
      ],
      enabled: online,
      check: () => validateSignUp(values),
      send: (value) => signUp(supabase, value),
      onSent: (result, value) => {
        if (result.session) void navigate(next, { replace: true });
        else setConfirmEmailTo(value.email);
      },
    },
  );

  function edit(field: keyof SignUpInput, value: string) {
    setValues((current) => ({ ...current, [field]: value }));
    setErrors((current) => withoutError(current, field));
  }

  if (confirmEmailTo) {
    return (
      <section className="screen screen--narrow account">
        <h1>Check your email to confirm your account</h1>
        <p className="account-lead">
          We sent a link to <strong>{confirmEmailTo}</strong>. Open it, then come back and sign in.
        </p>
        <p className="account-switch">
          <Link to={`/sign-in${query}`}>Go to sign in</Link>
        </p>
      </section>
    );
  }

  return (
    <section className="screen screen--narrow account">
      <h1>Create an account</h1>
      {mode === 'local' ? (
        <p className="account-notice account-notice--info">
          Your lists on this device will be uploaded to your new account.
        </p>
      ) : null}
      {!online ? <OfflineNotice action="Creating an account" next={next} /> : null}
      <form className="account-form card" onSubmit={(event) => void submit(event)} noValidate>
        <div id={ids.form} tabIndex={-1} className="account-form__error">
          <FormError message={errors._} />
        </div>
        <TextField
          id={ids.name}
          label="Name"
          name="name"
          autoComplete="name"
          hint="Shown to people you share lists with."
          maxLength={DISPLAY_NAME_MAX + 20}
          value={values.name}
          error={errors.name}
          onChange={(event) => edit('name', event.target.value)}
        />
        <TextField
          id={ids.email}
          label="Email"
          name="email"
          type="email"
          inputMode="email"
          autoComplete="email"
          autoCapitalize="none"
          spellCheck={false}
          value={values.email}
          error={errors.email}
          onChange={(event) => edit('email', event.target.value)}
        />
        <TextField
          id={ids.password}
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          hint={PASSWORD_RULE}
          value={values.password}
          error={errors.password}
          onChange={(event) => edit('password', event.target.value)}
        />
        <Button
          type="submit"
          variant="primary"
          className="account-form__submit"
          disabled={!online || submitting}
        >
          {submitting ? 'Creating account…' : 'Create account'}
        </Button>
      </form>
      <p className="account-switch">
        Already have an account? <Link to={`/sign-in${query}`}>Sign in</Link>
      </p>
      <UnsyncedChangesDialog
        risk={risk}
        email={values.email.trim()}
        confirmLabel="Create account and discard them"
        onCancel={cancelRisk}
        onConfirm={confirmRisk}
      />
    </section>
  );
}
