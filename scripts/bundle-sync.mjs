// Bundles the sync library alone (sync/index.ts, minified) into .tmp/ so size-limit can hold
// it to its budget. Dexie, supabase-js and zod stay out: the app ships them anyway (zod is
// the validation library the UI shares), so they are not the engine's own weight.
import { build } from 'esbuild';

await build({
  entryPoints: ['sync/index.ts'],
  outfile: '.tmp/sync-engine.js',
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  external: ['dexie', '@supabase/supabase-js', 'zod'],
  logLevel: 'warning',
});
