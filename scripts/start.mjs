// `npm start`: builds the app and serves the production build, so the real service worker runs.
// For now this is only `vite build` + `vite preview`; a later issue makes it start the devstack
// (the local Supabase API) alongside.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Default port for the preview server; PORT overrides. */
const DEFAULT_PORT = 4173;

const root = fileURLToPath(new URL('..', import.meta.url));
const viteBin = fileURLToPath(new URL('../node_modules/vite/bin/vite.js', import.meta.url));

const port = process.env.PORT ? Number(process.env.PORT) : DEFAULT_PORT;
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`PORT must be a TCP port number, got ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}

/** The running child, so a signal reaches whichever step is in progress. */
let child = null;
let stopping = false;

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopping = true;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
    } else {
      process.exit(0);
    }
  });
}

/** Runs vite with `args`; resolves with its exit code (0 if we stopped it on request). */
function runVite(args) {
  return new Promise((resolve, reject) => {
    child = spawn(process.execPath, [viteBin, ...args], { cwd: root, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      child = null;
      if (stopping) resolve(0);
      else resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const buildCode = await runVite(['build']);
if (stopping || buildCode !== 0) process.exit(buildCode);

console.log(`\nOutpost: serving the production build at http://localhost:${port}/\n`);
const previewCode = await runVite(['preview', '--port', String(port), '--strictPort']);
process.exit(previewCode);
