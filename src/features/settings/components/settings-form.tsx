// The frame of a Settings form that needs GoTrue (change email, change password): the form
// named by its heading, and at its foot the form's own error, the submit button, and offline
// the reason it is disabled, tied to the button so a screen reader hears why instead of
// meeting a dead control.
import { useId, type FormEvent, type ReactNode } from 'react';

import { Button } from '@/components/ui/button';
import { FormError } from '@/components/ui/field';

export function SettingsForm({
  title,
  onSubmit,
  children,
}: {
  title: string;
  onSubmit: (event: FormEvent) => Promise<void>;
  children: ReactNode;
}) {
  const titleId = useId();
  return (
    <form
      className="settings-form"
      aria-labelledby={titleId}
      onSubmit={(event) => void onSubmit(event)}
      noValidate
    >
      <h3 id={titleId} className="settings-form__title">
        {title}
      </h3>
      {children}
    </form>
  );
}

export function SettingsFormSubmit({
  online,
  busy,
  label,
  busyLabel,
  error,
  offlineHint,
  children,
}: {
  online: boolean;
  busy: boolean;
  label: string;
  busyLabel: string;
  /** The form's error that no field owns. */
  error: string | undefined;
  /** What needs the connection, e.g. "Changing your email". */
  offlineHint: string;
  /** Shown beside the button (a status line). */
  children?: ReactNode;
}) {
  const hintId = useId();
  return (
    <>
      <FormError message={error} />
      <div className="settings-actions">
        <Button
          type="submit"
          variant="primary"
          disabled={!online || busy}
          aria-describedby={online ? undefined : hintId}
        >
          {busy ? busyLabel : label}
        </Button>
        {children}
      </div>
      {online ? null : (
        <p id={hintId} className="settings-muted">
          {offlineHint} needs a connection. It works again once you&apos;re online.
        </p>
      )}
    </>
  );
}
