// A static file server for a production build whose folder can be switched while it runs:
// the update-flow test serves build A, then build B at the same origin, as a deploy would.
// Paths without a file fall back to index.html (the app's routes); sw.js is never cached
// by HTTP, as hosts are told to do for service workers.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

export interface SwitchableServer {
  url: string;
  /** Serve this build folder from now on. */
  serve(root: string): void;
  close(): Promise<void>;
}

/** `port` 0 picks a free one. */
export async function startStaticServer(port: number, root: string): Promise<SwitchableServer> {
  let current = root;
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const safe = normalize(path).replace(/^(\.\.[/\\])+/, '');
    let file = join(current, safe);
    if (!existsSync(file) || statSync(file).isDirectory()) file = join(current, 'index.html');
    res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader(
      'Cache-Control',
      /\/assets\//.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    // localhost, not 127.0.0.1: a secure context, so the service worker registers.
    url: `http://localhost:${actualPort}`,
    serve(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      ),
  };
}
