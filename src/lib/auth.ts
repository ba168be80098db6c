// Email + password sign-in and sign-up through supabase-js, with GoTrue's error codes turned
// into plain sentences (and the field they concern) once, here. Also remembers which email
// this device's data belongs to, so the sign-in screen can warn before another account's
// sign-in wipes unsynced changes (the sync engine clears a store owned by someone else).
import {
  isAuthError,
  isAuthRetryableFetchError,
  isAuthWeakPasswordError,
} from '@supabase/supabase-js';
// valibot, like src/data/schema.ts: only the validators used reach the bundle.
import * as v from 'valibot';

import { DISPLAY_NAME_MAX } from '@/data/schema';
import { validate, type FieldErrors, type SupabaseSource } from '@sync/index';

/** GoTrue's default minimum password length (hosted projects may ask for more). */
export const PASSWORD_MIN_LENGTH = 6;
/** GoTrue refuses longer passwords (bcrypt reads only 72 bytes). */
export const PASSWORD_MAX_LENGTH = 72;

export const PASSWORD_RULE = `At least ${PASSWORD_MIN_LENGTH} characters.`;

/** localStorage: the email of the account this device's data belongs to. */
export const OWNER_EMAIL_KEY = 'outpost:owner-email';

export type AuthField = 'email' | 'password' | 'name';

export type AuthResult =
  | { ok: true; /** False when the project wants the email confirmed first. */ session: boolean }
  | { ok: false; field?: AuthField; message: string };

export const AUTH_MESSAGES = {
  invalidCredentials: 'Email or password is wrong.',
  exists: "There's already an account with this email. Sign in instead?",
  rateLimited: 'Too many attempts. Wait a minute and try again.',
  unreachable: "Can't reach the server. Check your connection and try again.",
  badEmail: 'Enter an email address like name@example.com.',
  emailNotConfirmed: 'Confirm your email first: open the link we sent you, then sign in.',
  signupDisabled: "New accounts can't be created here right now.",
  unknown: 'Something went wrong. Try again.',
} as const;

/**
 * zod's email pattern, which these forms used before valibot: kept so that no address that
 * passed then is refused now (valibot's `email` refuses an apostrophe: o'brien@example.com).
 */
/** An email address as auth takes it (the forms check before they ask). */
export const EMAIL_PATTERN =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

const email = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'Enter your email address.'),
  v.regex(EMAIL_PATTERN, AUTH_MESSAGES.badEmail),
);

export const signInInput = v.object({
  email,
  // No length rule here: a wrong password is answered as such, not as a rule to learn.
  password: v.pipe(v.string(), v.minLength(1, 'Enter your password.')),
});

export const signUpInput = v.object({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'Enter your name.'),
    v.maxLength(DISPLAY_NAME_MAX, `Name can be at most ${DISPLAY_NAME_MAX} characters.`),
  ),
  email,
  password: v.pipe(
    v.string(),
    v.minLength(
      PASSWORD_MIN_LENGTH,
      `Password must be at least ${PASSWORD_MIN_LENGTH} characters.`,
    ),
    v.maxLength(PASSWORD_MAX_LENGTH, `Password can be at most ${PASSWORD_MAX_LENGTH} characters.`),
  ),
});

export type SignInInput = v.InferOutput<typeof signInInput>;
export type SignUpInput = v.InferOutput<typeof signUpInput>;

export function validateSignIn(
  input: SignInInput,
): { ok: true; value: SignInInput } | { ok: false; errors: FieldErrors } {
  return validate(signInInput, input);
}

export function validateSignUp(
  input: SignUpInput,
): { ok: true; value: SignUpInput } | { ok: false; errors: FieldErrors } {
  return validate(signUpInput, input);
}

function fail(message: string, field?: AuthField): AuthResult {
  return field ? { ok: false, field, message } : { ok: false, message };
}

/**
 * The rule a weak password broke, as GoTrue's reasons say (`length`, `characters`, `pwned`).
 * The form already holds passwords to PASSWORD_MIN_LENGTH, so a length refusal means the
 * project asks for more; its number is only in the English message, which is never parsed.
 */
function weakPasswordMessage(reasons: readonly string[]): string {
  if (reasons.includes('pwned')) {
    return 'This password has appeared in a data breach. Choose a different one.';
  }
  if (reasons.includes('characters')) {
    return 'Password needs a mix of lowercase and uppercase letters, digits and symbols.';
  }
  return 'This password is too short for this server. Choose a longer one.';
}

