// /forgot-password — "Forgot password?" from the sign-in screen: the email address, then a
// "check your inbox" state. GoTrue answers the same whether or not the address has an
// account, and so does this screen. Needs a connection (says so offline and waits for one).
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';

import { Button } from '@/components/ui/button';
import { EmailField } from '@/components/ui/email-field';
import { useOnline } from '@/hooks/use-online';
import { AUTH_MESSAGES, EMAIL_PATTERN } from '@/lib/auth';
import { requestPasswordReset } from '@/lib/auth-email';
import { Link } from '@/lib/router';
import { useServices } from '@/lib/services';

import '../account.css';
import { useNextPath } from '../hooks/use-next-path';
import { AccountFormError, AccountSubmitButton } from './account-form-parts';
import { OfflineNotice } from './offline-notice';

/** The sign-in form's address rule, without its password. */

export function ForgotPasswordScreen() {
  const { supabase } = useServices();
  const online = useOnline();
  const { next, query } = useNextPath();
  const ids = { email: useId(), form: useId() };
  const [email, setEmail] = useState(
    () => new URLSearchParams(window.location.search).get('email') ?? '',
  );
  const [error, setError] = useState<{ field: 'email' | '_'; message: string } | null>(null);
  const [sending, setSending] = useState(false);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const formErrorRef = useRef<HTMLDivElement>(null);
  const sentHeadingRef = useRef<HTMLHeadingElement>(null);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  // The new state's heading takes focus, so a screen reader reads where the person is now.
  useEffect(() => {
    if (sentTo) sentHeadingRef.current?.focus();
  }, [sentTo]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!online || sending) return;
    const address = email.trim();
    if (!address || !EMAIL_PATTERN.test(address)) {
      setError({
        field: 'email',
        message: address ? AUTH_MESSAGES.badEmail : 'Enter your email address.',
      });
      emailRef.current?.focus();
      return;
    }
    setError(null);
    setSending(true);
    const result = await requestPasswordReset(supabase, address);
    if (!mounted.current) return;
    setSending(false);
    if (result.ok) {
      setSentTo(address);
      return;
    }
    const field = result.field === 'email' ? 'email' : '_';
    setError({ field, message: result.message });
    (field === 'email' ? emailRef.current : formErrorRef.current)?.focus();
  }

  if (sentTo) {
    return (
      <section className="screen screen--narrow account">
        <h1 ref={sentHeadingRef} tabIndex={-1}>
          Check your inbox
        </h1>
        <p className="account-lead" role="status">
          If <strong>{sentTo}</strong> has an Outpost account, we sent it a link to choose a new
          password. The link works once and for a limited time.
        </p>
        <p className="account-hint">
          No email? Check your spam folder. You can ask for another link in a minute.
        </p>
        <div className="account-actions">
          <Button size="sm" onClick={() => setSentTo(null)}>
            Use another address or send again
          </Button>
        </div>
        <p className="account-switch">
          <Link to={`/sign-in${query}`}>Back to sign in</Link>
        </p>
      </section>
    );
  }

  return (
    <section className="screen screen--narrow account">
      <h1>Reset your password</h1>
      <p className="account-lead">
        Enter the email you signed up with. We&apos;ll send you a link to choose a new password.
      </p>
      {!online ? <OfflineNotice action="Resetting your password" next={next} /> : null}
      <form className="account-form card" onSubmit={(event) => void submit(event)} noValidate>
        <AccountFormError
          id={ids.form}
          ref={formErrorRef}
          message={error?.field === '_' ? error.message : undefined}
        />
        <EmailField
          ref={emailRef}
          id={ids.email}
          label="Email"
          name="email"
          autoComplete="username"
          value={email}
          error={error?.field === 'email' ? error.message : undefined}
          onChange={(event) => {
            setEmail(event.target.value);
            if (error?.field === 'email') setError(null);
          }}
        />
        <AccountSubmitButton
          online={online}
          busy={sending}
          label="Send reset link"
          busyLabel="Sending…"
        />
      </form>
      <p className="account-switch">
        Remembered it? <Link to={`/sign-in${query}`}>Sign in</Link>
      </p>
    </section>
  );
}
