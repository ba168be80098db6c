// The header's sync status says only what is known (issue 16: nothing renders a placeholder
// as if it were data). Online, a page that starts (a reload, a second tab that follows the
// first) shows no state until its engine, or the leader tab, has said how sync stands: never
// "Offline", which it is not.
import { expect, test, type BrowserContext, type Page } from '@playwright/test';

import { contextFor, newAccount } from './support/accounts';
import { createList, expectSynced } from './support/app';

/** Every state the status took in the page, from its first script on, in order. */
async function recordStates(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const states: string[] = [];
    (window as unknown as { statusStates: string[] }).statusStates = states;
    const note = () => {
      const state = document.querySelector('.sync-status')?.getAttribute('data-state');
      if (state && states[states.length - 1] !== state) states.push(state);
    };
    new MutationObserver(note).observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-state'],
    });
  });
}

async function statesOf(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { statusStates: string[] }).statusStates);
}

test('online, a reload and a second tab never show "Offline" while sync starts', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const alice = await newAccount('Alice');
  const context = await contextFor(browser, alice);
  await recordStates(context);
  const page = await context.newPage();
  await createList(page, 'Errands');
  await expectSynced(page);

  // Synced, and never "Offline" on the way. Not "synced" as the last state seen: once realtime
  // has joined, the engine pulls again to catch up on what changed between its first pull and
  // the join, and that cycle may have begun by the time the states are read.
  await page.reload();
  await expectSynced(page);
  const reloaded = await statesOf(page);
  expect(reloaded).not.toContain('offline');
  expect(reloaded).toContain('synced');

  // A second tab follows the first (the leader), and shows its status once told.
  const second = await context.newPage();
  await second.goto('/lists');
  await expectSynced(second);
  const followed = await statesOf(second);
  expect(followed).not.toContain('offline');
  expect(followed).toContain('synced');
  await context.close();
});
