// Bundles the sync library alone (sync/index.ts, minified) into .tmp/ so size-limit can hold
// it to its budget. Dexie and supabase-js stay out: they are the storage and the server
// client the engine drives, not its own weight. Everything else it imports (valibot for the
// shared validation, fractional-indexing) is bundled and counted.
import { build } from 'esbuild';

await build({
  entryPoints: ['sync/index.ts'],
  outfile: '.tmp/sync-engine.js',
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  external: ['dexie', '@supabase/supabase-js'],
  logLevel: 'warning',
});
