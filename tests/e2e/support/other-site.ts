// A page of another site for the share target's e2e test (issue 35): a real HTTP server on
// 127.0.0.1 (another site than the app's localhost), serving one page with a form that posts
// files to the app's /share, the way any website could.
import { createServer, type Server } from 'node:http';

export interface OtherSite {
  /** The page with the form. */
  url: string;
  close(): Promise<void>;
}

/** Serves a form posting multipart/form-data to `action` (the field names of the manifest). */
export async function startOtherSite(action: string): Promise<OtherSite> {
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Another site</title></head>
<body>
<form method="post" enctype="multipart/form-data" action="${action}">
  <input type="hidden" name="title" value="Planted">
  <input type="hidden" name="text" value="From another site">
  <label>Files <input type="file" name="files" multiple></label>
  <button>Send</button>
</form>
</body></html>`;
  const server: Server = createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      ),
  };
}
