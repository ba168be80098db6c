// The page the service worker answers a POST to /share with when it keeps nothing of it
// (share-origin.ts, share-body.ts): a small page of its own rather than the app's share
// screen, so it says why without the app loading or asking anyone to sign in first, and
// nothing of the request is written into it.
import type { ShareBodyErrorCode } from './share-body';
import type { ShareOriginRefusal } from './share-origin';

export type ShareRefusedCode = ShareOriginRefusal | ShareBodyErrorCode;

const REASONS: Record<ShareRefusedCode, { status: number; text: string }> = {
  NOT_NAVIGATION: {
    status: 403,
    text: 'This was sent by a web page, not by your device’s share sheet.',
  },
  FOREIGN_ORIGIN: {
    status: 403,
    text: 'This was sent by another website, not by your device’s share sheet.',
  },
  TOO_LARGE: {
    status: 413,
    text: 'What was shared is more than Outpost takes at once (up to 20 files of 10 MB each).',
  },
  TOO_MANY_PARTS: {
    status: 413,
    text: 'What was shared has more files than Outpost takes at once.',
  },
  NOT_MULTIPART: { status: 415, text: 'What was shared could not be read.' },
  MALFORMED: { status: 400, text: 'What was shared could not be read.' },
};

/** The refusal page for `code`: status, wording, and a way back into the app. */
export function shareRefusedResponse(code: ShareRefusedCode): Response {
  const { status, text } = REASONS[code];
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Not added · Outpost</title>
<style>body{font:1rem/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}</style>
</head>
<body>
<main>
<h1>Not added to Outpost</h1>
<p data-refusal="${code}">${text} Nothing of it was kept on this device.</p>
<p>To add files, share them again from the other app, or add them on a task.</p>
<p><a href="/lists">Go to your lists</a></p>
</main>
</body>
</html>
`;
  return new Response(html, {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      // Nothing to run or load here; the page cannot be framed, the link is same-origin.
      'Content-Security-Policy':
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
    },
  });
}
