// Bundle budgets (`npm run size`, after `npm run build`), issue 6:
// - the app shell: the JS index.html loads on every start (entry chunk and what it
//   needs), ≤ 129.2 kB gzip (issue 16: was 200 kB, then 143; issue 17 put what must work
//   from the first frame on every screen in it, Ctrl/Cmd+K and Ctrl/Cmd+Z, undo's recording
//   repositories, held deletes, the toasts' corner, the navigation's column: 143.2 kB; then
//   wouter for React Router, −11.2 kB, the sync engine loaded when it starts, −4.4 kB, and
//   no modulepreload polyfill: 127.3 kB; the first list screen's reads started before the
//   first render, their queries with them: 128.25 kB; classic scripts rather than ES modules,
//   so a new tab starts from V8's code cache, with the chunk loader and the build's chunk
//   graph in the shell: 129.16 kB, of the issue's 130; the screens' shared modules in one
//   chunk, so that graph is shorter: 128.73 kB; the header's quiet syncs: 129.03 kB, with
//   some 50 B between builds); issues 35 and 36: the tab's owner check that clears another
//   account's undo history and caches before the first render, and the routes of the email
//   links (reset password, confirm an address): 129.42 kB, so ≤ 129.5 kB; issue 37: the screens
//   read through the library's typed reader, which now answers the bookkeeping reads Outpost's
//   queries made of the library's tables: 129.66 kB, so ≤ 129.7 kB; issue 38: the Supabase port
//   (remote.ts, its wire schemas) loaded with the engine, the account following only the
//   session (session.ts), and what a sign-in or sign-out does to the store loaded when one
//   happens (account-changes.ts), −1.0 kB: 128.64 kB, so ≤ 129.2 kB; issue 39: repeating tasks
//   and checklists in the one validation module and the one write API every screen shares
//   (the repeat rule, the checklist item's schema and writes, completions that load the next
//   occurrence's maker on first use), device version 3, three routes: 130.32 kB, so ≤ 130.4 kB,
//   with My work's and checklists' reads (queries.extend) and the next-occurrence maker with
//   recurrence.ts (successors.ts) out of the shell, which had them at 131.39 kB; issue 40: the
//   bulk bar's writes (bulk-writes.ts, with completeMany and undoComplete, which only the bulk
//   bar and undo use), the Members screen's writes (membership-writes.ts) and attaching a file
//   (attachment-writes.ts) loaded on first use, which pays for a task opening beside its list
//   and the store's nested transaction: 130.34 kB, was 130.74 with them in the shell; issue 42:
//   the header's sync status (and the error sentences only it used) loaded with the
//   navigation's chunk, as it shows only beside it, −1.5 kB, and the shell's start waiting for
//   the document and a first visit's paint: 128.86 kB, so ≤ 129.2 kB). What the first screen
//   needs to paint from the device database: React, Dexie, the router, the sync library's
//   reads and writes, the frame and the session gate. What only talks to the server or only
//   some actions need is loaded after start-up or on first use (supabase-js, the engine's push,
//   pull and realtime, workbox-window and the update flow, the shortcuts dialog, rejection
//   sentences, exports, invites, avatar uploads), as screens are: chunks (precached, so they
//   open offline) with their own line, as does all app JS together;
// - the first visit's script (issue 42, src/boot/first-visit.ts): index.html loads it too, before
//   the shell, but it is the welcome screen's page as HTML (the build's render of the app's
//   components) and the few lines that show it on a browser's very first visit; any other start
//   only reads three localStorage keys with it (its page is a string, never parsed): 1.8 kB,
//   ≤ 2 kB;
// - the sync library without Dexie and supabase-js (scripts/bundle-sync.mjs), as any app
//   adopting it ships it (sync/index.ts: engine, device database, write store, Supabase port,
//   wire validation), ≤ 15 kB (issue 15); and Outpost on it (src/data/sync.ts: plus Outpost's
//   tables, rules, write API and read API, which was screen code before), ≤ 20 kB (issue
//   16 added the outbox's kept counts, the pull's look-ahead and progress, and index
//   counts: 19.8 kB), ≤ 21 kB (issue 17 added the read API's find for the command palette,
//   and row and neighbours for undo: 20.1 kB; the engine as a dynamic import, which esbuild
//   inlines here with its module wrappers: 20.8 kB), ≤ 21.3 kB and 15.1 kB (issue 35: every
//   realtime row's topic checked against its table's rule, and a fresh realtime token when a
//   membership of the user changes: 21.24 and 15.0 kB), ≤ 21.4 kB and 15.9 kB (issue 37: the
//   schedule's state as one named value whose transitions are functions over it, property
//   names a minifier keeps, +0.5 kB; the typed reader, +0.24 kB: 21.33 and 15.82 kB), ≤ 21.6 kB
//   and 16.1 kB (issue 38: the Supabase port and the account's sign-in and sign-out changes
//   as modules loaded on first use, which this one-file bundle inlines with esbuild's lazy
//   module wrappers, +0.23 kB: 21.56 and 16.05 kB), ≤ 21.9 kB and 16.4 kB (issue 38 too: the
//   rows others changed handed to the app for notifications, the hand-over of queued changes
//   to the service worker, the engine without realtime for a background run: 21.85 and
//   16.3 kB), ≤ 24.1 kB (issue 39: the checklist_items table and its rules, the repeat rule,
//   checklist writes, completions making the next occurrence, and successors.ts with
//   recurrence.ts, which the app loads on first use and this one-file bundle inlines: 24.0 kB;
//   My work's and checklists' reads are modules the screens bring, not in this line), ≤ 25.5 kB
//   and 16.5 kB (issue 40: the bulk bar's writes, which the app loads on first use and this
//   one-file bundle inlines, +1.2 kB; a write inside another write's transaction joins it,
//   +20 B: 25.41 and 16.42 kB), ≤ 25.7 kB and 16.7 kB (issue 42: a burst of writes pushed once
//   it pauses, and a realtime row's device copy read before it is written, so live counts of
//   other containers are not read again: 25.53 and 16.56 kB);
// - the service worker (issue 38: it now runs the sync in the background, so it carries the
//   engine, Dexie, supabase-js and Outpost's tables: 115.8 kB, was 12.3 kB), ≤ 120 kB: parsed
//   when the browser starts the worker (compiled code cached with it), never by a page;
// - everything the service worker precaches, reported.
const { existsSync, readFileSync } = require('node:fs');

