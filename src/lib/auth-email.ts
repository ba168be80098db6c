// The account flows that go through an email (GoTrue's /recover, /verify and email change):
// asking for a reset link, taking the session a mailed link brings back, setting the new
// password, and changing the address. supabase-js is told not to read sessions from URLs
// (src/lib/supabase.ts: invite and sign-in links are app routes), so the screens the links
// open read the link's answer here: GoTrue's `#access_token=…&type=recovery`, its
// `#error_code=…`, its "first of two links" `#message=…`, or `?token_hash=…&type=…` from a
// project whose templates link to the app directly.
import type { SupabaseSource } from '@sync/index';

import {
  AUTH_MESSAGES,
  describeAuthError,
  rememberDeviceOwnerEmail,
  type AuthResult,
} from './auth';

/** The app's routes that mailed links lead to. */
export const RESET_PASSWORD_PATH = '/reset-password';
export const EMAIL_LINK_PATH = '/email-confirmed';

export const EMAIL_MESSAGES = {
  linkInvalid: 'This link has expired or has already been used. Ask for a new one.',
  linkMissing: 'Open the link from the email we sent you to choose a new password.',
  /** GoTrue's answer to the first of an email change's two links. */
  firstOfTwo: 'One address confirmed. Open the link we sent to the other address to finish.',
} as const;

/** `path` on this app's origin, for `redirectTo` (GoTrue allows it if configured so). */
export function appUrl(path: string): string {
  return new URL(path, window.location.origin).toString();
}

export type LinkAnswer =
  | { kind: 'session'; type: string; accessToken: string; refreshToken: string }
  | { kind: 'token-hash'; type: string; tokenHash: string }
  | { kind: 'message'; message: string }
  | { kind: 'error'; code: string; description: string }
  | { kind: 'none' };

/** What a mailed link's redirect put in this page's URL. */
export function readLinkAnswer(location: { hash: string; search: string }): LinkAnswer {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const query = new URLSearchParams(location.search);
  const errorCode = fragment.get('error_code') ?? query.get('error_code');
  if (errorCode || fragment.get('error') || query.get('error')) {
    return {
      kind: 'error',
      code: errorCode ?? fragment.get('error') ?? query.get('error') ?? 'unknown',
      description: fragment.get('error_description') ?? query.get('error_description') ?? '',
    };
  }
  const accessToken = fragment.get('access_token');
  const refreshToken = fragment.get('refresh_token');
  if (accessToken && refreshToken) {
    return { kind: 'session', type: fragment.get('type') ?? '', accessToken, refreshToken };
  }
  const tokenHash = query.get('token_hash');
  const type = query.get('type');
  if (tokenHash && type) return { kind: 'token-hash', type, tokenHash };
  const message = fragment.get('message') ?? query.get('message');
  if (message) return { kind: 'message', message };
  return { kind: 'none' };
}

/** Drops the link's tokens from the address bar and history (they are a live session). */
export function forgetLinkAnswer(): void {
  const { pathname } = window.location;
  window.history.replaceState(window.history.state, '', pathname);
}

export type LinkSessionResult = { ok: true; email: string | null } | { ok: false; message: string };

const EMAIL_OTP_TYPES = new Set([
  'signup',
  'invite',
  'magiclink',
  'recovery',
  'email_change',
  'email',
]);

/**
 * Signs in with what a mailed link brought: the session in the fragment (supabase-js then
 * announces SIGNED_IN), or a token hash verified with GoTrue (PASSWORD_RECOVERY for a reset).
 */
export async function signInWithLink(
  supabase: SupabaseSource,
  answer: LinkAnswer,
): Promise<LinkSessionResult> {
  if (answer.kind === 'error') return { ok: false, message: EMAIL_MESSAGES.linkInvalid };
  if (answer.kind !== 'session' && answer.kind !== 'token-hash') {
    return { ok: false, message: EMAIL_MESSAGES.linkMissing };
  }
  try {
    const auth = (await supabase).auth;
    const { data, error } =
      answer.kind === 'session'
        ? await auth.setSession({
            access_token: answer.accessToken,
            refresh_token: answer.refreshToken,
          })
        : EMAIL_OTP_TYPES.has(answer.type)
          ? await auth.verifyOtp({
              token_hash: answer.tokenHash,
              type: answer.type as 'recovery',
            })
          : { data: { user: null }, error: null };
    if (error) {
      const described = describeAuthError(error);
      const expired = error.status === 403 || error.code === 'otp_expired';
      return {
        ok: false,
        message: expired || described.ok ? EMAIL_MESSAGES.linkInvalid : described.message,
      };
    }
    const email = data.user?.email ?? null;
    if (!data.user) return { ok: false, message: EMAIL_MESSAGES.linkInvalid };
    if (email) rememberDeviceOwnerEmail(email);
    return { ok: true, email };
  } catch (error) {
    const described = describeAuthError(error);
    return { ok: false, message: described.ok ? AUTH_MESSAGES.unknown : described.message };
  }
}

/** Mails a reset link for `email` (GoTrue answers the same whether or not it has the account). */
export async function requestPasswordReset(
  supabase: SupabaseSource,
  email: string,
): Promise<AuthResult> {
  try {
    const { error } = await (
      await supabase
    ).auth.resetPasswordForEmail(email.trim(), {
      redirectTo: appUrl(RESET_PASSWORD_PATH),
    });
    return error ? describeAuthError(error) : { ok: true, session: false };
  } catch (error) {
    return describeAuthError(error);
  }
}

/** Sets the signed-in (or just recovered) user's password. */
export async function setNewPassword(
  supabase: SupabaseSource,
  password: string,
): Promise<AuthResult> {
  try {
    const { error } = await (await supabase).auth.updateUser({ password });
    if (!error) return { ok: true, session: true };
    if (error.code === 'same_password') {
      return {
        ok: false,
        field: 'password',
        message: "That's already your password. Choose a different one.",
      };
    }
    return describeAuthError(error);
  } catch (error) {
    return describeAuthError(error);
  }
}

export type EmailChangeResult =
  | { ok: true; /** The address still in use until a link is opened. */ pending: string | null }
  | { ok: false; field?: 'email'; message: string };

/** Asks GoTrue to change the address; it changes once the mailed link(s) are opened. */
export async function requestEmailChange(
  supabase: SupabaseSource,
  email: string,
): Promise<EmailChangeResult> {
  try {
    const { data, error } = await (
      await supabase
    ).auth.updateUser({ email: email.trim() }, { emailRedirectTo: appUrl(EMAIL_LINK_PATH) });
    if (error) {
      const described = describeAuthError(error);
      if (described.ok) return { ok: false, message: AUTH_MESSAGES.unknown };
      if (error.code === 'email_exists') {
        return { ok: false, field: 'email', message: 'Another account already uses this email.' };
      }
      return described.field === 'email'
        ? { ok: false, field: 'email', message: described.message }
        : { ok: false, message: described.message };
    }
    return { ok: true, pending: data.user?.new_email ?? null };
  } catch (error) {
    const described = describeAuthError(error);
    return { ok: false, message: described.ok ? AUTH_MESSAGES.unknown : described.message };
  }
}
