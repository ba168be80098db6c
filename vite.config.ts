import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import react from '@vitejs/plugin-react';
import type { ChunkingContext } from 'rolldown';
import { defineConfig, loadEnv, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

import { buildEnvMessage, checkBuildEnv } from './scripts/build-env';
import { classicScripts } from './scripts/classic-scripts';
import { firstVisitPage } from './scripts/first-visit';
import { SHARE_MIME_TYPES, SHARE_PATH } from './src/lib/pwa/share-inbox';

/** Port for `vite preview`; e2e tests and `npm start` serve the production build here. */
const DEFAULT_PREVIEW_PORT = 4173;

function previewPort(): number {
  const raw = process.env.PORT;
  if (raw === undefined || raw === '') return DEFAULT_PREVIEW_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`PORT must be a TCP port number, got ${JSON.stringify(raw)}`);
  }
  return port;
}

/** The light UI's background (index.html's light theme-color); the dark one is #14171c. */
const LIGHT_BACKGROUND = '#f6f7f9';

/** Where a dev server or a local build (`--mode devstack`) without VITE_SUPABASE_URL talks to. */
const DEVSTACK_URL = 'http://127.0.0.1:54321';

/**
 * The built app's Content-Security-Policy, for the one Supabase project it was built for.
 * Scripts only from our origin (no inline script, no eval): a script slipped into the page
 * cannot run, nor send the session anywhere but Supabase (connect-src). 'self' stays in
 * connect-src for the worker-script probe before update checks. Images: our icons, avatars
 * from the project's storage, and blob:/data: for attachments and picked photos. Inline
 * styles only as attributes (React style props, dnd-kit's transforms); no <style> elements.
 * PDFs are downloads, never frames, so no frame-src or object-src at all.
 */
export function contentSecurityPolicy(
  supabaseUrl: string,
  { header }: { header: boolean } = { header: true },
): string {
  const api = new URL(supabaseUrl).origin;
  const realtime = api.replace(/^http/, 'ws');
  const directives = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "style-src-elem 'self'",
    "style-src-attr 'unsafe-inline'",
    `img-src 'self' blob: data: ${api}`,
    `connect-src 'self' ${api} ${realtime}`,
    "worker-src 'self'",
    "manifest-src 'self'",
    "font-src 'self'",
    "media-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ];
  // A <meta> policy may not say frame-ancestors (browsers ignore it there, with a warning).
  if (header) directives.push("frame-ancestors 'none'");
  return directives.join('; ');
}

/** What the server of the built app sends with every file (README, "Deploy"). */
export function securityHeaders(supabaseUrl: string): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(supabaseUrl),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  };
}

/**
 * The policy also goes into the built index.html as a <meta>, so a static host that sends no
 * headers still runs the app under it. Build only: the dev server injects inline scripts.
 */
function cspMeta(supabaseUrl: string): Plugin {
  return {
    name: 'outpost-csp-meta',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      // Right after <meta charset>: a <meta> policy governs only what is parsed after it,
      // so it must come before every script and stylesheet link.
      handler(html) {
        const charset = '<meta charset="UTF-8" />';
        if (!html.includes(charset)) throw new Error(`index.html lost its ${charset}`);
        const policy = contentSecurityPolicy(supabaseUrl, { header: false });
        return html.replace(
          charset,
          `${charset}\n    <meta http-equiv="Content-Security-Policy" content="${policy}" />`,
        );
      },
    },
  };
}

type ChunkName = (moduleId: string, ctx: ChunkingContext) => string | null;

const APP_ENTRY = fileURLToPath(new URL('./src/main.tsx', import.meta.url));
const APP_SOURCE = fileURLToPath(new URL('./src/', import.meta.url));

