// Typed calls to Outpost's edge functions (product.md §7): create-invite, accept-invite and
// export-list, and the one storage call a screen makes itself (a profile picture; task files
// go through the sync library). Each answers a value, never throws: `{ ok: true, … }` or
// `{ ok: false, code, message }` with a product.md §8 code, so screens pick their sentence by
// code, not by text.
import {
  FunctionsFetchError,
  FunctionsHttpError,
  FunctionsRelayError,
  type SupabaseClient,
} from '@supabase/supabase-js';

import { AVATARS_BUCKET } from '@/hooks/use-avatar-url';

import { ERROR_MESSAGES, type AppErrorCode } from './error-messages';

/** Roles an invite can grant (owners are made by changing a member's role). */
export type InviteRole = 'editor' | 'viewer';

export interface ApiFailure {
  ok: false;
  code: AppErrorCode;
  /** The server's own words (for logs); screens show their sentence for `code`. */
  message: string;
  /** ALREADY_MEMBER names the list, so the screen can open it. */
  listId?: string;
}

export type CreateInviteResult =
  { ok: true; url: string; token: string; expiresAt: string } | ApiFailure;

export type AcceptInviteResult = { ok: true; listId: string; role: InviteRole } | ApiFailure;

export type ExportListResult = { ok: true; blob: Blob; fileName: string } | ApiFailure;

export type ExportFormat = 'json' | 'csv';

export type UploadAvatarResult = { ok: true; path: string } | ApiFailure;

function isAppErrorCode(code: unknown): code is AppErrorCode {
  return typeof code === 'string' && code in ERROR_MESSAGES;
}

/** A code for an HTTP status whose body named none we know (the gateway's own codes). */
export function codeForStatus(status: number): AppErrorCode {
  if (status === 401) return 'AUTH_EXPIRED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 408 || status === 504) return 'TIMEOUT';
  if (status === 429) return 'RATE_LIMITED';
  if (status >= 400 && status < 500) return 'VALIDATION_FAILED';
  return 'SERVER_ERROR';
}

type Fields = Record<string, unknown>;

function record(value: unknown): Fields | undefined {
  return value && typeof value === 'object' ? (value as Fields) : undefined;
}

const NO_FIELDS: Fields = {};

/**
 * The failure a function's error response describes. Our functions answer
 * `{ error: { code, message, list_id? } }`; the gateway answers `{ code, message }`
 * (UNAUTHORIZED_*, BOOT_ERROR); anything else is classified by status.
 */
export async function failureFromResponse(response: Response): Promise<ApiFailure> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined; // an HTML error page from a proxy, an empty body
  }
  const outer = record(body);
  const detail = record(outer?.error) ?? outer;
  const code = isAppErrorCode(detail?.code) ? detail.code : codeForStatus(response.status);
  const message =
    typeof detail?.message === 'string' && detail.message
      ? detail.message
      : `HTTP ${response.status}`;
  const listId = detail?.list_id;
  return {
    ok: false,
    code,
    message,
    ...(typeof listId === 'string' ? { listId } : {}),
  };
}

/** The failure of `functions.invoke` (typed `any` by functions-js, so narrowed here). */
export async function failureFromError(error: unknown): Promise<ApiFailure> {
  if (error instanceof FunctionsHttpError || error instanceof FunctionsRelayError) {
    const context: unknown = error.context;
    if (context instanceof Response) return failureFromResponse(context);
  }
  if (error instanceof FunctionsFetchError) {
    return { ok: false, code: 'OFFLINE', message: 'The server could not be reached.' };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, code: 'SERVER_ERROR', message };
}

function malformed(name: string): ApiFailure {
  return { ok: false, code: 'SERVER_ERROR', message: `${name} answered in an unexpected shape.` };
}

/** An owner makes a single-use link that lets its holder join the list as `role`. */
export async function createInvite(
  supabase: SupabaseClient,
  listId: string,
  role: InviteRole,
): Promise<CreateInviteResult> {
  const result = await supabase.functions.invoke<unknown>('create-invite', {
    body: { list_id: listId, role },
  });
  const { data } = result;
  const error: unknown = result.error; // typed any by functions-js
  if (error) return failureFromError(error);
  const { url, token, expires_at: expiresAt } = record(data) ?? NO_FIELDS;
  if (typeof url !== 'string' || typeof token !== 'string' || typeof expiresAt !== 'string') {
    return malformed('create-invite');
  }
  return { ok: true, url, token, expiresAt };
}

