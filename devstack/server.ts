// The devstack gateway: one Node HTTP server on 127.0.0.1:54321 that speaks Supabase's API
// (auth, rest, realtime, storage, functions) over the SQL in supabase/migrations, so
// unmodified supabase-js talks to it exactly as to a hosted project.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { serve } from '@hono/node-server';
import { Hono, type Context, type Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';

import { realClock, type DevstackClock } from './clock';
import { parseAuthConfig, withAuthOverrides, type AuthConfigOverrides } from './auth/config';
import { authRoutes, BCRYPT_COST, BCRYPT_MIN_COST } from './auth/routes';
import { MAIL_VIEWER_PATH, mailViewerRoutes } from './auth/mail-viewer';
import {
  apiKeyOf,
  secretKeyFromBrowser,
  type DevstackContext,
  type DevstackSettings,
} from './context';
import { openDevstackDatabase } from './database';
import { functionsRoutes } from './functions/routes';
import { createKeys, type Keys, type LegacyKeys } from './keys';
import { SECRET_KEY_IN_BROWSER } from './keys-api';
import { legacyKeysFromEnv, loadSigningKeys } from './keys-config';
import { configSettings, projectKeyOptions, readProjectDir } from './project-dir';
import { attachRealtime } from './realtime/server';
import { parseApiConfig } from './rest/config';
import { restRoutes } from './rest/routes';
import { REPO_ROOT, type SchemaSource } from './schema-files';
import type { SqlEngine } from './sql-engine';
import { storageRoutes } from './storage/routes';

/** The port the Supabase CLI serves its API on. */
export const DEFAULT_PORT = 54321;
/**
 * Largest request body the gateway passes to /rest/v1 and /auth/v1 (bytes). Hosted documents
 * no number for these; 2 MiB is twice the largest sync_push batch (1 MiB), far above any row
 * the migrations' CHECKs allow, and small enough that nobody parks megabytes in a row.
 * Storage and functions have limits of their own.
 */
export const MAX_API_BODY_BYTES = 2 * 1024 * 1024;

// What the browser may send and read, as hosted Supabase allows (wire reference §1).
const CORS_ALLOW_HEADERS = [
  'authorization',
  'apikey',
  'x-client-info',
  'content-type',
  'prefer',
  'accept-profile',
  'content-profile',
  'x-supabase-api-version',
  'x-upsert',
  'cache-control',
  'x-metadata',
  'x-retry-count',
  'range',
  'x-region',
];
const CORS_EXPOSE_HEADERS = ['Content-Range', 'X-Supabase-Api-Version', 'x-relay-error'];

export interface DevstackOptions {
  /** 0 picks a free port (tests). Default 54321. */
  port?: number;
  hostname?: string;
  /** Real Postgres instead of PGlite. */
  databaseUrl?: string | undefined;
  /**
   * A database already opened with openDevstackDatabase() to serve instead of opening one;
   * the caller keeps it (stop() leaves it open), so a devstack can restart on it.
   */
  database?: SqlEngine;
  /** Persistent PGlite data dir (npm run backend); in memory when absent. */
  dataDir?: string | undefined;
  /** Load supabase/seed.sql into a new database. Default true. */
  seed?: boolean;
  /** In-memory PGlite from the cached snapshot (default true). */
  useSnapshot?: boolean;
  /**
   * Build a new database from these migrations (and seed file) instead of supabase/'s: an
   * app's own schema under the sync kit (sync/kit). Default the repository's.
   */
  schema?: SchemaSource;
  /**
   * The legacy key model (anon/service_role JWT keys, HS256 tokens with the shared secret):
   * off by default, as on a project that has switched it off; true turns it on with the CLI's
   * demo secret, `{ jwtSecret }` with another. Default: DEVSTACK_LEGACY_KEYS (true/false).
   */
  legacyKeys?: boolean | { jwtSecret: string };
  /** Access-token lifetime (s); default config.toml's `auth.jwt_expiry`. Tests only go below 120. */
  accessTokenTtlSec?: number;
  /** The config.toml to honour (default supabase/config.toml). */
  configPath?: string;
  /**
   * Host another project: its supabase/ directory (config.toml, migrations/, seed files,
   * signing keys, functions/) instead of Outpost's, read as the Supabase CLI reads it
   * (project-dir.ts). Default: DEVSTACK_PROJECT_DIR when the CLI starts the devstack.
   */
  projectDir?: string;
  /** Overrides of config.toml's [auth] settings (tests that sign in a lot raise rate limits). */
  auth?: AuthConfigOverrides;
  /** Overrides config.toml's `api.max_rows`. */
  maxRows?: number;
  /**
   * The devstack's time (token iat/exp and their checks, refresh-token reuse, signed URLs,
   * realtime channel expiry, rate limits); default the real clock. Tests pass one they move.
   */
  clock?: DevstackClock;
  /**
   * bcrypt cost of new password hashes; default GoTrue's 10. Test suites that sign up dozens
   * of users pass BCRYPT_MIN_COST (4): a hash then takes ~3 ms instead of ~100. Never for real
   * use: an unknown address then answers faster than a seeded (cost 10) one.
   */
  passwordHashCost?: number;
  /** Where storage keeps bytes; a temp dir (removed on stop) when absent. */
  storageDir?: string;
}

export interface Devstack {
  readonly url: string;
  readonly port: number;
  /** The publishable key (`sb_publishable_…`): what an app or a browser sends (role anon). */
  readonly publishableKey: string;
  /** The secret key (`sb_secret_…`): servers only (role service_role; refused from browsers). */
  readonly secretKey: string;
  /** The legacy anon/service_role keys and JWT secret, or null (off, the default). */
  readonly legacyKeys: LegacyKeys | null;
  /** The key model itself: tests sign tokens with it and rotate or revoke signing keys. */
  readonly keys: Keys;
  readonly db: SqlEngine;
  /** Rows of realtime.messages Realtime has read to broadcast them (tests count reads). */
  realtimeMessagesRead(): number;
  stop(): Promise<void>;
}

/** Builds the HTTP app for a context (exported for in-process tests of routing). */
export function createGatewayApp(ctx: DevstackContext): Hono {
  const app = new Hono();
  // The mail viewer first, out of CORS's reach: its mails hold sign-in links (mail-viewer.ts).
  app.route(MAIL_VIEWER_PATH, mailViewerRoutes(ctx));
  app.use(
    '*',
    cors({
      origin: (origin) => origin || '*',
      allowHeaders: CORS_ALLOW_HEADERS,
      exposeHeaders: CORS_EXPOSE_HEADERS,
      allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      credentials: true,
      maxAge: 3600,
    }),
  );
  // The gateway's body limit, before any service reads a byte (storage and functions apply
  // their own). Answered in the gateway's shape, as Kong's request-size-limiting does.
  const limit = bodyLimit({
    maxSize: MAX_API_BODY_BYTES,
    // The rest of the body is never read, so the connection cannot carry another request.
    onError: (c) => {
      c.header('Connection', 'close');
      return c.json({ message: 'Request size limit exceeded' }, 413);
    },
  });
  app.use('/rest/v1/*', limit);
  app.use('/auth/v1/*', limit);
  // A project hosted from its own supabase/ directory may send JWTs as its apikey (the CLI's
  // model): checked here, once, so every service's key check knows them (keys.ts).
  app.use('*', async (c: Context, next: Next) => {
    const apikey = apiKeyOf(c);
    if (apikey !== undefined && apikey.split('.').length === 3) {
      await ctx.keys.admitJwtApiKey(apikey);
    }
    await next();
    return undefined;
  });
  // The gateway refuses a secret key from a browser before any service sees the request.
  app.use('*', async (c: Context, next: Next) => {
    if (c.req.method !== 'OPTIONS' && secretKeyFromBrowser(ctx, c)) {
      return c.json({ message: SECRET_KEY_IN_BROWSER }, 401);
    }
    await next();
    return undefined;
  });
  // The public halves of the signing keys, open to anyone (no apikey), as hosted serves them;
  // verifiers (supabase-js getClaims) cache the set for 10 minutes.
  app.get('/auth/v1/.well-known/jwks.json', (c) => {
    c.header('Cache-Control', 'public, max-age=600');
    return c.json(ctx.keys.jwks());
  });
  app.route('/auth/v1', authRoutes(ctx));
  app.route('/rest/v1', restRoutes(ctx));
  app.route('/storage/v1', storageRoutes(ctx));
  app.route('/functions/v1', functionsRoutes(ctx));
  app.get('/', (c) => c.json({ name: 'outpost devstack', url: ctx.url() }));
  app.notFound((c) => c.json({ message: 'no Route matched with those values' }, 404));
  // Never crash on a request: whatever escapes a service is a 500 with a JSON body.
  app.onError((error, c) => {
    // A client that hangs up mid-body (truncated upload) leaves nobody to answer.
    if (error.message === 'aborted') return c.json({ message: 'request aborted' }, 400);
    console.error('[devstack] unhandled error:', error);
    return c.json({ message: 'An internal error occurred' }, 500);
  });
  return app;
}

/** Starts the whole devstack; `stop()` shuts down every server, process and connection. */
export async function startDevstack(options: DevstackOptions = {}): Promise<Devstack> {
  // The config first: a bad config.toml fails before anything is started.
  const project = options.projectDir === undefined ? undefined : readProjectDir(options.projectDir);
  const configPath =
    options.configPath ?? project?.configPath ?? join(REPO_ROOT, 'supabase', 'config.toml');
  const configText = readFileSync(configPath, 'utf8');
  const auth = withAuthOverrides(parseAuthConfig(configText), options.auth);
  const maxRows = options.maxRows ?? parseApiConfig(configText).maxRows;
  const projectKeys = project ? await projectKeyOptions(project, legacyKeysFromEnv()) : undefined;
  const signingKeys = projectKeys?.signingKeys ?? loadSigningKeys(configText, configPath);
  const legacy = options.legacyKeys ?? projectKeys?.legacy ?? legacyKeysFromEnv();
  const passwordHashCost = options.passwordHashCost ?? BCRYPT_COST;
  if (
    !Number.isInteger(passwordHashCost) ||
    passwordHashCost < BCRYPT_MIN_COST ||
    passwordHashCost > 31
  ) {
    throw new Error(`passwordHashCost must be bcrypt's 4…31, got ${passwordHashCost}`);
  }
  const clock = options.clock ?? realClock;
  const keys = await createKeys({
    clock,
    signingKeys,
    legacy,
    jwtApiKeys: projectKeys?.jwtApiKeys ?? false,
  });
  const ownDatabase = options.database === undefined;
  const db =
    options.database ??
    (await openDevstackDatabase({
      databaseUrl: options.databaseUrl,
      dataDir: options.dataDir,
      seed: options.seed ?? project?.seed ?? true,
      useSnapshot: options.useSnapshot,
      schema: options.schema ?? project?.schema,
    }));

  const ownStorageDir = options.storageDir === undefined;
  const settings: DevstackSettings = {
    accessTokenTtlSec: options.accessTokenTtlSec ?? auth.jwtExpirySec,
    storageDir: options.storageDir ?? mkdtempSync(join(tmpdir(), 'outpost-storage-')),
    functionsDir: project?.functionsDir ?? join(REPO_ROOT, 'supabase', 'functions'),
    auth,
    maxRows,
    passwordHashCost,
    ...(() => {
      const api = configSettings(configText, configPath);
      return {
        apiSchemas: api.schemas,
        extraSearchPath: api.extraSearchPath,
        storageFileSizeLimit: api.storageFileSizeLimit,
      };
    })(),
  };

  const cleanups: (() => Promise<void> | void)[] = [];
  let baseUrl = '';
  const ctx: DevstackContext = {
    db,
    keys,
    settings,
    url: () => baseUrl,
    clock,
    onStop: (fn) => cleanups.push(fn),
  };

  const app = createGatewayApp(ctx);
  const hostname = options.hostname ?? '127.0.0.1';
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? DEFAULT_PORT, hostname }, () =>
      resolve(s),
    ) as Server;
    s.once('error', reject);
  });
  const address = server.address();
  const port =
    typeof address === 'object' && address ? address.port : (options.port ?? DEFAULT_PORT);
  baseUrl = `http://${hostname}:${port}`;
  const realtime = attachRealtime(ctx, server);
  // Every socket the server accepted, so stop() can end them all: closeAllConnections() ends
  // only those its HTTP parser still tracks, and a keep-alive socket it missed stayed open to
  // a stopped server (a client's next request on it, after a restart on the same port, failed
  // with 'other side closed').
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      await realtime.close();
      for (const fn of cleanups.reverse()) await fn();
      server.closeAllConnections();
      await Promise.all(
        [...sockets].map(
          (socket) =>
            new Promise<void>((resolve) => {
              socket.once('close', () => resolve());
              socket.destroy();
            }),
        ),
      );
      // Two turns of the event loop, so a client in this process (a test's fetch) has read
      // the end of its sockets before stop() resolves: one poll phase lies between them. A
      // restart on the same port would otherwise hand the next request an ended socket.
      for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownDatabase) await db.close();
      if (ownStorageDir) rmSync(settings.storageDir, { recursive: true, force: true });
    })();
    return stopped;
  };

  return {
    url: baseUrl,
    port,
    publishableKey: keys.publishableKey,
    secretKey: keys.secretKey,
    legacyKeys: keys.legacy,
    keys,
    db,
    realtimeMessagesRead: () => realtime.messagesRead(),
    stop,
  };
}
