// Bundle budgets (`npm run size`, after `npm run build`), issue 6:
// - the app shell: the JS index.html loads on every start (entry chunk and what it
//   preloads), ≤ 200 kB gzip. Screens are chunks fetched on first use (precached, so they
//   open offline) and have their own line, as does all app JS together;
// - the sync engine without Dexie and supabase-js (scripts/bundle-sync.mjs), ≤ 16 kB: its
//   validation library is counted (15 kB until realtime deltas, issue 19, took it to 15.6 kB);
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
    name: 'sync engine without Dexie and supabase-js (gzip)',
    path: '.tmp/sync-engine.js',
    limit: '16 kB',
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
