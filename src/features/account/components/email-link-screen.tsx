// /email-confirmed — where a confirmation mail's link lands: a sign-up's confirmation, an
// email change (GoTrue answers the first of its two links with a message, the last with a
// session for the new address), or a magic link. The session is taken from the URL once and
// the URL cleaned; the person is then signed in with the confirmed address. Offline it waits.
import { useEffect, useRef, useState } from 'react';

import { useOnline } from '@/hooks/use-online';
import {
  EMAIL_MESSAGES,
  forgetLinkAnswer,
  readLinkAnswer,
  signInWithLink,
  type LinkAnswer,
} from '@/lib/auth-email';
import { Link } from '@/lib/router';
import { useServices } from '@/lib/services';

import '../account.css';
import { OfflineNotice } from './offline-notice';

type Stage =
  | { kind: 'checking' }
  | { kind: 'done'; email: string | null; type: string }
  | { kind: 'first-of-two' }
  | { kind: 'failed'; message: string };

/** What the screen shows first, from the link alone (a session needs GoTrue: 'checking'). */
function firstStage(answer: LinkAnswer): Stage {
  if (answer.kind === 'message') return { kind: 'first-of-two' };
  if (answer.kind === 'error') return { kind: 'failed', message: EMAIL_MESSAGES.linkInvalid };
  if (answer.kind === 'none') {
    return { kind: 'failed', message: 'This page opens from a link in an email.' };
  }
  return { kind: 'checking' };
}

function doneText(type: string, email: string | null): string {
  const address = email ?? 'your address';
  if (type === 'email_change') return `Your email address is now ${address}.`;
  if (type === 'signup' || type === 'invite') return `${address} is confirmed. You're signed in.`;
  return `You're signed in as ${address}.`;
}

export function EmailLinkScreen() {
  const { supabase } = useServices();
  const online = useOnline();
  const [answer] = useState(() => readLinkAnswer(window.location));
  const [stage, setStage] = useState<Stage>(() => firstStage(answer));
  const started = useRef(false);
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    if (answer.kind !== 'none') forgetLinkAnswer();
  }, [answer]);

  useEffect(() => {
    if (started.current || (answer.kind !== 'session' && answer.kind !== 'token-hash')) return;
    if (!online) return;
    started.current = true;
    void signInWithLink(supabase, answer).then((result) =>
      setStage(
        result.ok
          ? { kind: 'done', email: result.email, type: answer.type }
          : { kind: 'failed', message: result.message },
      ),
    );
  }, [answer, online, supabase]);

  useEffect(() => {
    if (stage.kind !== 'checking') headingRef.current?.focus();
  }, [stage.kind]);

  const title =
    stage.kind === 'done'
      ? 'Email confirmed'
      : stage.kind === 'failed'
        ? 'Link not valid'
        : 'Confirming your email';
  return (
    <section className="screen screen--narrow account">
      <h1 ref={headingRef} tabIndex={-1}>
        {title}
      </h1>
      {stage.kind === 'checking' && !online ? (
        <OfflineNotice action="Confirming your email" next="/lists" />
      ) : null}
      <div role="status">
        {stage.kind === 'checking' ? (
          <p className="account-lead">
            {online ? 'Checking your link…' : 'Your link is kept until you are back online.'}
          </p>
        ) : null}
        {stage.kind === 'first-of-two' ? (
          <p className="account-lead">{EMAIL_MESSAGES.firstOfTwo}</p>
        ) : null}
        {stage.kind === 'done' ? (
          <p className="account-lead">{doneText(stage.type, stage.email)}</p>
        ) : null}
      </div>
      {stage.kind === 'failed' ? (
        <p className="account-notice" role="alert">
          {stage.message}
        </p>
      ) : null}
      {stage.kind === 'done' || stage.kind === 'first-of-two' ? (
        <p className="account-switch">
          <Link to="/lists">Go to your lists</Link> · <Link to="/settings#account">Settings</Link>
        </p>
      ) : null}
      {stage.kind === 'failed' ? (
        <p className="account-switch">
          <Link to="/sign-in">Sign in</Link>
        </p>
      ) : null}
    </section>
  );
}
