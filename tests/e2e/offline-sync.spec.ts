// The promise of the app (issue 5): alice works offline — creates, edits, completes,
// reorders and deletes tasks and adds a photo — reloads with no connection and finds all of
// it; meanwhile bob edits other fields of the same tasks online; when alice reconnects both
// screens converge without a reload.
import { expect, test } from '@playwright/test';

import { contextFor, newAccount, shareList } from './support/accounts';
import {
  addTasks,
  controlledByWorker,
  expectStored,
  createList,
  expectSynced,
  rowTitles,
  taskId,
  taskRow,
  PHOTO_PNG,
} from './support/app';

test('offline edits survive a reload and converge with concurrent online edits', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const [alice, bob] = await Promise.all([newAccount('Alice'), newAccount('Bob')]);
  const aliceContext = await contextFor(browser, alice);
  const a = await aliceContext.newPage();
  const listId = await createList(a, 'Block C snags');
  await addTasks(a, [
    'Check fire exits',
    'Test alarms',
    'Old task',
    'Fit door closer',
    'Seal window',
  ]);
  await expectSynced(a);
  const ids = {
    exits: await taskId(a, 'Check fire exits'),
    alarms: await taskId(a, 'Test alarms'),
    seal: await taskId(a, 'Seal window'),
  };
  await shareList(alice, bob, listId, 'editor');

  const bobContext = await contextFor(browser, bob);
  const b = await bobContext.newPage();
  await b.goto(`/lists/${listId}`);
  await expect(taskRow(b, 'Seal window')).toBeVisible({ timeout: 20_000 });

  // Alice loses her connection (the page must come back from the worker's cache).
  await controlledByWorker(a);
  await aliceContext.setOffline(true);
  await expect(a.locator('.sync-status')).toHaveAttribute('data-state', 'offline');

  await addTasks(a, ['Fix gate latch']);
  await a.getByRole('button', { name: 'Edit Check fire exits' }).click();
  await a.getByLabel('Title of Check fire exits').fill('Check fire exits and signage');
  await a.keyboard.press('Enter');
  await a.getByLabel('Done: Test alarms').check();
  await taskRow(a, 'Seal window').focus();
  await a.keyboard.press('Alt+ArrowUp');
  await a.getByRole('button', { name: 'Delete Old task' }).click();
  await expect(taskRow(a, 'Old task')).toHaveCount(0);
  await a.goto(`/lists/${listId}/tasks/${ids.exits}`);
  await a.getByLabel('Add file').setInputFiles({
    name: 'exit-sign.png',
    mimeType: 'image/png',
    buffer: PHOTO_PNG,
  });
  await expect(a.getByText('exit-sign.png')).toBeVisible();
  await expect(a.getByText('Waiting to upload')).toBeVisible();

  // A reload with no connection: everything is still there.
  await a.reload();
  await expect(a.getByText('exit-sign.png')).toBeVisible();
  await a.goto(`/lists/${listId}`);
  await expect(taskRow(a, 'Fix gate latch')).toBeVisible();
  await expect(taskRow(a, 'Check fire exits and signage')).toBeVisible();
  await expect(a.getByLabel('Done: Test alarms')).toBeChecked();
  await expect(taskRow(a, 'Old task')).toHaveCount(0);
  const offlineOrder = await rowTitles(a);
  expect(offlineOrder.indexOf('Seal window')).toBeLessThan(offlineOrder.indexOf('Fit door closer'));

  // Meanwhile bob, online, edits other fields of the same tasks (each stored on his device
  // before he loads another page: a full page load may abort a write still in flight).
  await b.goto(`/lists/${listId}/tasks/${ids.exits}`);
  await b.getByLabel('Priority').selectOption({ label: 'High' });
  await expectStored(b, 'tasks', ids.exits, 'priority', 3);
  await b.goto(`/lists/${listId}/tasks/${ids.alarms}`);
  await b.getByLabel('Notes').fill('Bring the ladder');
  await b.getByLabel('Notes').blur();
  await expectStored(b, 'tasks', ids.alarms, 'notes', 'Bring the ladder');
  await b.goto(`/lists/${listId}/tasks/${ids.seal}`);
  await b.getByLabel('Due date', { exact: true }).fill('2030-05-01');
  await b.getByLabel('Due date', { exact: true }).blur();
  await expectStored(b, 'tasks', ids.seal, 'due_on', '2030-05-01');
  await b.goto(`/lists/${listId}`);
  await expectSynced(b);

  // Alice is back online: both screens converge, no reload.
  await aliceContext.setOffline(false);
  await expectSynced(a, 30_000);
  await expect(taskRow(a, 'Check fire exits and signage')).toContainText('High');
  await expect(taskRow(b, 'Fix gate latch')).toBeVisible({ timeout: 20_000 });
  await expect(taskRow(b, 'Check fire exits and signage')).toContainText('High');
  await expect(b.getByLabel('Done: Test alarms')).toBeChecked();
  await expect(taskRow(b, 'Old task')).toHaveCount(0);
  const bobOrder = await rowTitles(b);
  expect(bobOrder).toEqual(await rowTitles(a));

  await a.goto(`/lists/${listId}/tasks/${ids.alarms}`);
  await expect(a.getByLabel('Notes')).toHaveValue('Bring the ladder');
  await b.goto(`/lists/${listId}/tasks/${ids.exits}`);
  // Bob's device fetches the photo (signed URL) and shows it.
  const thumbnail = b.getByRole('button', { name: /exit-sign\.png/ }).locator('img');
  await expect(thumbnail).toBeVisible({ timeout: 20_000 });
  await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(64);

  await aliceContext.close();
  await bobContext.close();
});
