// Kept apart from vite.config.ts so app build plugins (the PWA plugin) never run in tests.
// Two projects: Node for the sync library, the devstack and the integration suites; jsdom
// (with fake-indexeddb) for the React app's component tests.
import { fileURLToPath } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

import LongestFirst from './tests/support/sequencer';

export default defineConfig({
  define: { __APP_VERSION__: JSON.stringify('0.0.0-test'), __BUILD_TIME__: JSON.stringify('') },
  // Compiles the .tsx components that tests import.
  plugins: [react()],
  resolve: {
    alias: {
      '@sync': fileURLToPath(new URL('./sync', import.meta.url)),
      '@': fileURLToPath(new URL('./src', import.meta.url)),
    },
  },
  test: {
    // Integration tests start the devstack and do real work (300 randomised rounds, 10,000
    // offline edits): seconds when idle. These are backstops sized for a machine running
    // another heavy job beside the suite; every wait inside a test is for a condition.
    testTimeout: 240_000,
    hookTimeout: 240_000,
    // Child processes rather than worker threads: tests spawn Postgres and use native modules.
    pool: 'forks',
    // Files run side by side: most of a suite's time is waiting on its devstack, Postgres or
    // IndexedDB, so more files than cores keep both cores busy. Every suite has its own
    // devstack (port 0) and its own database; TEST_WORKERS overrides.
    maxWorkers: Number(process.env.TEST_WORKERS ?? 3),
    // The longest suites start first, from both projects (tests/support/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: [
            'sync/**/*.test.ts',
            'devstack/**/*.test.ts',
            'tests/integration/**/*.test.ts',
            'tests/conformance/**/*.test.ts',
            'tests/support/**/*.test.ts',
            'examples/**/*.test.ts',
            'scripts/**/*.test.ts',
          ],
          environment: 'node',
          globalSetup: ['tests/support/global-postgres.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'app',
          include: ['src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['src/testing/setup-dom.ts'],
          globalSetup: ['src/testing/global-devstack.ts'],
        },
      },
    ],
  },
});
