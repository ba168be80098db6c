// `npm run backend`: the devstack on 127.0.0.1:54321 with a persistent PGlite under
// .devstack/ (or DATABASE_URL), seeded on first start. Prints what a developer needs.
// DEVSTACK_MEMORY=true keeps everything in memory and temp dirs instead (browser tests: a
// fresh seeded backend per run, nothing left behind).
import { join } from 'node:path';

import { TEST_RATE_LIMITS } from './auth/config';
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
const stack = await startDevstack({
  port,
  databaseUrl,
  dataDir: databaseUrl || inMemory ? undefined : join(dataRoot, 'db'),
  ...(inMemory ? {} : { storageDir: join(dataRoot, 'storage') }),
  seed: process.env.DEVSTACK_SEED !== 'false',
  ...(testRateLimits ? { auth: { rateLimits: TEST_RATE_LIMITS } } : {}),
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
  anon key:         ${stack.anonKey}
  service_role key: ${stack.serviceRoleKey}
  JWT secret:       ${stack.jwtSecret}
  demo accounts:    alice@example.com / outpost-demo, bob@example.com / outpost-demo
Ctrl-C to stop.`);

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
