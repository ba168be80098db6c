// A refused change is reverted and explained (product.md §4, §8): bob edits offline while alice
// makes him a viewer; when he reconnects the server refuses his edits, his screen goes back
// to the server's version and "Rejected changes" says why.
import { expect, test } from '@playwright/test';

import { contextFor, newAccount, shareList } from './support/accounts';
import { addTasks, controlledByWorker, createList, expectSynced, taskRow } from './support/app';

test('edits made offline by someone who became a viewer are reverted and explained', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const [alice, bob] = await Promise.all([newAccount('Alice'), newAccount('Bob')]);
  const aliceContext = await contextFor(browser, alice);
  const a = await aliceContext.newPage();
  const listId = await createList(a, 'Stage build');
  await addTasks(a, ['Rig the lights', 'Tape the cables']);
  await expectSynced(a);
  await shareList(alice, bob, listId, 'editor');

  const bobContext = await contextFor(browser, bob);
  const b = await bobContext.newPage();
  await b.goto(`/lists/${listId}`);
  await expect(taskRow(b, 'Tape the cables')).toBeVisible({ timeout: 20_000 });
  await controlledByWorker(b);

  await bobContext.setOffline(true);
  await b.getByRole('button', { name: 'Edit Rig the lights' }).click();
  await b.getByLabel('Title of Rig the lights').fill('Rig the lights (done by Bob)');
  await b.keyboard.press('Enter');
  await b.getByLabel('Done: Tape the cables').check();
  await expect(taskRow(b, 'Rig the lights (done by Bob)')).toBeVisible();

  // Alice makes bob a viewer while he is away.
  await a.goto(`/lists/${listId}/members`);
  await a.getByLabel('Role of Bob').selectOption('viewer');
  await expectSynced(a);

  await bobContext.setOffline(false);
  // His edits go back to the server's version, and a toast says why.
  await expect(taskRow(b, 'Rig the lights')).toBeVisible({ timeout: 30_000 });
  await expect(taskRow(b, 'Rig the lights (done by Bob)')).toHaveCount(0);
  await expect(b.getByLabel('Done: Tape the cables')).not.toBeChecked();
  await expect(
    b
      .getByRole('status')
      .getByText(/can't edit/)
      .first(),
  ).toBeVisible();
  // He is a viewer now: no editing controls.
  await expect(b.getByLabel('Add a task')).toHaveCount(0);

  // Settings › Rejected changes explains every reverted edit, each with the reason: his
  // role no longer allows it (product.md §8 PERMISSION_DENIED).
  await b.goto('/settings#rejected');
  const sentences = b.locator('#rejected .settings-rejection__sentence');
  await expect(sentences).toHaveCount(2);
  const because = "any more: your role on the list doesn't allow it. Your change was undone.";
  expect((await sentences.allTextContents()).sort()).toEqual(
    [
      `You can't edit the task “Rig the lights (done by Bob)” ${because}`,
      `You can't edit the task “Tape the cables” ${because}`,
    ].sort(),
  );

  await aliceContext.close();
  await bobContext.close();
});
