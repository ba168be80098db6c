// What storage accepts as an object's type and how it serves one back. A Content-Type is
// attacker-chosen text that the browser later reads as an instruction ("render this as
// HTML"), so only a bare, lower-case `type/subtype` from the bucket's list is kept: no
// parameters, no commas, no spaces. `image/png;,text/html` or `application/pdf ; x=1,
// text/html` is refused rather than cut at the `;` (Chromium renders the last type of such a
// list). Hosted storage compares `type` and `subtype` exactly, so it refuses these too.
import { invalidMimeType } from './errors';

/** RFC 9110 token characters, lower case only: one `type/subtype`, nothing around it. */
const BARE_MIME_RE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;
/**
 * A bucket with no list (none of ours: test buckets, other clients' buckets) takes what
 * hosted takes from supabase-js, such as its default `text/plain;charset=UTF-8`: one type
 * (any case) with `;name=value` parameters, but still no comma, quote or second type.
 */
const PARAMETERISED_MIME_RE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(?:[ \t]*;[ \t]*[A-Za-z0-9!#$&^_.+-]+=[A-Za-z0-9!#$&^_.+-]+)*$/;
/** A bucket's allowed entry: a bare type or `type/*`. */
const ALLOWED_ENTRY_RE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/;

/** Images a browser shows without running anything (SVG is a document, so it is not one). */
const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/avif',
]);

/** What storage serves when it cannot vouch for the stored type. */
export const OPAQUE_MIME_TYPE = 'application/octet-stream';

export function isBareMimeType(value: string): boolean {
  return BARE_MIME_RE.test(value);
}

export function isAllowedMimeEntry(value: string): boolean {
  return ALLOWED_ENTRY_RE.test(value);
}

function inAllowedList(mime: string, allowed: readonly string[]): boolean {
  const [type] = mime.split('/');
  return allowed.some((entry) => entry === mime || entry === `${type}/*`);
}

function hasList(allowed: readonly string[] | null): allowed is readonly string[] {
  return allowed !== null && allowed.length > 0;
}

/** Whether `mime` may be stored in (or served from) a bucket with this allowed list. */
function fitsBucket(mime: string, allowed: readonly string[] | null): boolean {
  return hasList(allowed)
    ? isBareMimeType(mime) && inAllowedList(mime, allowed)
    : PARAMETERISED_MIME_RE.test(mime);
}

/** The type an upload (or a copy's target) may store; throws 415 for anything else. */
export function acceptedMimeType(raw: string, allowed: readonly string[] | null): string {
  if (!fitsBucket(raw, allowed)) throw invalidMimeType(raw);
  return raw;
}

/**
 * The Content-Type to serve for a stored type: itself when it is still bare and allowed by
 * its bucket, else opaque bytes (an object stored before these rules, or a bucket whose list
 * changed since).
 */
export function servedMimeType(stored: unknown, allowed: readonly string[] | null): string {
  return typeof stored === 'string' && fitsBucket(stored, allowed) ? stored : OPAQUE_MIME_TYPE;
}

/** Whether a served type may be shown in place; everything else is sent as a download. */
export function servedInline(mime: string): boolean {
  return INLINE_IMAGE_TYPES.has(mime.toLowerCase());
}

/**
 * Headers every storage response carries. nosniff stops a browser guessing HTML from the
 * bytes; the sandbox CSP means that even a document opened straight from the API origin
 * runs no script and reaches nothing.
 */
export const STORAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
};
