// `npm run backend`: the devstack on 127.0.0.1:54321 with a persistent PGlite under
// .devstack/ (or DATABASE_URL), seeded on first start. Prints what a developer needs.
// DEVSTACK_MEMORY=true keeps everything in memory and temp dirs instead (browser tests: a
// fresh seeded backend per run, nothing left behind).
import { join } from 'node:path';

import { TEST_RATE_LIMITS } from './auth/config';
import { MAIL_VIEWER_PATH } from './auth/mail-viewer';
import { REPO_ROOT } from './schema-files';
import { DEFAULT_PORT, startDevstack } from './server';

const port = Number(process.env.DEVSTACK_PORT ?? DEFAULT_PORT);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(
    `DEVSTACK_PORT must be a TCP port, got ${JSON.stringify(process.env.DEVSTACK_PORT)}`,
  );
  process.exit(1);
}
const dataRoot = process.env.DEVSTACK_DATA_DIR ?? join(REPO_ROOT, '.devstack');
const databaseUrl = process.env.DATABASE_URL;
const inMemory = process.env.DEVSTACK_MEMORY === 'true';
// Browser tests sign dozens of people in from 127.0.0.1 in a few minutes; never for real use.
const testRateLimits = process.env.DEVSTACK_TEST_RATE_LIMITS === 'true';

const started = performance.now();
// Another project's supabase/ directory to host instead of Outpost's (project-dir.ts).
const projectDir = process.env.DEVSTACK_PROJECT_DIR || undefined;
const stack = await startDevstack({
  port,
  ...(projectDir === undefined ? {} : { projectDir }),
  databaseUrl,
  dataDir: databaseUrl || inMemory ? undefined : join(dataRoot, 'db'),
  ...(inMemory ? {} : { storageDir: join(dataRoot, 'storage') }),
  seed: process.env.DEVSTACK_SEED !== 'false',
  auth: {
    // Mail links with no allowed redirect_to lead to the app `npm start` serves (config.toml's
    // site_url otherwise).
    ...(process.env.DEVSTACK_SITE_URL ? { siteUrl: process.env.DEVSTACK_SITE_URL } : {}),
    ...(testRateLimits ? { rateLimits: TEST_RATE_LIMITS } : {}),
  },
}).catch((error: unknown) => {
  // A port in use is the usual reason: say so in a sentence, not a stack trace.
  if ((error as { code?: unknown } | null)?.code === 'EADDRINUSE') {
    console.error(
      `Port ${port} is already in use: stop what is using it, or choose another with DEVSTACK_PORT=…`,
    );
    process.exit(1);
  }
  throw error;
});

console.log(`
Outpost devstack ready in ${Math.round(performance.now() - started)} ms
  API URL:          ${stack.url}
  database:         ${describeDatabase()}
  publishable key:  ${stack.publishableKey}
  secret key:       ${stack.secretKey}  (servers only: refused from browsers)
  JWKS:             ${stack.url}/auth/v1/.well-known/jwks.json (sessions are ES256)
${legacyLines()}
  demo accounts:    alice@example.com / outpost-demo, bob@example.com / outpost-demo
  mail viewer:      ${stack.url}${MAIL_VIEWER_PATH}/ (every mail auth sends; JSON as Mailpit's under api/v1)
Ctrl-C to stop.`);

/** The legacy keys, printed only while they are on (DEVSTACK_LEGACY_KEYS=true). */
function legacyLines(): string {
  const legacy = stack.legacyKeys;
  if (!legacy) return '  legacy keys:      off (DEVSTACK_LEGACY_KEYS=true turns them on)';
  return [
    `  legacy anon key:  ${legacy.anonKey}`,
    `  legacy service_role key: ${legacy.serviceRoleKey}`,
    `  legacy JWT secret (HS256): ${legacy.jwtSecret}`,
  ].join('\n');
}

function describeDatabase(): string {
  if (databaseUrl) return databaseUrl.replace(/:[^:@/]*@/, ':***@');
  return inMemory ? 'PGlite in memory (DEVSTACK_MEMORY=true)' : `PGlite at ${join(dataRoot, 'db')}`;
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    stack
      .stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        console.error('devstack: error while stopping', error);
        process.exit(1);
      });
  });
}
