// What the user reads for each error code of SPEC §8. Codes are values (sync/errors.ts,
// the edge functions' `error.code`); text is chosen here, once, never matched back.
import type { SyncErrorCode } from '@sync/index';

export type InviteErrorCode =
  'INVITE_INVALID' | 'INVITE_EXPIRED' | 'INVITE_USED' | 'ALREADY_MEMBER';
export type AppErrorCode = SyncErrorCode | InviteErrorCode;

export const ERROR_MESSAGES: Readonly<Record<AppErrorCode, string>> = {
  OFFLINE: 'Offline — changes are saved on this device',
  AUTH_EXPIRED: 'Sign in again to sync',
  PERMISSION_DENIED: "You don't have permission to change this any more",
  VALIDATION_FAILED: "That change doesn't fit the rules for this field",
  NOT_FOUND: 'This was deleted by someone else',
  DUPLICATE: 'Already saved',
  RATE_LIMITED: 'Sync paused, retrying',
  SERVER_ERROR: 'Sync paused, retrying',
  TIMEOUT: 'Sync paused, retrying',
  QUOTA_EXCEEDED: 'This device is out of space',
  FILE_TOO_LARGE: 'Files can be at most 10 MB',
  FILE_TYPE: 'Only JPEG, PNG, WebP, GIF images and PDF files can be attached',
  CURSOR_EXPIRED: 'Refreshing all data',
  APP_OUTDATED: 'Update available',
  INVITE_INVALID: "This invite link isn't valid. Ask the list's owner for a new one.",
  INVITE_EXPIRED: 'This invite link has expired. Ask for a new one.',
  INVITE_USED: 'This invite link has already been used. Ask for a new one.',
  ALREADY_MEMBER: "You're already a member of this list.",
};

export function errorMessage(code: string | undefined): string {
  return code && code in ERROR_MESSAGES
    ? ERROR_MESSAGES[code as AppErrorCode]
    : 'Something went wrong. Try again.';
}

/** "task", "list"… for a synced table's rows. */
export const ROW_NOUNS: Readonly<Record<string, string>> = {
  lists: 'list',
  tasks: 'task',
  comments: 'comment',
  attachments: 'attachment',
  memberships: 'membership',
  profiles: 'profile',
};

/**
 * One sentence on why the server refused a change and what the device did about it, for the
 * "Rejected changes" view and the revert toast. `label` names the row ("“Fix the door”").
 */
export function describeRejection(
  rejection: { table: string; op: string; code: string; message: string },
  label?: string,
): string {
  const noun = ROW_NOUNS[rejection.table] ?? 'item';
  const what = label ? `the ${noun} ${label}` : `this ${noun}`;
  switch (rejection.code) {
    case 'PERMISSION_DENIED':
      return `You can't edit ${what} any more: your role on the list doesn't allow it. Your change was undone.`;
    case 'NOT_FOUND':
      return `${capitalise(what)} was deleted by someone else, so your change could not be saved.`;
    case 'VALIDATION_FAILED':
      return `The server refused your change to ${what}: ${serverRule(rejection.message)} Your change was undone.`;
    default:
      return `Your change to ${what} was not saved (${errorMessage(rejection.code)}).`;
  }
}

/** The database's rule message, as a sentence ("value too long for type…" → kept verbatim). */
function serverRule(message: string): string {
  const trimmed = message.trim();
  if (!trimmed) return 'it breaks a rule.';
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