/** The scripts index.html loads: the app shell's (`shell: true`), or the first visit's. */
function indexScripts({ shell }) {
  if (!existsSync('dist/index.html')) return ['dist/index.html'];
  const html = readFileSync('dist/index.html', 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)]
    .map((match) => `dist/${match[1]}`)
    .filter((file) => /\/first-visit-[^/]+\.js$/.test(file) !== shell);
  if (files.length === 0) {
    throw new Error(`dist/index.html loads no ${shell ? 'app shell' : 'first visit'} script`);
  }
  return files;
}

module.exports = [
  {
    name: "app shell JS: what index.html loads but the first visit's script (gzip)",
    path: indexScripts({ shell: true }),
    limit: '129.2 kB',
    gzip: true,
  },
  {
    name: "first visit's script: the welcome screen's page and what shows it (gzip)",
    path: indexScripts({ shell: false }),
    limit: '2 kB',
    gzip: true,
  },
  {
    name: 'all app JS, screens included (gzip)',
    path: 'dist/assets/*.js',
    // Issue 39's screens (My work, quick add's parser, the checklist, the repeat menu): 305.4 kB.
    // Issue 40's (the bulk bar and its writes, the task beside its list, notes with links,
    // bottom sheets, swipes, Settings' sections): 317.3 kB.
    limit: '320 kB',
    gzip: true,
  },
  {
    name: 'sync library (sync/index.ts) without Dexie and supabase-js (gzip)',
    path: '.tmp/sync-core.js',
    limit: '16.7 kB',
    gzip: true,
  },
  {
    name: "Outpost's sync (src/data/sync.ts: the library + Outpost's data, writes, reads) (gzip)",
    path: '.tmp/sync-engine.js',
    limit: '25.7 kB',
    gzip: true,
  },
  {
    name: 'service worker (sw.js: shell routes, share target, background sync) (gzip)',
    path: 'dist/sw.js',
    limit: '120 kB',
    gzip: true,
  },
  {
    name: 'precache total (raw)',
    path: [
      'dist/**/*.{js,css,html,svg,png,ico,webmanifest}',
      '!dist/sw.js',
      '!dist/screenshots/**',
    ],
    // Issue 39's screens and their styles: 1.03 MB (was 980 kB); issue 40's: 1.08 MB.
    limit: '1.1 MB',
    gzip: false,
    brotli: false,
  },
];
