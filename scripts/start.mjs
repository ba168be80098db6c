// `npm start`: starts the devstack (the local Supabase API, seeded, on 127.0.0.1:54321),
// builds the app against it and serves the production build, so the real service worker
// runs. Ctrl-C stops everything.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Default port for the preview server; PORT overrides. */
const DEFAULT_PORT = 4173;
/** The devstack's well-known local anon key (Supabase CLI demo key, public). */
const DEVSTACK_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';

const root = fileURLToPath(new URL('..', import.meta.url));
const viteBin = fileURLToPath(new URL('../node_modules/vite/bin/vite.js', import.meta.url));
const tsxBin = fileURLToPath(new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url));

const port = process.env.PORT ? Number(process.env.PORT) : DEFAULT_PORT;
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`PORT must be a TCP port number, got ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}
const apiUrl = `http://127.0.0.1:${process.env.DEVSTACK_PORT ?? 54321}`;

/** Every child still running, so a signal reaches all of them. */
const children = new Set();
let stopping = false;

function stopAll(signal) {
  stopping = true;
  for (const child of children) child.kill(signal);
  if (children.size === 0) process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stopAll(signal));

function start(args, options = {}) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', ...options });
  children.add(child);
  child.once('exit', () => {
    children.delete(child);
    if (stopping && children.size === 0) process.exit(0);
  });
  return child;
}

function exitCode(child) {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

// 1. The backend; wait for its "ready" line.
// Links the backend makes (invites) point at the app as served here.
const backend = start([tsxBin, 'devstack/cli.ts'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: {
    ...process.env,
    DEVSTACK_SITE_URL: process.env.DEVSTACK_SITE_URL ?? `http://localhost:${port}`,
  },
});
await new Promise((resolve, reject) => {
  backend.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    if (String(chunk).includes('devstack ready')) resolve();
  });
  backend.once('exit', (code) =>
    reject(new Error(`the devstack exited (${code}) before it was ready`)),
  );
}).catch((error) => {
  console.error(error.message);
  stopAll('SIGTERM');
  process.exit(1);
});

// 2. Build the app against it, then 3. serve the build.
const env = {
  ...process.env,
  VITE_SUPABASE_URL: apiUrl,
  VITE_SUPABASE_ANON_KEY: DEVSTACK_ANON_KEY,
};
const buildCode = await exitCode(start([viteBin, 'build'], { env }));
if (stopping) process.exit(0);
if (buildCode !== 0) {
  stopAll('SIGTERM');
  process.exit(buildCode);
}

console.log(`
Outpost is running at http://localhost:${port}/  (API ${apiUrl})
Demo accounts: alice@example.com / outpost-demo, bob@example.com / outpost-demo
Ctrl-C stops the app and the backend.
`);
const preview = start([viteBin, 'preview', '--port', String(port), '--strictPort'], { env });
const previewCode = await exitCode(preview);
if (!stopping) {
  stopAll('SIGTERM');
  process.exit(previewCode);
}
