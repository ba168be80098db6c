// Hands a file made in the page to the browser as a download (an object URL on a hidden link),
// and names a list's export after the list and the day.

import { todayIso } from './format';

/** How long the download's object URL lives (ms): some browsers read it after click(). */
const OBJECT_URL_TTL_MS = 60_000;

/** Longest base name kept (characters): file systems stop at 255 bytes, UTF-8 takes up to 4. */
const FILE_BASE_MAX_CHARS = 60;

export function downloadFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), OBJECT_URL_TTL_MS);
}

/**
 * `Groceries 2026-11-27.csv`: the list's name as people wrote it (spaces, accents, emoji
 * kept), less what Windows, macOS or Linux refuse in a file name (`<>:"/\|?*`, control
 * characters, leading dots, trailing dots and spaces), and the local date of `now`.
 * A name with nothing left is "list".
 */
export function exportFileName(listName: string, now: number, extension: string): string {
  const base = Array.from(
    listName
      // eslint-disable-next-line no-control-regex -- control characters are what is removed
      .replace(/[<>:"/\\|?*\u0000-\u001f\u007f]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^\.+/, ''),
  )
    .slice(0, FILE_BASE_MAX_CHARS)
    .join('')
    .replace(/[. ]+$/, '');
  return `${base || 'list'} ${todayIso(now)}.${extension}`;
}
