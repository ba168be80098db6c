// What the user reads for each error code of product.md §8. Codes are values (sync/errors.ts,
// the edge functions' `error.code`); text is chosen here, once, never matched back.
// Why a change was refused (describeRejection) is rejection-messages.ts: only the rejection
// toast and Settings need it, so it is not in the app shell (issue 16).
import { ATTACHMENT_MAX_BYTES } from '@/data/schema';
import { type SyncErrorCode } from '@sync/index';
import { formatBytes } from '@/utils/format';

export type InviteErrorCode =
  'INVITE_INVALID' | 'INVITE_EXPIRED' | 'INVITE_USED' | 'ALREADY_MEMBER';
export type AppErrorCode = SyncErrorCode | InviteErrorCode;

export const ERROR_MESSAGES: Readonly<Record<AppErrorCode, string>> = {
  OFFLINE: 'Offline — changes are saved on this device',
  AUTH_EXPIRED: 'Sign in again to sync',
  // product.md §8 "You can't edit X any more"; describeRejection names X when it knows it.
  PERMISSION_DENIED: "You can't edit this any more",
  VALIDATION_FAILED: "That change doesn't fit the rules for this field",
  NOT_FOUND: 'This was deleted by someone else',
  DUPLICATE: 'Already saved',
  RATE_LIMITED: 'Sync paused, retrying',
  SERVER_ERROR: 'Sync paused, retrying',
  TIMEOUT: 'Sync paused, retrying',
  QUOTA_EXCEEDED: 'This device is out of space',
  // The same units as every size shown (formatBytes: binary, so "10 MB" is the 10 MiB of §9).
  FILE_TOO_LARGE: `Files can be at most ${formatBytes(ATTACHMENT_MAX_BYTES)}`,
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
