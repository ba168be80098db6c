// Changing the signed-in person's password (product.md §7 "change password") with supabase-js
// `auth.updateUser`, on the current session. The rules are the sign-up screen's (src/lib/
// auth.ts); GoTrue's refusals come back as plain sentences, with the field they concern.
import { isAuthApiError, isAuthSessionMissingError } from '@supabase/supabase-js';

import type { SupabaseSource } from '@sync/index';

import {
  AUTH_MESSAGES,
  describeAuthError,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from '@/lib/auth';

export interface NewPasswordInput {
  password: string;
  repeat: string;
}

export type NewPasswordErrors = Partial<Record<keyof NewPasswordInput | '_', string>>;

export type ChangePasswordResult =
  { ok: true } | { ok: false; field?: keyof NewPasswordInput; message: string };

export const PASSWORD_MESSAGES = {
  empty: 'Enter a new password.',
  short: `Password must be at least ${PASSWORD_MIN_LENGTH} characters.`,
  long: `Password can be at most ${PASSWORD_MAX_LENGTH} characters.`,
  mismatch: "The two passwords don't match.",
  repeat: 'Enter the new password again.',
  same: "That's already your password. Choose a different one.",
  signInAgain: 'Your session has ended. Sign in again, then change your password.',
  reauthenticate: 'For your security, sign in again before changing your password.',
} as const;

/** The form's rules, checked before anything is sent; empty when the input may be sent. */
export function checkNewPassword({ password, repeat }: NewPasswordInput): NewPasswordErrors {
  const errors: NewPasswordErrors = {};
  // No trimming: spaces are characters of a password like any other.
  if (password.length === 0) errors.password = PASSWORD_MESSAGES.empty;
  else if (password.length < PASSWORD_MIN_LENGTH) errors.password = PASSWORD_MESSAGES.short;
  else if (password.length > PASSWORD_MAX_LENGTH) errors.password = PASSWORD_MESSAGES.long;
  if (repeat.length === 0) errors.repeat = PASSWORD_MESSAGES.repeat;
  else if (repeat !== password) errors.repeat = PASSWORD_MESSAGES.mismatch;
  return errors;
}

/** GoTrue's codes for a session it no longer honours (signed out elsewhere, user gone). */
const SESSION_GONE = new Set([
  'session_not_found',
  'no_authorization',
  'bad_jwt',
  'user_not_found',
]);

/** GoTrue's answer to a password change → one sentence, and the field it is about if any. */
export function describePasswordError(error: unknown): ChangePasswordResult {
  if (isAuthSessionMissingError(error))
    return { ok: false, message: PASSWORD_MESSAGES.signInAgain };
  if (isAuthApiError(error)) {
    if (error.code === 'same_password') {
      return { ok: false, field: 'password', message: PASSWORD_MESSAGES.same };
    }
    // A project with "secure password change" wants a fresh sign-in (or an emailed code).
    if (error.code === 'reauthentication_needed' || error.code === 'reauthentication_not_valid') {
      return { ok: false, message: PASSWORD_MESSAGES.reauthenticate };
    }
    if (error.status === 401 || (error.code && SESSION_GONE.has(error.code))) {
      return { ok: false, message: PASSWORD_MESSAGES.signInAgain };
    }
  }
  // Everything sign-in and sign-up also meet (weak password, rate limit, no connection).
  const described = describeAuthError(error);
  if (described.ok) return { ok: false, message: AUTH_MESSAGES.unknown }; // (an error is never ok)
  return described.field === 'password'
    ? { ok: false, field: 'password', message: described.message }
    : { ok: false, message: described.message };
}

/** Sets a new password for the signed-in user; never throws. */
export async function changePassword(
  supabase: SupabaseSource,
  password: string,
): Promise<ChangePasswordResult> {
  try {
    const { error } = await (await supabase).auth.updateUser({ password });
    return error ? describePasswordError(error) : { ok: true };
  } catch (error) {
    return describePasswordError(error);
  }
}
