// The pieces every account form shows around its fields: the form's own error (a focus target
// when the server refuses without naming a field) and the submit button, which waits for a
// connection and says it is working while the request is out.
import type { RefObject } from 'react';

import { Button } from '@/components/ui/button';
import { FormError } from '@/components/ui/field';

export function AccountFormError({
  id,
  ref,
  message,
}: {
  id: string;
  ref?: RefObject<HTMLDivElement | null>;
  message: string | undefined;
}) {
  return (
    <div id={id} ref={ref} tabIndex={-1} className="account-form__error">
      <FormError message={message} />
    </div>
  );
}

export function AccountSubmitButton({
  online,
  busy,
  label,
  busyLabel,
}: {
  online: boolean;
  busy: boolean;
  label: string;
  busyLabel: string;
}) {
  return (
    <Button
      type="submit"
      variant="primary"
      className="account-form__submit"
      disabled={!online || busy}
    >
      {busy ? busyLabel : label}
    </Button>
  );
}
