// `npm run screenshots:readme`: the README's pictures of the main screens, desktop and phone,
// light and dark, taken from the real app: a production build against an in-memory seeded
// devstack, signed in as alice, on the seeded shared list. Writes docs/screenshots/*.png
// (or OUT_DIR); run it again when the screens change.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

import type { Page } from '@playwright/test';

import { ROOT, SEEDED_LIST_ID as LIST_ID, withSignedInApp } from './signed-in-app';

const OUT = resolve(process.env.OUT_DIR ?? join(ROOT, 'docs', 'screenshots'));

const DESKTOP = { viewport: { width: 1280, height: 800 } };
/** A phone is a touch screen: its rows, bars and menus are the touch ones. */
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** Each screen: where it is, and what shows once it is ready. */
const SCREENS: { name: string; open: (page: Page, base: string) => Promise<void> }[] = [
  {
    name: 'lists',
    open: async (page, base) => {
      await page.goto(`${base}/lists`);
      await page.getByRole('heading', { level: 1 }).waitFor();
    },
  },
  {
    name: 'list',
    open: async (page, base) => {
      await page.goto(`${base}/lists/${LIST_ID}`);
      await page.locator('[data-task-id]').first().waitFor();
    },
  },
  {
    name: 'task',
    open: async (page, base) => {
      await page.goto(`${base}/lists/${LIST_ID}`);
      const row = page.locator('[data-task-id]').first();
      await row.waitFor();
      const taskId = await row.getAttribute('data-task-id');
      await page.goto(`${base}/lists/${LIST_ID}/tasks/${taskId}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
    },
  },
];

await withSignedInApp(async (app) => {
  mkdirSync(OUT, { recursive: true });
  for (const [device, options] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await app.page({ ...options, colorScheme });
      for (const screen of SCREENS) {
        await screen.open(page, app.url);
        await page.locator('.sync-status[data-state="synced"]').waitFor({ timeout: 20_000 });
        await page.mouse.move(0, 0);
        const path = join(OUT, `${screen.name}-${device}-${colorScheme}.png`);
        await page.screenshot({ path });
        console.log(`wrote ${path}`);
      }
      await page.context().close();
    }
  }
});
