// /reset-password — where a reset mail's link lands (GoTrue's /verify redirects here with the
// recovery session in the fragment; a project whose template links here with ?token_hash=
// works too). The session is taken from the URL once, the URL is cleaned (the tokens are a
// live session), then the new password is asked for twice; afterwards the person is signed
// in. A cold start works as any route does: the service worker answers every navigation with
// the app, and the fragment never leaves the browser. Offline it waits for a connection.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';

import {
  NewPasswordFields,
  withoutEditedErrors,
  type NewPasswordField,
  type NewPasswordFieldErrors,
} from '@/components/ui/new-password-fields';
import { useOnline } from '@/hooks/use-online';
import { checkNewPassword } from '@/lib/new-password';
import {
  EMAIL_MESSAGES,
  forgetLinkAnswer,
  readLinkAnswer,
  setNewPassword,
  signInWithLink,
  type LinkAnswer,
} from '@/lib/auth-email';
import { Link, useNavigate } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';

import '../account.css';
import { useUnsyncedGuard, type UnsyncedRisk } from '../hooks/use-unsynced-guard';
import { AccountFormError, AccountSubmitButton } from './account-form-parts';
import { OfflineNotice } from './offline-notice';
import { UnsyncedChangesDialog } from './unsynced-changes-dialog';

type Stage =
  | { kind: 'checking' }
  | { kind: 'asking'; risk: UnsyncedRisk; email: string }
  | { kind: 'form'; email: string | null }
  | { kind: 'failed'; message: string };

/** The email a link's access token names (to ask before another account's changes go). */
function tokenEmail(answer: LinkAnswer): string {
  if (answer.kind !== 'session') return '';
  try {
    const payload = answer.accessToken.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const email = (JSON.parse(json) as { email?: unknown }).email;
    return typeof email === 'string' ? email : '';
  } catch {
    return '';
  }
}

type Errors = NewPasswordFieldErrors;

/** What the screen shows first, from the link alone (a session needs GoTrue: 'checking'). */
function firstStage(answer: LinkAnswer, signedInAs: string | null | undefined): Stage {
  if (answer.kind === 'error') return { kind: 'failed', message: EMAIL_MESSAGES.linkInvalid };
  if (answer.kind === 'none' || answer.kind === 'message') {
    // Back on this screen without a link (a reload): a signed-in person may still choose.
    return signedInAs !== undefined
      ? { kind: 'form', email: signedInAs }
      : { kind: 'failed', message: EMAIL_MESSAGES.linkMissing };
  }
  return { kind: 'checking' };
}

export function ResetPasswordScreen() {
  const { supabase } = useServices();
  const session = useSession();
  const online = useOnline();
  const navigate = useNavigate();
  const guard = useUnsyncedGuard();
  // Read once, before the URL is cleaned.
  const [answer] = useState(() => readLinkAnswer(window.location));
  const signedIn = session.mode === 'signed-in';
  const [stage, setStage] = useState<Stage>(() =>
    firstStage(answer, signedIn ? (session.user?.email ?? null) : undefined),
  );
  const started = useRef(false);
  const ids = { password: useId(), repeat: useId(), form: useId() };
  const passwordRef = useRef<HTMLInputElement>(null);
  const repeatRef = useRef<HTMLInputElement>(null);
  const formErrorRef = useRef<HTMLDivElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [values, setValues] = useState({ password: '', repeat: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (answer.kind !== 'none') forgetLinkAnswer();
  }, [answer]);

  async function signIn() {
    const result = await signInWithLink(supabase, answer);
    setStage(
      result.ok
        ? { kind: 'form', email: result.email }
        : { kind: 'failed', message: result.message },
    );
  }

  useEffect(() => {
    if (started.current || stage.kind !== 'checking') return;
    // The link's session needs GoTrue: wait for a connection.
    if (!online) return;
    started.current = true;
    void (async () => {
      const email = tokenEmail(answer);
      const risk = email ? await guard(email) : null;
      if (risk) setStage({ kind: 'asking', risk, email });
      else await signIn();
    })();
    // signIn reads only what these name.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [answer, online, stage.kind]);

  useEffect(() => {
    if (stage.kind === 'form') passwordRef.current?.focus();
    else if (stage.kind === 'failed') headingRef.current?.focus();
  }, [stage.kind]);

  function edit(field: NewPasswordField, value: string) {
    setValues((current) => ({ ...current, [field]: value }));
    setErrors((current) => withoutEditedErrors(current, field));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!online || saving) return;
    const found = checkNewPassword(values);
    setErrors(found);
    if (found.password || found.repeat) {
      (found.password ? passwordRef : repeatRef).current?.focus();
      return;
    }
    setSaving(true);
    const result = await setNewPassword(supabase, values.password);
    setSaving(false);
    if (result.ok) {
      void navigate('/lists', { replace: true });
      return;
    }
    const field = result.field === 'password' ? 'password' : '_';
    setErrors({ [field]: result.message });
    (field === 'password' ? passwordRef.current : formErrorRef.current)?.focus();
  }

  if (stage.kind === 'failed') {
    return (
      <section className="screen screen--narrow account">
        <h1 ref={headingRef} tabIndex={-1}>
          Reset your password
        </h1>
        <p className="account-notice" role="alert">
          {stage.message}
        </p>
        <p className="account-switch">
          <Link to="/forgot-password">Send a new link</Link> · <Link to="/sign-in">Sign in</Link>
        </p>
      </section>
    );
  }

  return (
    <section className="screen screen--narrow account">
      <h1>Choose a new password</h1>
      {!online ? <OfflineNotice action="Setting a new password" next="/lists" /> : null}
      {stage.kind === 'checking' || stage.kind === 'asking' ? (
        <p className="account-lead" role="status">
          {online ? 'Checking your link…' : 'Your link is kept until you are back online.'}
        </p>
      ) : (
        <form className="account-form card" onSubmit={(event) => void submit(event)} noValidate>
          {stage.email ? (
            <p className="account-lead">
              For <strong>{stage.email}</strong>.
            </p>
          ) : null}
          <AccountFormError id={ids.form} ref={formErrorRef} message={errors._} />
          <NewPasswordFields
            email={stage.email}
            ids={ids}
            passwordRef={passwordRef}
            repeatRef={repeatRef}
            values={values}
            errors={errors}
            disabled={saving}
            onEdit={edit}
          />
          <AccountSubmitButton
            online={online}
            busy={saving}
            label="Save new password"
            busyLabel="Saving…"
          />
        </form>
      )}
      <UnsyncedChangesDialog
        risk={stage.kind === 'asking' ? stage.risk : null}
        email={stage.kind === 'asking' ? stage.email : ''}
        confirmLabel="Sign in and discard them"
        onCancel={() =>
          setStage({
            kind: 'failed',
            message:
              'Nothing changed on this device. Sign in to sync its changes first, then ask for a new link.',
          })
        }
        onConfirm={() => {
          setStage({ kind: 'checking' });
          void signIn();
        }}
      />
    </section>
  );
}
