// The promise of the app (issue 5): alice works offline — creates, edits, completes,
// reorders and deletes tasks and adds a photo — reloads with no connection and finds all of
// it; meanwhile bob edits other fields of the same tasks online; when alice reconnects both
// screens converge without a reload.
import { expect, test, type Locator, type Page } from '@playwright/test';

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
import {
  backToList,
  notesText,
  pickDueDate,
  propertyChip,
  taskHeading,
  withCamera,
} from './support/task-detail';

/** Opens a task's screen from the open list by its title link, as a person would. */
async function openTask(page: Page, title: string): Promise<void> {
  await taskRow(page, title).getByRole('link', { name: title, exact: true }).click();
  await expect(taskHeading(page)).toContainText(title);
}

/** Waits until an image has really been decoded: the 64 px test photo, not a broken icon. */
async function expectImageShown(image: Locator, timeout = 10_000): Promise<void> {
  await expect(image).toBeVisible({ timeout });
  await expect
    .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), {
      timeout,
    })
    .toBe(64);
}

test('offline edits survive a reload and converge with concurrent online edits', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const [alice, bob] = await Promise.all([newAccount('Alice'), newAccount('Bob')]);
  const aliceContext = await contextFor(browser, alice);
  // Alice's device has a camera (only then is there "Take photo").
  await withCamera(aliceContext);
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
  // A photo taken on the spot: the camera input (the one with `capture`), not "Add file".
  await openTask(a, 'Check fire exits and signage');
  const camera = a.getByLabel('Take photo');
  await expect(camera).toHaveAttribute('capture', 'environment');
  await camera.setInputFiles({ name: 'exit-sign.png', mimeType: 'image/png', buffer: PHOTO_PNG });
  await expect(a.getByText('exit-sign.png')).toBeVisible();
  await expect(a.getByText('Waiting to upload')).toBeVisible();

  // A reload with no connection: everything is still there, the photo shown from the
  // device's own copy (decoded, not just its name listed).
  await a.reload();
  await expect(a.getByText('exit-sign.png')).toBeVisible();
  await expectImageShown(a.getByRole('button', { name: 'Preview exit-sign.png' }).locator('img'));
  await backToList(a);
  await expect(taskRow(a, 'Fix gate latch')).toBeVisible();
  await expect(taskRow(a, 'Check fire exits and signage')).toBeVisible();
  // Done tasks wait in their own section after the others: opened (it stays open in this tab).
  await a.getByRole('button', { name: /^Done \(/ }).click();
  await expect(a.getByLabel('Done: Test alarms')).toBeChecked();
  await expect(taskRow(a, 'Old task')).toHaveCount(0);
  const offlineOrder = await rowTitles(a);
  expect(offlineOrder).toHaveLength(5);
  expect(offlineOrder.indexOf('Seal window')).toBeLessThan(offlineOrder.indexOf('Fit door closer'));

  // Meanwhile bob, online, edits other fields of the same tasks (each stored on his device
  // before he loads another page: a full page load may abort a write still in flight).
  await b.goto(`/lists/${listId}/tasks/${ids.exits}`);
  await propertyChip(b, 'Priority').click();
  await b.getByRole('menuitemradio', { name: 'High' }).click();
  await expectStored(b, 'tasks', ids.exits, 'priority', 3);
  await b.goto(`/lists/${listId}/tasks/${ids.alarms}`);
  await b.getByLabel('Notes').fill('Bring the ladder');
  await b.getByLabel('Notes').blur();
  await expectStored(b, 'tasks', ids.alarms, 'notes', 'Bring the ladder');
  await b.goto(`/lists/${listId}/tasks/${ids.seal}`);
  await pickDueDate(b, '2030-05-01');
  await expectStored(b, 'tasks', ids.seal, 'due_on', '2030-05-01');
  await b.goto(`/lists/${listId}`);
  await expectSynced(b);

  // Alice is back online. From here on neither page is loaded again: both screens, as they
  // are open, take in the other's changes, and each person reaches the rest by clicking.
  await aliceContext.setOffline(false);
  await expectSynced(a, 30_000);
  // Alice's open list: bob's priority and due date arrive; her order holds.
  await expect(taskRow(a, 'Check fire exits and signage')).toContainText('High');
  await expect(taskRow(a, 'Seal window')).toContainText(/\b(May 1|1 May)\b/);
  await expect.poll(() => rowTitles(a)).toEqual(offlineOrder);
  // Bob's open list: alice's new task, rename, completion, deletion and order.
  await expect(taskRow(b, 'Fix gate latch')).toBeVisible({ timeout: 20_000 });
  await expect(taskRow(b, 'Check fire exits and signage')).toContainText('High');
  await b.getByRole('button', { name: /^Done \(/ }).click();
  await expect(b.getByLabel('Done: Test alarms')).toBeChecked();
  await expect(taskRow(b, 'Old task')).toHaveCount(0);
  await expect.poll(() => rowTitles(b), { timeout: 20_000 }).toEqual(offlineOrder);

  // Bob's notes and due date on alice's task screens, reached by clicking.
  await openTask(a, 'Test alarms');
  await expect(notesText(a)).toHaveText('Bring the ladder');
  await expect(propertyChip(a, 'Status')).toHaveAccessibleName('Status: Done');
  await backToList(a);
  await openTask(a, 'Seal window');
  await expect(propertyChip(a, 'Due date')).toHaveAccessibleName(/\b(May 1|1 May)\b.*2030/);
  // Alice's photo has left her device.
  await backToList(a);
  await openTask(a, 'Check fire exits and signage');
  await expect(propertyChip(a, 'Priority')).toHaveAccessibleName('Priority: High');
  await expect(a.getByText('Waiting to upload')).toHaveCount(0, { timeout: 20_000 });

  // Bob's device fetches the photo (signed URL) and shows it.
  await openTask(b, 'Check fire exits and signage');
  await expectImageShown(
    b.getByRole('button', { name: 'Preview exit-sign.png' }).locator('img'),
    20_000,
  );

  await aliceContext.close();
  await bobContext.close();
});