/**
 * How the app's code is cut into chunks, beyond one per screen (route) and the sync engine:
 *
 * - `shell`: every module the app's entry (src/main.tsx) imports statically. Chunks loaded
 *   later (screens, the sync engine) share many of its modules, and left to itself the
 *   bundler cuts those out into chunks of their own, all loaded at start anyway: more
 *   requests through the worker, and worse compression (+3 kB gzip).
 * - `screens`: the app's own modules (src/) that two or more screens share. Left to itself
 *   the bundler cuts them into a dozen chunks of under 1 kB gzip each, and a list's screen
 *   waited on 12 round trips through the worker before its first row. A module is left out
 *   when it (or what it imports) needs a package the shell does not hold: a chunk is loaded
 *   with everything it imports, and supabase-js (200 kB, used by the sign-in and settings
 *   screens' helpers) would otherwise come with every screen.
 */
function appChunks(): { shell: ChunkName; screens: ChunkName } {
  let shell: Set<string> | undefined;
  const shellOf = (ctx: ChunkingContext) => {
    if (!shell) shell = staticImports(APP_ENTRY, ctx);
    return shell;
  };
  return {
    shell: (moduleId, ctx) => (shellOf(ctx).has(moduleId) ? 'shell' : null),
    screens: (moduleId, ctx) =>
      isAppModule(moduleId) && !bringsPackage(moduleId, shellOf(ctx), ctx) ? 'screens' : null,
  };
}

/** A module and all it imports statically, transitively. */
function staticImports(moduleId: string, ctx: ChunkingContext): Set<string> {
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const imported of ctx.getModuleInfo(id)?.importedIds ?? []) visit(imported);
  };
  visit(moduleId);
  return seen;
}

/** Whether `moduleId`, or what it imports statically, is a package's module not in `shell`. */
function bringsPackage(moduleId: string, shell: Set<string>, ctx: ChunkingContext): boolean {
  const seen = new Set<string>();
  const visit = (id: string): boolean => {
    // What the shell holds, it holds with all it imports.
    if (seen.has(id) || shell.has(id)) return false;
    seen.add(id);
    if (!isAppModule(id)) return true;
    return (ctx.getModuleInfo(id)?.importedIds ?? []).some(visit);
  };
  return visit(moduleId);
}

/** A module of the app's own code (src/), not a package's (whose paths may hold a src/ too). */
function isAppModule(moduleId: string): boolean {
  return moduleId.startsWith(APP_SOURCE) && !moduleId.includes('node_modules');
}

