// Kept apart from vite.config.ts so app build plugins (later the PWA plugin) never run in tests.
import { fileURLToPath } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Compiles the .tsx components that unit tests import.
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  test: {
    include: [
      'src/**/*.test.{ts,tsx}',
      'sync/**/*.test.ts',
      'devstack/**/*.test.ts',
      'tests/integration/**/*.test.ts',
    ],
    environment: 'node',
    // Integration tests start Postgres clusters and the devstack, which take seconds.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Child processes rather than worker threads: tests spawn Postgres and use native modules.
    pool: 'forks',
  },
});
