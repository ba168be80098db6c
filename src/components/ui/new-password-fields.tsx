// A new password asked twice, as the reset-password screen and Settings › Change password both
// ask it: the same labels, names and autocomplete hints, so a password manager offers one new
// password for both boxes and files it under the account in the hidden username box.
import type { RefObject } from 'react';

import { PASSWORD_RULE } from '@/lib/auth';

import { TextField } from './field';

export type NewPasswordField = 'password' | 'repeat';

/** The pair's errors, plus the form's own (`_`). */
export type NewPasswordFieldErrors = Partial<Record<NewPasswordField | '_', string>>;

/** `errors` without the edited field's error and the form's; the other field's stays. */
export function withoutEditedErrors(
  errors: NewPasswordFieldErrors,
  field: NewPasswordField,
): NewPasswordFieldErrors {
  const rest = { ...errors };
  delete rest[field];
  delete rest._;
  return rest;
}

export function NewPasswordFields({
  email,
  ids,
  passwordRef,
  repeatRef,
  values,
  errors,
  disabled,
  onEdit,
}: {
  /** The account the password is for, if known (for the password manager). */
  email: string | null;
  ids: Record<NewPasswordField, string>;
  passwordRef: RefObject<HTMLInputElement | null>;
  repeatRef: RefObject<HTMLInputElement | null>;
  values: Record<NewPasswordField, string>;
  errors: NewPasswordFieldErrors;
  disabled: boolean;
  onEdit: (field: NewPasswordField, value: string) => void;
}) {
  return (
    <>
      {/* Lets a password manager file the new password under the right account. */}
      {email ? (
        <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
      ) : null}
      <TextField
        ref={passwordRef}
        id={ids.password}
        label="New password"
        name="new-password"
        type="password"
        autoComplete="new-password"
        hint={PASSWORD_RULE}
        value={values.password}
        error={errors.password}
        disabled={disabled}
        onChange={(event) => onEdit('password', event.target.value)}
      />
      <TextField
        ref={repeatRef}
        id={ids.repeat}
        label="Repeat new password"
        name="repeat-password"
        type="password"
        autoComplete="new-password"
        value={values.repeat}
        error={errors.repeat}
        disabled={disabled}
        onChange={(event) => onEdit('repeat', event.target.value)}
      />
    </>
  );
}
