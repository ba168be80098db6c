// Typed calls to Outpost's edge functions (product.md §7): create-invite, accept-invite and
// export-list, and the one storage call a screen makes itself (a profile picture; task files
// go through the sync library). Each answers a value, never throws: `{ ok: true, … }` or
// `{ ok: false, code, message }` with a product.md §8 code, so screens pick their sentence by
// code, not by text.
import {
  FunctionsFetchError,
  FunctionsHttpError,
  FunctionsRelayError,
  isAuthRetryableFetchError,
} from '@supabase/supabase-js';
import * as v from 'valibot';

import {
  classifyStorageError,
  isSyncError,
  storageRequest,
  SyncError,
  type SupabaseSource,
} from '@sync/index';

import { AVATARS_BUCKET } from './avatars';
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
  return typeof code === 'string' && Object.hasOwn(ERROR_MESSAGES, code);
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

// What the server answers is checked against these schemas, never cast: a field that is
// missing or of another type is read as absent, and an answer without what a call needs is
// `malformed`.

/** A text field of an answer; anything else reads as absent. */
const text = v.fallback(v.optional(v.string()), undefined);

/** What an error body says: our functions' `error` object, or the gateway's body itself. */
const ErrorDetail = v.object({ code: text, message: text, list_id: text });

/** Our functions answer `{ error: { code, message, list_id? } }`; the gateway `{ code, message }`. */
const ErrorBody = v.union([v.object({ error: ErrorDetail }), ErrorDetail]);

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
  const parsed = v.safeParse(ErrorBody, body);
  const detail = parsed.success
    ? 'error' in parsed.output
      ? parsed.output.error
      : parsed.output
    : {};
  const code = isAppErrorCode(detail.code) ? detail.code : codeForStatus(response.status);
  return {
    ok: false,
    code,
    message: detail.message || `HTTP ${response.status}`,
    ...(detail.list_id !== undefined ? { listId: detail.list_id } : {}),
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

/** create-invite's answer. */
const CreatedInvite = v.object({ url: v.string(), token: v.string(), expires_at: v.string() });

/** An owner makes a single-use link that lets its holder join the list as `role`. */
export async function createInvite(
  supabase: SupabaseSource,
  listId: string,
  role: InviteRole,
): Promise<CreateInviteResult> {
  const result = await (
    await supabase
  ).functions.invoke<unknown>('create-invite', {
    body: { list_id: listId, role },
  });
  const { data } = result;
  const error: unknown = result.error; // typed any by functions-js
  if (error) return failureFromError(error);
  const answer = v.safeParse(CreatedInvite, data);
  if (!answer.success) return malformed('create-invite');
  const { url, token, expires_at: expiresAt } = answer.output;
  return { ok: true, url, token, expiresAt };
}

/** accept-invite's answer: the list joined, and as what. */
const AcceptedInvite = v.object({ list_id: v.string(), role: v.picklist(['editor', 'viewer']) });

/** The signed-in user trades an invite token for a membership. */
export async function acceptInvite(
  supabase: SupabaseSource,
  token: string,
): Promise<AcceptInviteResult> {
  const result = await (
    await supabase
  ).functions.invoke<unknown>('accept-invite', { body: { token } });
  const { data } = result;
  const error: unknown = result.error; // typed any by functions-js
  if (error) return failureFromError(error);
  const answer = v.safeParse(AcceptedInvite, data);
  if (!answer.success) return malformed('accept-invite');
  return { ok: true, listId: answer.output.list_id, role: answer.output.role };
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

/**
 * export-list's JSON answer: an object, written to the file as it came; only the list's name
 * is read (for the file's name).
 */
const ExportedList = v.looseObject({
  list: v.fallback(v.optional(v.object({ name: text })), undefined),
});

/** A member downloads a list as JSON (list, members, tasks with comments) or CSV (tasks). */
export async function exportList(
  supabase: SupabaseSource,
  listId: string,
  format: ExportFormat,
): Promise<ExportListResult> {
  const result = await (
    await supabase
  ).functions.invoke<unknown>('export-list', {
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
  const answer = v.safeParse(ExportedList, data);
  if (!answer.success) return malformed('export-list');
  return {
    ok: true,
    // As it came: the schema reads the name only (a parsed copy keeps no other list field).
    blob: new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }),
    fileName: fromHeader ?? safeFileName(answer.output.list?.name, 'json'),
  };
}

/** The failure a storage-js error describes, by its fields only (the sync library's rules). */
export function failureFromStorageError(error: unknown): ApiFailure {
  return failureOf(
    classifyStorageError(error instanceof Error ? error : { message: String(error) }),
  );
}

function failureOf({ code, message }: SyncError): ApiFailure {
  return { ok: false, code, message };
}

/**
 * Uploads a profile picture to the public avatars bucket at `path` (`{user_id}/…`: only its
 * owner may write there). The bytes, not the Blob, are sent: supabase-js then sends them as
 * the raw body with the type as content-type, rather than as multipart form data.
 */
export async function uploadAvatar(
  source: SupabaseSource,
  path: string,
  file: Blob,
): Promise<UploadAvatarResult> {
  try {
    const supabase = await source;
    const bytes = await file.arrayBuffer();
    // Storage answers a token it could not verify exactly as its policy's refusal (a 403):
    // storageRequest believes a 403 once a renewed token gets it too.
    await storageRequest(
      () => supabase.storage.from(AVATARS_BUCKET).upload(path, bytes, { contentType: file.type }),
      async () => {
        const renewed = await supabase.auth.refreshSession();
        if (isAuthRetryableFetchError(renewed.error)) {
          throw new SyncError('OFFLINE', renewed.error.message);
        }
        return !renewed.error && Boolean(renewed.data.session);
      },
    );
    return { ok: true, path };
  } catch (error) {
    if (isSyncError(error)) return failureOf(error);
    // Anything else thrown is local (the file unreadable).
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, code: 'SERVER_ERROR', message };
  }
}
