// `npm start`: starts the devstack (the local Supabase API, seeded, on 127.0.0.1:54321),
// builds the app against it and serves the production build, so the real service worker
// runs. The URL is printed once the app answers there; a taken port is said in one sentence
// before anything starts; if either server stops, the other is stopped too; Ctrl-C stops
// everything. Playwright's webServer runs this too (playwright.config.ts).
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** Default port for the preview server; PORT overrides. */
const DEFAULT_PORT = 4173;
/** The host vite preview listens on by default (so the port check asks the same question). */
const PREVIEW_HOST = 'localhost';
/** Where the devstack listens (devstack/cli.ts); DEVSTACK_PORT overrides the port. */
const DEVSTACK_HOST = '127.0.0.1';
const DEFAULT_DEVSTACK_PORT = 54321;
/** The devstack's well-known local publishable key (the Supabase CLI's, public). */
const DEVSTACK_PUBLISHABLE_KEY = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';
/** How long the preview server may take to answer its first request (ms). */
const PREVIEW_READY_TIMEOUT_MS = 30_000;
/** Pause between "does it answer yet?" requests (ms). */
const PREVIEW_POLL_MS = 100;
/** How long children get to stop after SIGTERM/SIGINT before they are killed (ms). */
const STOP_GRACE_MS = 5_000;

const root = fileURLToPath(new URL('..', import.meta.url));
const viteBin = fileURLToPath(new URL('../node_modules/vite/bin/vite.js', import.meta.url));
const tsxBin = fileURLToPath(new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url));

const port = process.env.PORT ? Number(process.env.PORT) : DEFAULT_PORT;
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`PORT must be a TCP port number, got ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}
const devstackPort = Number(process.env.DEVSTACK_PORT ?? DEFAULT_DEVSTACK_PORT);
const apiUrl = `http://${DEVSTACK_HOST}:${devstackPort}`;
const appUrl = `http://localhost:${port}/`;

/** Every child still running, by the name used in messages. */
const children = new Map();
let stopping = false;
let exitStatus = 0;

/** Stops every child (killing stragglers after STOP_GRACE_MS), then exits with `status`. */
function stopAll(signal, status) {
  if (!stopping) exitStatus = status;
  stopping = true;
  if (children.size === 0) process.exit(exitStatus);
  for (const child of children.values()) child.kill(signal);
  setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
  }, STOP_GRACE_MS).unref();
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stopAll(signal, 0));

/**
 * Starts a child. A long-running one (`expected: false`) stopping on its own stops everything
 * else: a preview without its backend, or a backend without the app, is no use to anyone.
 */
function start(name, args, { expected = false, ...options } = {}) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', ...options });
  children.set(name, child);
  child.once('error', (error) => {
    children.delete(name);
    if (stopping) return;
    console.error(`Could not start the ${name}: ${error.message}`);
    stopAll('SIGTERM', 1);
  });
  child.once('exit', (code, signal) => {
    children.delete(name);
    if (stopping) {
      if (children.size === 0) process.exit(exitStatus);
      return;
    }
    if (expected) return;
    const how = signal ? `was stopped by ${signal}` : `exited with code ${code}`;
    console.error(`\nThe ${name} ${how}, so Outpost is stopping too.`);
    stopAll('SIGTERM', code || 1);
  });
  return child;
}

function exitCode(child) {
  return new Promise((resolve) => {
    child.once('error', () => resolve(1));
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** Whether `port` can be listened on at `host` (nothing else holds it). */
function portIsFree(port, host) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host }, () => probe.close(() => resolve(true)));
  });
}

/** Resolves once the preview server answers at `appUrl`; false if it stopped or never did. */
async function answers(child) {
  const deadline = Date.now() + PREVIEW_READY_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    try {
      const response = await fetch(appUrl, { signal: AbortSignal.timeout(PREVIEW_POLL_MS * 10) });
      await response.body?.cancel();
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, PREVIEW_POLL_MS));
  }
  return false;
}

// 0. The ports first: a minute of building must not end in "port in use".
for (const [what, host, number, variable] of [
  ['Port', PREVIEW_HOST, port, 'PORT'],
  ["The devstack's port", DEVSTACK_HOST, devstackPort, 'DEVSTACK_PORT'],
]) {
  if (!(await portIsFree(number, host))) {
    console.error(
      `${what} ${number} is already in use: stop what is using it, or choose another with ${variable}=… npm start.`,
    );
    process.exit(1);
  }
}

// 1. The backend; wait for its "ready" line.
// Links the backend makes (invites) point at the app as served here.
const backend = start('devstack', [tsxBin, 'devstack/cli.ts'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: {
    ...process.env,
    DEVSTACK_SITE_URL: process.env.DEVSTACK_SITE_URL ?? `http://localhost:${port}`,
  },
});
await new Promise((resolve) => {
  backend.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    if (String(chunk).includes('devstack ready')) resolve();
  });
  // Exiting before ready is reported (and everything stopped) by start()'s exit handler.
});

// 2. Build the app against it, then 3. serve the build.
const env = {
  ...process.env,
  VITE_SUPABASE_URL: apiUrl,
  VITE_SUPABASE_PUBLISHABLE_KEY: DEVSTACK_PUBLISHABLE_KEY,
};
// --mode devstack: a build for the local devstack, which the production build refuses
// (scripts/build-env.ts).
const buildCode = await exitCode(
  start('build', [viteBin, 'build', '--mode', 'devstack'], { env, expected: true }),
);
if (stopping) await new Promise(() => undefined); // stopAll exits once children are gone
if (buildCode !== 0) {
  console.error(`\nThe build failed (exit code ${buildCode}), so Outpost is stopping.`);
  stopAll('SIGTERM', buildCode);
  await new Promise(() => undefined);
}

// With the build's env: vite.config.ts makes the Content-Security-Policy header (and its
// connect-src) from VITE_SUPABASE_URL, which must be the URL the build talks to.
const preview = start(
  'preview server',
  [viteBin, 'preview', '--port', String(port), '--strictPort'],
  {
    env,
  },
);
// 4. The URL only once it answers (a port taken meanwhile ends the preview, reported above).
if (await answers(preview)) {
  console.log(`
Outpost is running at ${appUrl}  (API ${apiUrl})
Demo accounts: alice@example.com / outpost-demo, bob@example.com / outpost-demo
Ctrl-C stops the app and the backend.
`);
} else if (!stopping) {
  console.error(
    `\nThe preview server did not answer at ${appUrl} within ${PREVIEW_READY_TIMEOUT_MS / 1000} s, so Outpost is stopping.`,
  );
  stopAll('SIGTERM', 1);
}
