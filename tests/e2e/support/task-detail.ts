// Steps on the task screen, as a person takes them: on its own page (narrow windows) or in the
// panel beside its list (wide windows, issue 40), found the same way in both.
import { expect, type BrowserContext, type Locator, type Page } from '@playwright/test';

/** The open task's screen: its page, or the panel beside the list. */
export function taskScreen(page: Page): Locator {
  return page.locator('.task-detail');
}

/** The open task's title (h1 on its page, h2 in the panel beside the list's h1). */
export function taskHeading(page: Page): Locator {
  return taskScreen(page).locator('.task-detail__heading').getByRole('heading');
}

/** The panel beside the list, a landmark named by the task's title. */
export function taskPanel(page: Page, title: string | RegExp): Locator {
  return page.getByRole('complementary', { name: title });
}

/** A property's chip ("Status: To do") on the task screen, whatever its value. */
export function propertyChip(page: Page, property: string) {
  return taskScreen(page).getByRole('button', { name: new RegExp(`^${property}: `) });
}

/** The task's notes as shown when not being edited (their links included). */
export function notesText(page: Page): Locator {
  return taskScreen(page).locator('.task-notes__text');
}

/**
 * Gives the context's pages a camera, as a phone or a laptop with a webcam has (headless
 * Chromium has none, so the task screen offers no "Take photo" there).
 */
export async function withCamera(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const camera = { kind: 'videoinput', deviceId: 'camera', groupId: 'camera', label: '' };
    navigator.mediaDevices.enumerateDevices = () =>
      Promise.resolve([{ ...camera, toJSON: () => camera } as MediaDeviceInfo]);
  });
}

/** Back from the task to its list by a click: the panel's Close, or the page's back link. */
export async function backToList(page: Page): Promise<void> {
  const screen = taskScreen(page);
  await screen
    .getByRole('button', { name: 'Close', exact: true })
    .or(screen.locator('.back-link'))
    .click();
  await expect(screen).toHaveCount(0);
}

/** Sets the due date on the calendar of the due-date menu: month by month, then the day. */
export async function pickDueDate(page: Page, date: string): Promise<void> {
  await propertyChip(page, 'Due date').click();
  const dialog = page.getByRole('dialog', { name: 'Due date' });
  const day = dialog.locator(`[data-date="${date}"]`);
  // Any day of the month shown says which way to go.
  for (let step = 0; step < 240 && (await day.count()) === 0; step++) {
    const shown = (await dialog.locator('[data-date]').first().getAttribute('data-date')) ?? '';
    await dialog
      .getByRole('button', { name: shown < date ? 'Next month' : 'Previous month' })
      .click();
  }
  await day.click();
  await expect(dialog).toHaveCount(0);
}
