// The name a downloaded attachment is saved under. `file_name` is whatever the uploader typed
// or their device said, so on its own it could save a "PDF" as `invoice.html` (which the
// device would then open as a web page) or hide an extension behind a right-to-left override.
// The saved name always ends in the extension of the attachment's checked type instead.
import { ATTACHMENT_EXTENSIONS } from '@/data/schema';

/** Extensions that already say the type, beyond the canonical one. */
const SYNONYMS: Partial<Record<string, readonly string[]>> = { 'image/jpeg': ['jpeg'] };

/** Control characters and the invisible marks that reorder how a name reads. */
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `fileName` made safe to save: no control or direction characters, and ending in the
 * extension of `mimeType` (appended when it does not already; `.bin` for an unknown type).
 */
export function downloadName(fileName: string, mimeType: string): string {
  const extension = (ATTACHMENT_EXTENSIONS as Readonly<Record<string, string>>)[mimeType] ?? 'bin';
  const name = fileName.replace(UNSAFE_CHARACTERS, '').trim() || 'attachment';
  const lower = name.toLowerCase();
  const fits = [extension, ...(SYNONYMS[mimeType] ?? [])].some((ext) => lower.endsWith(`.${ext}`));
  return fits ? name : `${name}.${extension}`;
}
