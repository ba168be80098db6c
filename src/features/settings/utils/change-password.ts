// Changing the signed-in person's password (product.md §7 "change password") with supabase-js
// `auth.updateUser`, on the current session. The rules are the sign-up screen's (src/lib/
// auth.ts); GoTrue's refusals come back as plain sentences, with the field they concern.
import { isAuthApiError, isAuthSessionMissingError } from '@supabase/supabase-js';

import type { SupabaseSource } from '@sync/index';

import { AUTH_MESSAGES, describeAuthError } from '@/lib/auth';
import {
  checkNewPassword,
  NEW_PASSWORD_MESSAGES,
  type NewPasswordErrors,
  type NewPasswordInput,
} from '@/lib/new-password';

export { checkNewPassword, type NewPasswordErrors, type NewPasswordInput };

export type ChangePasswordResult =
  { ok: true } | { ok: false; field?: keyof NewPasswordInput; message: string };

export const PASSWORD_MESSAGES = {
  ...NEW_PASSWORD_MESSAGES,
  same: "That's already your password. Choose a different one.",
  signInAgain: 'Your session has ended. Sign in again, then change your password.',
  reauthenticate: 'For your security, sign in again before changing your password.',
} as const;

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
