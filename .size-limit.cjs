// Bundle budgets (`npm run size`, after `npm run build`), issue 6:
// - the app shell: the JS index.html loads on every start (entry chunk and what it
//   preloads), ≤ 200 kB gzip. Screens are chunks fetched on first use (precached, so they
//   open offline) and have their own line, as does all app JS together;
// - the sync library without Dexie and supabase-js (scripts/bundle-sync.mjs), as any app
//   adopting it ships it (sync/core.ts: engine, device database, write store, Supabase port,
//   wire validation), ≤ 15 kB (issue 15); and Outpost on it (sync/index.ts: plus Outpost's
//   tables, rules, write API and read API, which was screen code before), ≤ 19 kB;
// - everything the service worker precaches, reported.
const { existsSync, readFileSync } = require('node:fs');

function shellScripts() {
  if (!existsSync('dist/index.html')) return ['dist/index.html'];
  const html = readFileSync('dist/index.html', 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map(
    (match) => `dist/${match[1]}`,
  );
  if (files.length === 0) throw new Error('dist/index.html loads no script');
  return files;
}

module.exports = [
  {
    name: 'app shell JS: what index.html loads (gzip)',
    path: shellScripts(),
    limit: '200 kB',
    gzip: true,
  },
  {
    name: 'all app JS, screens included (gzip)',
    path: 'dist/assets/*.js',
    limit: '300 kB',
    gzip: true,
  },
  {
    name: 'sync library (sync/core.ts) without Dexie and supabase-js (gzip)',
    path: '.tmp/sync-core.js',
    limit: '15 kB',
    gzip: true,
  },
  {
    name: "Outpost's sync (sync/index.ts: the library + Outpost's data, writes, reads) (gzip)",
    path: '.tmp/sync-engine.js',
    limit: '19 kB',
    gzip: true,
  },
  {
    name: 'precache total (raw)',
    path: [
      'dist/**/*.{js,css,html,svg,png,ico,webmanifest}',
      '!dist/sw.js',
      '!dist/screenshots/**',
    ],
    limit: '1 MB',
    gzip: false,
    brotli: false,
  },
];
