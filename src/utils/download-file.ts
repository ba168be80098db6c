// Hands a file made in the page to the browser as a download (an object URL on a hidden link).

/** How long the download's object URL lives (ms): some browsers read it after click(). */
const OBJECT_URL_TTL_MS = 60_000;

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
