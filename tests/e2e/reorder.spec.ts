// Drag to reorder (product.md §2): the grip of a task is a dnd-kit handle that a mouse drags
// (pointer sensor), and a keyboard carries it (Space to pick up, arrows to move, Space to
// drop; the list's own handling, one place per key). The new order is the device's (it survives a reload) and the server's
// (another person's screen shows it, and a read through the sync API returns it).
import { expect, test, type Locator } from '@playwright/test';

import { contextFor, newAccount, shareList, type Account } from './support/accounts';
import { addTasks, createList, expectSynced, rowTitles, taskRow } from './support/app';

const TITLES = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo'] as const;

/** The list's live task titles in position order, as the server has them. */
async function serverOrder(account: Account, listId: string): Promise<string[]> {
  const pulled = await account.api.rpc('sync_pull', { cursor: null, max_rows: 1000 });
  if (pulled.error) throw pulled.error;
  const rows = (pulled.data as { rows: { table: string; row: Record<string, unknown> }[] }).rows
    .filter(({ table, row }) => table === 'tasks' && row.list_id === listId && !row.deleted_at)
    .map(({ row }) => ({ title: String(row.title), position: String(row.position) }));
  // Fractional-index keys sort by plain code-unit order, as the app sorts them.
  rows.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
  return rows.map((row) => row.title);
}

/** The center of an element on screen. */
async function centerOf(target: Locator) {
  const box = await target.boundingBox();
  if (!box) throw new Error('not on screen');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Alice's list of five tasks, synced, with bob (an editor) looking at it in his browser. */
async function setUp(browser: Parameters<typeof contextFor>[0], listName: string) {
  const [alice, bob] = await Promise.all([newAccount('Alice'), newAccount('Bob')]);
  const aliceContext = await contextFor(browser, alice);
  const a = await aliceContext.newPage();
  const listId = await createList(a, listName);
  await addTasks(a, TITLES);
  await expectSynced(a);
  expect(await rowTitles(a)).toEqual(TITLES);
  await shareList(alice, bob, listId, 'editor');
  const bobContext = await contextFor(browser, bob);
  const b = await bobContext.newPage();
  await b.goto(`/lists/${listId}`);
  await expect.poll(() => rowTitles(b), { timeout: 20_000 }).toEqual(TITLES);
  return {
    alice,
    a,
    b,
    listId,
    close: async () => {
      await aliceContext.close();
      await bobContext.close();
    },
  };
}

/** The new order is kept on the device and on the server, and bob's open screen shows it. */
async function expectOrderEverywhere(
  setup: Awaited<ReturnType<typeof setUp>>,
  expected: readonly string[],
): Promise<void> {
  const { a, b, alice, listId } = setup;
  await expectSynced(a);
  await expect.poll(() => serverOrder(alice, listId)).toEqual(expected);
  await expect.poll(() => rowTitles(b), { timeout: 20_000 }).toEqual(expected);
  await a.reload();
  await expect(taskRow(a, 'Echo')).toBeVisible();
  await expect.poll(() => rowTitles(a)).toEqual(expected);
}

test('a task dragged with the mouse by its grip lands there, on every device', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const setup = await setUp(browser, 'Drag with a mouse');
  const { a } = setup;

  // Echo's grip to where Bravo's row is: dnd-kit puts it over the row its center is nearest.
  const grip = a.getByRole('button', { name: 'Reorder Echo' });
  const from = await centerOf(grip);
  const echo = await centerOf(taskRow(a, 'Echo'));
  const bravo = await centerOf(taskRow(a, 'Bravo'));
  await a.mouse.move(from.x, from.y);
  await a.mouse.down();
  // Past the activation distance first (a click on the grip is not a drag), then across.
  await a.mouse.move(from.x, from.y - 10, { steps: 2 });
  await expect(taskRow(a, 'Echo')).toHaveClass(/tasks-row--dragging/);
  await a.mouse.move(from.x, from.y + (bravo.y - echo.y), { steps: 12 });
  await a.mouse.up();

  const expected = ['Alpha', 'Echo', 'Bravo', 'Charlie', 'Delta'];
  await expect.poll(() => rowTitles(a)).toEqual(expected);
  await expect(taskRow(a, 'Echo')).not.toHaveClass(/tasks-row--dragging/);
  await expectOrderEverywhere(setup, expected);
  await setup.close();
});

test('a task carried with the keyboard (Space, arrows, Space) lands there, on every device', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const setup = await setUp(browser, 'Drag with keys');
  const { a } = setup;

  const grip = a.getByRole('button', { name: 'Reorder Alpha' });
  await grip.focus();
  await expect(grip).toHaveAccessibleDescription(/To reorder, press Space or Enter/);
  // Each key moves the task as it is handled: the keys go in one after the other, as fast as
  // a keyboard's repeat, with no wait for a move to land (dnd-kit's keyboard sensor lost
  // keys that came before its measures and its listener were ready).
  await a.keyboard.press('Space');
  await a.keyboard.press('ArrowDown');
  await a.keyboard.press('ArrowDown');
  await a.keyboard.press('ArrowDown');
  await a.keyboard.press('ArrowUp');
  await expect(taskRow(a, 'Alpha')).toHaveClass(/tasks-row--dragging/);
  await expect(grip).toHaveAttribute('aria-pressed', 'true');
  await expect(grip).toBeFocused();
  await a.keyboard.press('Space');

  const expected = ['Bravo', 'Charlie', 'Alpha', 'Delta', 'Echo'];
  await expect.poll(() => rowTitles(a)).toEqual(expected);
  await expect(taskRow(a, 'Alpha')).not.toHaveClass(/tasks-row--dragging/);
  // Said to screen readers as well as shown.
  await expect(
    a.getByRole('status').filter({ hasText: 'Alpha dropped at position 3 of 5.' }),
  ).toHaveCount(1);
  await expectOrderEverywhere(setup, expected);

  // Carried again straight away (dnd-kit's sensor lost the first arrow of a second carry),
  // and then put back with Escape.
  await a.getByRole('button', { name: 'Reorder Alpha' }).focus();
  await a.keyboard.press('Space');
  await a.keyboard.press('ArrowDown');
  await a.keyboard.press('Space');
  const again = ['Bravo', 'Charlie', 'Delta', 'Alpha', 'Echo'];
  await expect.poll(() => rowTitles(a)).toEqual(again);
  await a.keyboard.press('Space');
  await a.keyboard.press('ArrowUp');
  await a.keyboard.press('ArrowUp');
  await a.keyboard.press('Escape');
  await expect(
    a.getByRole('status').filter({ hasText: 'Moving cancelled. Alpha dropped back in place.' }),
  ).toHaveCount(1);
  expect(await rowTitles(a)).toEqual(again);
  // Back in its place, its grip still has the focus (React moved its row back in the DOM).
  await expect(a.getByRole('button', { name: 'Reorder Alpha' })).toBeFocused();
  await expectOrderEverywhere(setup, again);
  await setup.close();
});
