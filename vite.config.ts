import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

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

const APP_VERSION = (
  JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

export default defineConfig({
  define: {
    // OUTPOST_APP_VERSION labels a build (the update-flow test builds an A and a B).
    __APP_VERSION__: JSON.stringify(process.env.OUTPOST_APP_VERSION ?? APP_VERSION),
    __BUILD_TIME__: JSON.stringify(new Date().toISOString()),
  },
  plugins: [
    react(),
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
  },
});
