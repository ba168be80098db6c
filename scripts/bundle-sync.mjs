// Bundles the sync library (minified) into .tmp/ so size-limit can hold it to its budgets:
// - sync/index.ts, the library's public entry alone, as any app adopting it ships it: the
//   engine's rooms, the device database, the generic write store and the Supabase port;
// - src/data/sync.ts, Outpost on it: plus Outpost's tables, rules, write API and read API.
// Dexie and supabase-js stay out: they are the storage and the server client the engine
// drives, not its own weight. Everything else it imports (valibot for validation,
// fractional-indexing) is bundled and counted.
import { build } from 'esbuild';

for (const [entry, out] of [
  ['sync/index.ts', '.tmp/sync-core.js'],
  ['src/data/sync.ts', '.tmp/sync-engine.js'],
]) {
  await build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['dexie', '@supabase/supabase-js'],
    alias: { '@sync': './sync' },
    logLevel: 'warning',
  });
}
