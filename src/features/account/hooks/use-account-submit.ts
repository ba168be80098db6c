// What sign-in and sign-up share when their form is sent: check the fields (errors inline,
// focus on the first), ask first when another account's unsynced changes would be deleted,
// send while showing progress, and ignore answers that arrive after the screen has gone.
import { useEffect, useRef, useState, type FormEvent } from 'react';

import type { AuthResult } from '@/lib/auth';
import type { FieldErrors } from '@sync/index';

import { useFirstErrorFocus } from './use-first-error-focus';
import { useUnsyncedGuard, type UnsyncedRisk } from './use-unsynced-guard';

export interface AccountSubmit {
  errors: FieldErrors;
  setErrors: React.Dispatch<React.SetStateAction<FieldErrors>>;
  submitting: boolean;
  /** Unsynced changes the send would delete, while the screen asks about them. */
  risk: UnsyncedRisk | null;
  /** The form's onSubmit. */
  submit: (event: FormEvent) => Promise<void>;
  /** The user chose to go ahead despite the risk. */
  confirmRisk: () => void;
  cancelRisk: () => void;
}

export function useAccountSubmit<T extends { email: string }>(options: {
  /** Field key → element id, in the order the form shows them ('_' for form errors). */
  fields: readonly (readonly [key: string, elementId: string])[];
  enabled: boolean;
  check: () => { ok: true; value: T } | { ok: false; errors: FieldErrors };
  send: (value: T) => Promise<AuthResult>;
  onSent: (result: Extract<AuthResult, { ok: true }>, value: T) => void;
}): AccountSubmit {
  const { fields, enabled, check, send, onSent } = options;
  const guard = useUnsyncedGuard();
  const [errors, setErrors] = useState<FieldErrors>({});
  const [submitting, setSubmitting] = useState(false);
  const [risk, setRisk] = useState<{ risk: UnsyncedRisk; value: T } | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const focusFirstError = useFirstErrorFocus(errors, fields);

  function showErrors(found: FieldErrors) {
    setErrors(found);
    focusFirstError();
  }

  async function proceed(value: T) {
    setSubmitting(true);
    const result = await send(value);
    if (!mounted.current) return;
    setSubmitting(false);
    if (result.ok) onSent(result, value);
    else showErrors({ [result.field ?? '_']: result.message });
  }

  return {
    errors,
    setErrors,
    submitting,
    risk: risk?.risk ?? null,
    async submit(event) {
      event.preventDefault();
      if (!enabled || submitting) return;
      const checked = check();
      if (!checked.ok) {
        showErrors(checked.errors);
        return;
      }
      setErrors({});
      const atRisk = await guard(checked.value.email);
      if (!mounted.current) return;
      if (atRisk) {
        setRisk({ risk: atRisk, value: checked.value });
        return;
      }
      await proceed(checked.value);
    },
    confirmRisk() {
      const held = risk;
      setRisk(null);
      if (held) void proceed(held.value);
    },
    cancelRisk() {
      setRisk(null);
    },
  };
}
