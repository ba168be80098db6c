// `npm run screenshots`: the manifest's screenshots (Chromium's richer install dialog), taken
// from the real app: a production build against an in-memory seeded devstack, signed in as
// alice, showing the seeded list. Writes public/screenshots/tasks-{wide,narrow}.png; run it
// again when the screens change.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT, SEEDED_LIST_ID, withSignedInApp } from './signed-in-app';

const OUT = join(ROOT, 'public', 'screenshots');
/** Sizes written into the manifest (vite.config.ts); keep them in step. */
export const SHOTS = [
  { name: 'tasks-wide', width: 1280, height: 800, colorScheme: 'light' },
  { name: 'tasks-narrow', width: 390, height: 844, colorScheme: 'light' },
] as const;

await withSignedInApp(async (app) => {
  mkdirSync(OUT, { recursive: true });
  for (const shot of SHOTS) {
    const page = await app.page({
      viewport: { width: shot.width, height: shot.height },
      colorScheme: shot.colorScheme,
    });
    await page.goto(`${app.url}/lists/${SEEDED_LIST_ID}`);
    await page.locator('[data-task-id]').first().waitFor();
    await page.locator('.sync-status[data-state="synced"]').waitFor({ timeout: 20_000 });
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(OUT, `${shot.name}.png`) });
    console.log(`wrote public/screenshots/${shot.name}.png (${shot.width}×${shot.height})`);
    await page.context().close();
  }
});
