// Settings › Account › Change email: the new address, then a "check your inbox" state. GoTrue
// keeps the current address until the change is confirmed: with secure email change (the
// default) it mails a link to both addresses, and the address changes once the link(s) are
// opened (src/features/account/components/email-link-screen.tsx). Needs a connection.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';

import { Button } from '@/components/ui/button';
import { EmailField } from '@/components/ui/email-field';
import { useOnline } from '@/hooks/use-online';
import { AUTH_MESSAGES, EMAIL_PATTERN } from '@/lib/auth';
import { requestEmailChange } from '@/lib/auth-email';
import { useServices } from '@/lib/services';

import { SettingsForm, SettingsFormSubmit } from './settings-form';

export function EmailForm({ email }: { email: string | null }) {
  const { supabase } = useServices();
  const online = useOnline();
  const ids = { email: useId(), title: useId() };
  const inputRef = useRef<HTMLInputElement>(null);
  const sentRef = useRef<HTMLParagraphElement>(null);
  const [value, setValue] = useState('');
  const [error, setError] = useState<{ field: 'email' | '_'; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [sentTo, setSentTo] = useState<string | null>(null);

  useEffect(() => {
    if (sentTo) sentRef.current?.focus();
  }, [sentTo]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!online || busy) return;
    const address = value.trim();
    if (!address) {
      setError({ field: 'email', message: 'Enter the new email address.' });
      inputRef.current?.focus();
      return;
    }
    if (!EMAIL_PATTERN.test(address)) {
      setError({ field: 'email', message: AUTH_MESSAGES.badEmail });
      inputRef.current?.focus();
      return;
    }
    if (email && address.toLowerCase() === email.toLowerCase()) {
      setError({ field: 'email', message: "That's already your email address." });
      inputRef.current?.focus();
      return;
    }
    setError(null);
    setBusy(true);
    const result = await requestEmailChange(supabase, address);
    setBusy(false);
    if (result.ok) {
      setValue('');
      setSentTo(address);
      return;
    }
    setError({ field: result.field ?? '_', message: result.message });
    if (result.field) inputRef.current?.focus();
  }

  if (sentTo) {
    return (
      <div className="settings-form" role="group" aria-labelledby={ids.title}>
        <h3 id={ids.title} className="settings-form__title">
          Change email
        </h3>
        <p ref={sentRef} tabIndex={-1} role="status">
          Check your inbox at both addresses: we sent a confirmation link to{' '}
          <strong>{sentTo}</strong>
          {email ? (
            <>
              {' '}
              and to <strong>{email}</strong>
            </>
          ) : null}
          . Your email stays {email ?? 'as it is'} until the change is confirmed.
        </p>
        <div className="settings-actions">
          <Button size="sm" onClick={() => setSentTo(null)}>
            Use a different address
          </Button>
        </div>
      </div>
    );
  }

  return (
    <SettingsForm title="Change email" onSubmit={submit}>
      <EmailField
        ref={inputRef}
        id={ids.email}
        label="New email"
        name="new-email"
        autoComplete="email"
        value={value}
        error={error?.field === 'email' ? error.message : undefined}
        hint="We'll send a link to confirm it. Your email changes once it's confirmed."
        disabled={busy}
        onChange={(event) => {
          setValue(event.target.value);
          setError(null);
        }}
      />
      <SettingsFormSubmit
        online={online}
        busy={busy}
        label="Change email"
        busyLabel="Sending…"
        error={error?.field === '_' ? error.message : undefined}
        offlineHint="Changing your email"
      />
    </SettingsForm>
  );
}