/** The signed-in user trades an invite token for a membership. */
export async function acceptInvite(
  supabase: SupabaseClient,
  token: string,
): Promise<AcceptInviteResult> {
  const result = await supabase.functions.invoke<unknown>('accept-invite', { body: { token } });
  const { data } = result;
  const error: unknown = result.error; // typed any by functions-js
  if (error) return failureFromError(error);
  const { list_id: listId, role } = record(data) ?? NO_FIELDS;
  if (typeof listId !== 'string' || (role !== 'editor' && role !== 'viewer')) {
    return malformed('accept-invite');
  }
  return { ok: true, listId, role };
}

/** `attachment; filename="Site-inspection.csv"` → `Site-inspection.csv`. */
export function fileNameFromDisposition(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(header);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
    } catch {
      // a malformed encoding: fall back to the plain filename
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/i.exec(header);
  const name = (plain?.[1] ?? plain?.[2])?.trim();
  return name || undefined;
}

/** A file name from a list's name, made of the same safe characters the function uses. */
export function safeFileName(listName: string | undefined, format: ExportFormat): string {
  const base = (listName ?? '')
    .normalize('NFKD')
    .replace(/[^\w\- ]+/g, '')
    .trim()
    .replace(/\s+/g, '-');
  return `${base || 'list'}.${format}`;
}

/** A member downloads a list as JSON (list, members, tasks with comments) or CSV (tasks). */
export async function exportList(
  supabase: SupabaseClient,
  listId: string,
  format: ExportFormat,
): Promise<ExportListResult> {
  const result = await supabase.functions.invoke<unknown>('export-list', {
    body: { list_id: listId, format },
  });
  const { data, response } = result;
  const error: unknown = result.error; // typed any by functions-js
  if (error) return failureFromError(error);
  // functions-js has already parsed JSON and read CSV as text; make a file of either again.
  // The header may be unreadable cross-origin (not in Access-Control-Expose-Headers), so the
  // JSON's own list name is the fallback.
  const fromHeader = fileNameFromDisposition(response?.headers.get('Content-Disposition'));
  if (format === 'csv') {
    if (typeof data !== 'string') return malformed('export-list');
    return {
      ok: true,
      blob: new Blob([data], { type: 'text/csv;charset=utf-8' }),
      fileName: fromHeader ?? safeFileName(undefined, 'csv'),
    };
  }
  const answer = record(data);
  if (!answer) return malformed('export-list');
  const listName = record(answer.list)?.name;
  return {
    ok: true,
    blob: new Blob([JSON.stringify(answer, null, 2)], { type: 'application/json' }),
    fileName:
      fromHeader ?? safeFileName(typeof listName === 'string' ? listName : undefined, 'json'),
  };
}

/**
 * The failure a storage-js error describes. An HTTP answer is a StorageApiError with the
 * response's `status` and the body's `statusCode` (hosted storage answers an RLS refusal as
 * HTTP 400 with statusCode "403", so the body's number wins); no answer at all (fetch
 * failed) has neither, and means the server could not be reached.
 */
export function failureFromStorageError(error: unknown): ApiFailure {
  const fields = record(error) ?? NO_FIELDS;
  const message = error instanceof Error ? error.message : String(error);
  const fromBody = Number(fields.statusCode);
  const status =
    fromBody >= 400 && fromBody < 600
      ? fromBody
      : typeof fields.status === 'number'
        ? fields.status
        : undefined;
  if (status === undefined) return { ok: false, code: 'OFFLINE', message };
  if (status === 413) return { ok: false, code: 'FILE_TOO_LARGE', message };
  if (status === 415) return { ok: false, code: 'FILE_TYPE', message };
  // An expired or bad token is "400 InvalidJWT" from storage, not a 401.
  const errorName = typeof fields.error === 'string' ? fields.error : '';
  if (/jwt/i.test(`${message} ${errorName}`)) {
    return { ok: false, code: 'AUTH_EXPIRED', message };
  }
  return { ok: false, code: codeForStatus(status), message };
}

/**
 * Uploads a profile picture to the public avatars bucket at `path` (`{user_id}/…`: only its
 * owner may write there). The bytes, not the Blob, are sent: supabase-js then sends them as
 * the raw body with the type as content-type, rather than as multipart form data.
 */
export async function uploadAvatar(
  supabase: SupabaseClient,
  path: string,
  file: Blob,
): Promise<UploadAvatarResult> {
  try {
    const { error } = await supabase.storage
      .from(AVATARS_BUCKET)
      .upload(path, await file.arrayBuffer(), { contentType: file.type });
    if (error) return failureFromStorageError(error);
    return { ok: true, path };
  } catch (error) {
    // storage-js returns its own errors; anything thrown is local (the file unreadable).
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, code: 'SERVER_ERROR', message };
  }
}
