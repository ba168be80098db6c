// /sign-in — email and password. Needs a connection (says so offline and waits for one);
// after an expired session it names the changes waiting to sync; and it asks before a
// different account's sign-in would delete this device's unsynced changes.
import { useId, useState } from 'react';

import { EmailField } from '@/components/ui/email-field';
import { TextField } from '@/components/ui/field';
import { useOnline } from '@/hooks/use-online';
import { useSyncStatus } from '@/hooks/use-sync-status';
import { deviceOwnerEmail, signIn, validateSignIn } from '@/lib/auth';
import { Link, useNavigate } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

import '../account.css';
import { useAccountSubmit } from '../hooks/use-account-submit';
import { withoutError } from '../hooks/use-first-error-focus';
import { useNextPath } from '../hooks/use-next-path';
import { AccountFormError, AccountSubmitButton } from './account-form-parts';
import { OfflineNotice } from './offline-notice';
import { UnsyncedChangesDialog } from './unsynced-changes-dialog';

// The email flows' screens travel in this screen's chunk (src/app/routes.tsx).
export { EmailFlowRoute } from './email-link-routes';

function waitingText(pending: number): string {
  if (pending === 0) return 'Your session ended. Sign in again to sync.';
  const changes =
    pending === 1 ? '1 waiting change' : `${pending.toLocaleString()} waiting changes`;
  return `Your session ended. Sign in again to sync ${changes}.`;
}

/** The reset screen, with the address typed so far (and where to go after signing in). */
function forgotPath(email: string, query: string): string {
  const params = new URLSearchParams(query);
  if (email.trim()) params.set('email', email.trim());
  const text = params.toString();
  return `/forgot-password${text ? `?${text}` : ''}`;
}

export function SignInScreen() {
  const { supabase } = useServices();
  const session = useSession();
  const online = useOnline();
  const { pending } = useSyncStatus();
  const navigate = useNavigate();
  const { next, query } = useNextPath();
  const expired = session.mode === 'expired';

  // null until typed in: an expired session's email is filled in once the mode is known.
  const [typedEmail, setTypedEmail] = useState<string | null>(null);
  const email = typedEmail ?? (expired ? (deviceOwnerEmail() ?? '') : '');
  const [password, setPassword] = useState('');
  const ids = { email: useId(), password: useId(), form: useId() };
  const { errors, setErrors, submitting, risk, submit, confirmRisk, cancelRisk } = useAccountSubmit(
    {
      fields: [
        ['email', ids.email],
        ['password', ids.password],
        ['_', ids.form],
      ],
      enabled: online,
      check: () => validateSignIn({ email, password }),
      send: (value) => signIn(supabase, value.email, value.password),
      onSent: () => void navigate(next, { replace: true }),
    },
  );

  return (
    <section className="screen screen--narrow account">
      <h1>Sign in</h1>
      {expired ? (
        <p className="account-notice account-notice--info">{waitingText(pending)}</p>
      ) : null}
      {session.mode === 'signed-in' && session.user?.email ? (
        <p className="account-lead">
          You&apos;re signed in as {session.user.email}. Signing in with another account replaces it
          on this device.
        </p>
      ) : null}
      {!online ? <OfflineNotice action="Signing in" next={next} /> : null}
      <form className="account-form card" onSubmit={(event) => void submit(event)} noValidate>
        <AccountFormError id={ids.form} message={errors._} />
        <EmailField
          id={ids.email}
          label="Email"
          name="email"
          autoComplete="username"
          value={email}
          error={errors.email}
          onChange={(event) => {
            setTypedEmail(event.target.value);
            setErrors((current) => withoutError(current, 'email'));
          }}
        />
        <TextField
          id={ids.password}
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          error={errors.password}
          onChange={(event) => {
            setPassword(event.target.value);
            setErrors((current) => withoutError(current, 'password'));
          }}
        />
        <AccountSubmitButton
          online={online}
          busy={submitting}
          label="Sign in"
          busyLabel="Signing in…"
        />
      </form>
      <p className="account-switch">
        <Link to={forgotPath(email, query)}>Forgot password?</Link>
      </p>
      <p className="account-switch">
        New to Outpost? <Link to={`/sign-up${query}`}>Create an account</Link>
      </p>
      <UnsyncedChangesDialog
        risk={risk}
        email={email.trim()}
        confirmLabel="Sign in and discard them"
        onCancel={cancelRisk}
        onConfirm={confirmRisk}
      />
    </section>
  );
}
