// axe-core on the page as it is: no serious or critical violation (issue 5), for the screen
// tests and for what only shows in some states (dialogs, open menus).
import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page } from '@playwright/test';

/**
 * `ready`: what must be on screen first (default: the screen's heading). A dialog makes the
 * rest of the page inert, so for one it is the dialog itself; the whole page is still checked.
 */
export async function expectNoSeriousViolations(
  page: Page,
  screen: string,
  ready: Locator = page.getByRole('heading', { level: 1 }),
): Promise<void> {
  // Let lazy screens and live queries settle, so axe sees the screen as a person would.
  await expect(ready).toBeVisible();
  await page.waitForLoadState('networkidle').catch(() => undefined);
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(' '))
          .join(' | ')}`,
    );
  expect(serious, `${screen}: ${serious.join('\n')}`).toEqual([]);
}
