// Sync with the app closed (issue 38), in Chromium with the real service worker: an edit made
// offline reaches the server after every tab of the app has closed; a sign-out while that is
// pending sends nothing; a task assigned by someone else while the app is closed becomes a
// notification after the worker's background pull, and its click opens the task. The browser
// decides itself when to fire Background Sync and Periodic Background Sync (it sees the
// machine's network, not Playwright's emulated one), so the tests fire them as DevTools does
// (CDP ServiceWorker.dispatchSyncEvent / dispatchPeriodicSyncEvent) once they went online.
import { expect, test, type BrowserContext, type Page } from '@playwright/test';

import { contextFor, newAccount, shareList, type Account } from './support/accounts';
import { addTasks, controlledByWorker, createList, expectSynced, taskId } from './support/app';
import { E2E_APP_URL } from './support/env';
import { backgroundSyncEvents, OUTBOX_SYNC_TAG } from '../support/background-sync-events';

/** The worker's last background run as it recorded it (background-state.ts), from its own scope. */
async function lastRunAfter(context: BrowserContext, since: number): Promise<unknown> {
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  return worker.evaluate(async (after: number) => {
    // Never created here: opening a database that is not there would make an empty one.
    const names = (await indexedDB.databases()).map((d) => d.name);
    if (!names.includes('outpost-background')) return null;
    const open = indexedDB.open('outpost-background');
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error ?? new Error('open failed'));
    });
    try {
      if (!db.objectStoreNames.contains('state')) return null;
      const read = db.transaction('state').objectStore('state').get('lastRun');
      const run = await new Promise<{ at: number; outcome: string } | undefined>((resolve) => {
        read.onsuccess = () => resolve(read.result as { at: number; outcome: string });
      });
      return run && run.at >= after ? run.outcome : null;
    } finally {
      db.close();
    }
  }, since);
}

async function serverTitles(account: Account, listId: string): Promise<string[]> {
  const { data, error } = await account.api.from('tasks').select('title').eq('list_id', listId);
  if (error) throw error;
  return (data as { title: string }[]).map((row) => row.title).sort();
}

/** Whether the app registered its one-off sync with the browser. */
function syncTags(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const registration = (await navigator.serviceWorker.ready) as ServiceWorkerRegistration & {
      sync: { getTags(): Promise<string[]> };
    };
    return registration.sync.getTags();
  });
}

