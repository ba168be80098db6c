// `deno check` / `deno lint` over every edge function in supabase/functions, each with its own
// deno.json (as hosted deploys them), offline: npm: imports resolve from node_modules.
// Used by `npm run typecheck` and `npm run lint`; ESLint and tsc do not know Deno's globals.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const mode = process.argv[2];
if (mode !== 'check' && mode !== 'lint') {
  console.error('usage: node scripts/deno-functions.mjs check|lint');
  process.exit(2);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const functionsDir = join(root, 'supabase', 'functions');
const require = createRequire(import.meta.url);
const packageDir = join(require.resolve('deno/package.json'), '..');
const deno = existsSync(join(packageDir, 'deno'))
  ? join(packageDir, 'deno')
  : require(join(packageDir, 'install_api.cjs')).runInstall();

const functions = readdirSync(functionsDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !entry.name.startsWith('_'))
  .map((entry) => entry.name);

let failed = false;
for (const name of functions) {
  const dir = join(functionsDir, name);
  const args =
    mode === 'check'
      ? [
          'check',
          '--quiet',
          '--node-modules-dir=manual',
          '--config',
          join(dir, 'deno.json'),
          join(dir, 'index.ts'),
        ]
      : ['lint', '--quiet', '--config', join(dir, 'deno.json'), dir, join(functionsDir, '_shared')];
  const result = spawnSync(deno, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
  });
  if (result.status !== 0) {
    console.error(`deno ${mode} failed for supabase/functions/${name}`);
    failed = true;
  }
}
if (!failed) console.log(`deno ${mode}: ${functions.length} edge functions clean`);
process.exit(failed ? 1 : 0);