/** GoTrue's error (code + status) → one sentence, and the field it is about if any. */
export function describeAuthError(error: unknown): AuthResult {
  if (isAuthRetryableFetchError(error)) return fail(AUTH_MESSAGES.unreachable);
  if (isAuthWeakPasswordError(error)) {
    return fail(weakPasswordMessage(error.reasons), 'password');
  }
  if (!isAuthError(error)) {
    // fetch itself threw (no network, CORS): supabase-js normally wraps it, but not always.
    return fail(error instanceof TypeError ? AUTH_MESSAGES.unreachable : AUTH_MESSAGES.unknown);
  }
  const { code, status } = error;
  if (status === 0) return fail(AUTH_MESSAGES.unreachable);
  if (status === 429 || code === 'over_request_rate_limit' || code === 'over_email_send_rate_limit')
    return fail(AUTH_MESSAGES.rateLimited);
  switch (code) {
    case 'invalid_credentials':
      return fail(AUTH_MESSAGES.invalidCredentials);
    case 'user_already_exists':
    case 'email_exists':
      return fail(AUTH_MESSAGES.exists, 'email');
    case 'weak_password':
      return fail(weakPasswordMessage([]), 'password');
    case 'email_not_confirmed':
      return fail(AUTH_MESSAGES.emailNotConfirmed);
    case 'signup_disabled':
    case 'email_provider_disabled':
      return fail(AUTH_MESSAGES.signupDisabled);
    // The form checks both fields' lengths before sending, so what GoTrue still refuses as
    // `validation_failed` is the address's format.
    case 'email_address_invalid':
    case 'email_address_not_authorized':
    case 'validation_failed':
      return fail(AUTH_MESSAGES.badEmail, 'email');
    default:
      if (status !== undefined && status >= 500) return fail(AUTH_MESSAGES.unreachable);
      return fail(AUTH_MESSAGES.unknown);
  }
}

export async function signIn(
  supabase: SupabaseSource,
  emailAddress: string,
  password: string,
): Promise<AuthResult> {
  const address = emailAddress.trim();
  try {
    const { data, error } = await (
      await supabase
    ).auth.signInWithPassword({ email: address, password });
    if (error) return describeAuthError(error);
    rememberDeviceOwnerEmail(data.user?.email ?? address);
    return { ok: true, session: Boolean(data.session) };
  } catch (error) {
    return describeAuthError(error);
  }
}

export async function signUp(
  supabase: SupabaseSource,
  input: { name: string; email: string; password: string },
): Promise<AuthResult> {
  const address = input.email.trim();
  try {
    const { data, error } = await (
      await supabase
    ).auth.signUp({
      email: address,
      password: input.password,
      // The database makes the profile from this (auth.users trigger). Where the project
      // confirms emails first, the mailed link leads back to the app (auth-email.ts).
      options: {
        data: { display_name: input.name.trim() },
        emailRedirectTo: new URL('/email-confirmed', window.location.origin).toString(),
      },
    });
    if (error) return describeAuthError(error);
    // With email confirmation on, GoTrue answers an existing address with a stand-in user
    // that has no identities instead of an error (it does not reveal accounts by email).
    if (!data.session && data.user && data.user.identities?.length === 0) {
      return fail(AUTH_MESSAGES.exists, 'email');
    }
    // Only a sign-up that signs in makes this device the account's: remembering the email
    // of an unconfirmed account would let it skip the unsynced-changes warning later.
    if (data.session) rememberDeviceOwnerEmail(data.user?.email ?? address);
    return { ok: true, session: Boolean(data.session) };
  } catch (error) {
    return describeAuthError(error);
  }
}

export function rememberDeviceOwnerEmail(emailAddress: string): void {
  try {
    localStorage.setItem(OWNER_EMAIL_KEY, emailAddress.trim().toLowerCase());
  } catch {
    // Storage refused (private mode, full): the warning then errs on the safe side.
  }
}

/** Sign-out: the device's data belongs to nobody now, and the next person need not see whose it was. */
export function forgetDeviceOwnerEmail(): void {
  try {
    localStorage.removeItem(OWNER_EMAIL_KEY);
  } catch {
    // Storage refused: nothing was kept either.
  }
}

/** The email of the account this device's data belongs to, when known. */
export function deviceOwnerEmail(): string | null {
  try {
    return localStorage.getItem(OWNER_EMAIL_KEY);
  } catch {
    return null;
  }
}

export { safeNext } from './next-path';
