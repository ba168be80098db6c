// Browser tests (`npm run test:e2e`): Debian's Chromium (never a downloaded browser) against
// the production build served by `npm start` over a fresh in-memory devstack, so the real
// service worker and the real Supabase-compatible API are in play.
import { defineConfig, devices } from '@playwright/test';

import { E2E_API_PORT, E2E_APP_PORT } from './tests/e2e/support/env';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './tests/support/chromium';

export default defineConfig({
  testDir: 'tests/e2e',
  // One browser, two cores: parallel workers only make timing flaky here.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  outputDir: '.tmp/e2e-results',
  use: {
    baseURL: `http://localhost:${E2E_APP_PORT}`,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          executablePath: CHROMIUM_PATH,
          args: CHROMIUM_ARGS,
        },
      },
    },
  ],
  webServer: {
    command: 'node scripts/start.mjs',
    url: `http://localhost:${E2E_APP_PORT}`,
    reuseExistingServer: false,
    timeout: 240_000,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      PORT: String(E2E_APP_PORT),
      DEVSTACK_PORT: String(E2E_API_PORT),
      DEVSTACK_MEMORY: 'true',
      // Dozens of sign-ins from 127.0.0.1 in minutes; config.toml's limits are tested elsewhere.
      DEVSTACK_TEST_RATE_LIMITS: 'true',
    },
  },
});
