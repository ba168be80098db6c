// The gateway the official suites expect on 127.0.0.1:54321 / localhost:54321, in front of a
// devstack on another port. It forwards every request and answer unchanged, except one thing
// the Supabase CLI's gateway does that hosted's does not: a request with no `apikey` (header
// or query) is let through to the service, which takes it as anon (PostgREST) or reads only
// the Bearer (GoTrue, storage). postgrest-js's suite sends none. The devstack itself stays as
// strict as hosted (401 without a key); this proxy adds the project's publishable key to such
// requests where the CLI's services would have served them (addsKey).
import { createServer, request } from 'node:http';

/**
 * Where the CLI lets a request without an apikey through: PostgREST takes it as anon, GoTrue
 * reads only the Bearer, storage reads only the Bearer (and refuses a request with none:
 * "Invalid Compact JWS", which the devstack answers as hosted does, so such a request is left
 * as it is).
 */
function addsKey(url, headers) {
  if (url.pathname.startsWith('/rest/v1') || url.pathname.startsWith('/auth/v1')) return true;
  return url.pathname.startsWith('/storage/v1') && headers.authorization !== undefined;
}

export async function startProxy({ port, target, apikey }) {
  const upstream = new URL(target);
  const handler = (req, res) => {
    const headers = { ...req.headers };
    const url = new URL(req.url ?? '/', 'http://proxy');
    if (headers.apikey === undefined && !url.searchParams.has('apikey') && addsKey(url, headers)) {
      headers.apikey = apikey;
    }
    headers.host = upstream.host;
    const out = request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    out.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `proxy: ${error.message}` }));
    });
    req.pipe(out);
  };
  // Both loopbacks: "localhost" may resolve to ::1 first.
  const servers = [];
  for (const host of ['127.0.0.1', '::1']) {
    const server = createServer(handler);
    // Keep idle connections as long as the CLI's gateway does (Node closes them after 5 s).
    // jest compiles the next test file synchronously for longer than that; its first request
    // then went out on a socket the server had just closed ("fetch failed": other side closed).
    server.keepAliveTimeout = 120_000;
    await new Promise((resolve, reject) => {
      server.once('error', (error) => (host === '::1' ? resolve() : reject(error)));
      server.listen(port, host, () => resolve());
    });
    if (server.listening) servers.push(server);
  }
  return {
    close: () =>
      Promise.all(
        servers.map(
          (server) =>
            new Promise((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      ),
  };
}