const APP_VERSION = (
  JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

export default defineConfig(({ command, mode }) => {
  const env = loadEnv(mode, process.cwd(), 'VITE_');
  if (command === 'build') {
    // A production build names its Supabase project (scripts/build-env.ts says why).
    const check = checkBuildEnv(env, mode);
    for (const warning of check.warnings) console.warn(`warning: ${warning}`);
    if (check.errors.length > 0) throw new Error(buildEnvMessage(check));
  }
  const supabaseUrl = env.VITE_SUPABASE_URL || DEVSTACK_URL;
  const chunks = appChunks();
  return {
    define: {
      // OUTPOST_APP_VERSION labels a build (the update-flow test builds an A and a B).
      __APP_VERSION__: JSON.stringify(process.env.OUTPOST_APP_VERSION ?? APP_VERSION),
      __BUILD_TIME__: JSON.stringify(new Date().toISOString()),
    },
    build: {
      // Classic scripts, not ES modules (scripts/classic-scripts.ts, which says why): the
      // chunks are built as CommonJS and wrapped for the app's chunk loader, which fetches a
      // chunk and all it needs at once, so there is nothing to modulepreload. One stylesheet
      // for the whole app (43 kB, 10 kB gzip), linked from index.html: a chunk's own
      // stylesheet would be added by Vite's loader, from the chunk's code.
      modulePreload: false,
      cssCodeSplit: false,
      rolldownOptions: {
        output: {
          format: 'cjs',
          codeSplitting: {
            groups: [
              { name: chunks.shell, priority: 10 },
              { name: chunks.screens, minShareCount: 2, priority: 5 },
            ],
          },
        },
      },
    },
    plugins: [
      react(),
      cspMeta(supabaseUrl),
      classicScripts(),
      // After classicScripts: the first visit's script goes before the app shell's.
      firstVisitPage(),
      VitePWA({
        // Our own worker (src/sw.ts) and an update prompt: an update never reloads a page with
        // unsynced edits behind the user's back (no autoUpdate, no unconditional skipWaiting).
        strategies: 'injectManifest',
        srcDir: 'src',
        filename: 'sw.ts',
        registerType: 'prompt',
        injectRegister: false,
        // No service worker in dev: it would serve stale modules across reloads.
        devOptions: { enabled: false },
        // Every file is precached once, from exactly one of three sources (the plugin does not
        // merge them, so overlapping lists put a file in sw.js twice):
        // - the build's own output: html (the navigation fallback needs index.html), js, css;
        // - includeAssets: the public/ files index.html links that the manifest does not list;
        // - the manifest's icons and the manifest itself, which the plugin adds on its own.
        // Screenshots are none of these: they are for the install dialog only, never worth a
        // device's storage.
        injectManifest: {
          globPatterns: ['**/*.{js,css,html}'],
          // A classic script, registered as one (no `type: 'module'`): the worker now carries
          // the sync engine (src/lib/pwa/worker-sync.ts), whose lazy imports Vite wraps in a
          // helper that reads `import.meta`, a syntax error outside a module. Built as an IIFE,
          // that reference is emptied (the helper only uses it to preload CSS, never here).
          rollupFormat: 'iife',
        },
        includeAssets: ['favicon.ico', 'icon.svg', 'apple-touch-icon-180x180.png'],
        manifest: {
          id: '/',
          name: 'Outpost — shared task lists',
          short_name: 'Outpost',
          description:
            'Offline-first shared task lists: everything works with no signal and syncs when it can.',
          start_url: '/',
          scope: '/',
          display: 'standalone',
          // Launching the installed app (its icon, a shortcut) brings its open window to the
          // front and navigates it, rather than opening a second window of the same app.
          launch_handler: { client_mode: ['navigate-existing', 'auto'] },
          theme_color: LIGHT_BACKGROUND,
          background_color: LIGHT_BACKGROUND,
          icons: [
            { src: 'pwa-64x64.png', sizes: '64x64', type: 'image/png' },
            { src: 'pwa-192x192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
            { src: 'pwa-512x512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
            {
              src: 'maskable-icon-512x512.png',
              sizes: '512x512',
              type: 'image/png',
              purpose: 'maskable',
            },
          ],
          // Chromium's richer install dialog (`npm run screenshots` makes them from the app).
          screenshots: [
            {
              src: 'screenshots/tasks-wide.png',
              sizes: '1280x800',
              type: 'image/png',
              form_factor: 'wide',
              label: 'A shared task list with due dates, priorities and who is on what',
            },
            {
              src: 'screenshots/tasks-narrow.png',
              sizes: '390x844',
              type: 'image/png',
              form_factor: 'narrow',
              label: 'The same list on a phone, ready to work with no signal',
            },
          ],
          // "Share to Outpost" in the phone's share sheet: photos and PDFs (the attachment types)
          // are posted to the worker, which keeps them on the device (src/sw.ts), offline too.
          share_target: {
            action: SHARE_PATH,
            method: 'POST',
            enctype: 'multipart/form-data',
            params: {
              title: 'title',
              text: 'text',
              url: 'url',
              files: [{ name: 'files', accept: [...SHARE_MIME_TYPES] }],
            },
          },
          shortcuts: [
            {
              name: 'New task',
              short_name: 'New task',
              url: '/lists?new=task',
              icons: [{ src: 'pwa-192x192.png', sizes: '192x192', type: 'image/png' }],
            },
            {
              name: 'Lists',
              short_name: 'Lists',
              url: '/lists',
              icons: [{ src: 'pwa-192x192.png', sizes: '192x192', type: 'image/png' }],
            },
          ],
        },
      }),
    ],
    resolve: {
      alias: {
        '@sync': fileURLToPath(new URL('./sync', import.meta.url)),
        '@': fileURLToPath(new URL('./src', import.meta.url)),
      },
    },
    preview: {
      port: previewPort(),
      // Fail rather than silently move to another port the tests are not looking at.
      strictPort: true,
      // `npm start` serves the build this way; static hosts send the same (README, "Deploy").
      headers: securityHeaders(supabaseUrl),
    },
  };
});