test.describe('sync with the app closed', () => {
  test('an edit made offline reaches the server with every tab of the app closed', async ({
    browser,
  }) => {
    const erin = await newAccount('Erin');
    const context = await contextFor(browser, erin);
    const page = await context.newPage();
    const listId = await createList(page, 'Pump house');
    await addTasks(page, ['Read the meter']);
    await expectSynced(page);
    await controlledByWorker(page);
    const events = await backgroundSyncEvents(context, E2E_APP_URL);

    await context.setOffline(true);
    await addTasks(page, ['Check the pump']);
    // The app handed the change to the worker (unless the browser, seeing the machine's real
    // network, already fired the registration: then the worker's run found the tab leading).
    await expect
      .poll(
        async () =>
          (await syncTags(page)).includes(OUTBOX_SYNC_TAG) ||
          (await lastRunAfter(context, 0)) !== null,
      )
      .toBe(true);
    expect(await serverTitles(erin, listId)).toEqual(['Read the meter']);

    // Every tab of the app closes; the network comes back; the browser wakes the worker. (It
    // may have woken it already: Chromium fires a registration as soon as the machine is
    // online, and the run then waited for the tab to let go of the lock.)
    const closedAt = Date.now();
    await page.close();
    await events.untilNoTabLeads();
    await context.setOffline(false);
    await events.fire('sync');
    await expect
      .poll(() => serverTitles(erin, listId), { timeout: 20_000 })
      .toEqual(['Check the pump', 'Read the meter']);
    await expect.poll(() => lastRunAfter(context, closedAt), { timeout: 20_000 }).toBe('synced');

    // Another device of hers sees it.
    const other = await contextFor(browser, erin);
    const otherPage = await other.newPage();
    await otherPage.goto('/lists');
    await otherPage.getByRole('link', { name: 'Pump house', exact: true }).click();
    await expect(otherPage.getByText('Check the pump')).toBeVisible();
    await other.close();
    await context.close();
  });

  test('a sign-out while a background sync is pending sends nothing afterwards', async ({
    browser,
  }) => {
    const finn = await newAccount('Finn');
    const context = await contextFor(browser, finn);
    const page = await context.newPage();
    const listId = await createList(page, 'Boiler room');
    await expectSynced(page);
    await controlledByWorker(page);
    const events = await backgroundSyncEvents(context, E2E_APP_URL);

    await context.setOffline(true);
    await addTasks(page, ['Bleed the radiators']);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    // One change is not on the server: the app asks before it goes. The dialog's own button:
    // a locator resolved before the dialog opened would keep the Settings button, under it.
    await page
      .getByRole('dialog', { name: "1 change hasn't synced yet" })
      .getByRole('button', { name: 'Sign out anyway' })
      .click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Welcome to Outpost');

    await page.close();
    await events.untilNoTabLeads();
    await context.setOffline(false);
    const firedAt = Date.now();
    await events.fire('sync');
    await expect.poll(() => lastRunAfter(context, firedAt), { timeout: 20_000 }).toBe('signed-out');
    expect(await serverTitles(finn, listId)).toEqual([]);
    await context.close();
  });

  test('a task assigned while the app is closed becomes a notification that opens it', async ({
    browser,
  }) => {
    const gwen = await newAccount('Gwen');
    const hugo = await newAccount('Hugo');
    const context = await contextFor(browser, gwen);
    await context.grantPermissions(['notifications'], { origin: E2E_APP_URL });
    const page = await context.newPage();
    const listId = await createList(page, 'Weekly checks');
    await addTasks(page, ['Test the alarm']);
    await expectSynced(page);
    const alarmId = await taskId(page, 'Test the alarm');
    await controlledByWorker(page);
    await shareList(gwen, hugo, listId, 'editor');
    // She turns notifications on in Settings.
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('switch', { name: /notifications/i }).click();
    await expect(page.getByRole('switch', { name: /notifications/i })).toBeChecked();
    const events = await backgroundSyncEvents(context, E2E_APP_URL);
    await page.close();
    await events.untilNoTabLeads();

    // Hugo assigns the task to her while her app is closed.
    const { error } = await hugo.api
      .from('tasks')
      .update({ assignee_id: gwen.userId })
      .eq('id', alarmId);
    expect(error).toBeNull();

    const firedAt = Date.now();
    await events.fire('periodic');
    await expect.poll(() => lastRunAfter(context, firedAt), { timeout: 20_000 }).toBe('synced');
    const worker = context.serviceWorkers()[0];
    if (!worker) throw new Error('no service worker');
    const shown = await worker.evaluate(async () => {
      const scope = self as unknown as { registration: ServiceWorkerRegistration };
      const notifications = await scope.registration.getNotifications();
      return notifications.map((n) => ({ title: n.title, body: n.body, data: n.data as unknown }));
    });
    expect(shown).toEqual([
      {
        title: 'Assigned to you',
        body: 'Test the alarm · Weekly checks',
        data: { url: `/lists/${listId}/tasks/${alarmId}` },
      },
    ]);

    // Its click opens the task in the app's window.
    const opened = await context.newPage();
    await opened.goto('/lists');
    await expect(opened.getByRole('link', { name: 'Weekly checks', exact: true })).toBeVisible();
    await worker.evaluate(async () => {
      const scope = self as unknown as {
        registration: ServiceWorkerRegistration;
        dispatchEvent(event: Event): boolean;
      };
      const [notification] = await scope.registration.getNotifications();
      if (!notification) throw new Error('no notification');
      const NotificationEventCtor = (
        globalThis as unknown as {
          NotificationEvent: new (type: string, init: { notification: Notification }) => Event;
        }
      ).NotificationEvent;
      scope.dispatchEvent(new NotificationEventCtor('notificationclick', { notification }));
    });
    await expect(opened).toHaveURL(new RegExp(`/lists/${listId}/tasks/${alarmId}$`));
    await expect(opened.getByRole('heading', { name: 'Test the alarm' })).toBeVisible();
    await context.close();
  });
});
