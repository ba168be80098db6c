// Steps on the task screen's property chips, as a person takes them.
import { expect, type Page } from '@playwright/test';

/** A property's chip ("Status: To do"), whatever its value. */
export function propertyChip(page: Page, property: string) {
  return page.getByRole('button', { name: new RegExp(`^${property}: `) });
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
