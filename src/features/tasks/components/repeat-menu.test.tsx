// Repeat on the task screen (local-only device, the app's clock on Friday 4 December 2026):
// each kind of rule is set through the chip's menu or its custom form and stored as the
// repositories take it, stopping ends the series and says this one stays, completing a
// repeating task links to the next one, and a viewer reads the rule as text.
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { storedRows } from '@sync/testing';
import { useToasts } from '@/lib/toasts';
import { findHeading, renderApp, type TestServices } from '@/testing/app-harness';

import { SERIES_NOTE } from './repeat-menu';
import { localListDevice, seedTasks, sharedList } from '../testing/fixtures';
import {
  chip,
  FRIDAY,
  menuItems,
  openTask,
  shortDate,
  stored,
} from '../testing/task-detail-screen';

/** Friday, "today" on the app's clock. */
const DUE = '2026-12-04';

async function openRepeatMenu(user: Awaited<ReturnType<typeof openTask>>['user']) {
  await user.click(chip('Repeat'));
  return screen.getByRole('dialog', { name: 'Repeat' });
}

async function storedRepeat(services: TestServices, taskId: string) {
  return (await stored(services, taskId))?.repeat;
}

describe('repeat on the task screen', () => {
  it('offers the common rules from the due date, and stores the one picked', async () => {
    const { user, services, taskId } = await openTask(
      { title: 'Water the plants', due_on: DUE },
      { now: FRIDAY },
    );
    expect(chip('Repeat')).toHaveAccessibleName('Repeat: Never');
    await openRepeatMenu(user);
    expect(menuItems('Repeat options')).toEqual([
      'Never',
      'Every day',
      'Every weekday',
      'Every week on Friday',
      'Monthly on the 4th',
      'Custom…',
    ]);
    // Where focus starts: the current choice.
    expect(screen.getByRole('menuitemradio', { name: /Never/ })).toHaveFocus();

    const picks: [string, string][] = [
      ['Every day', 'daily'],
      ['Every weekday', 'weekly:1,2,3,4,5'],
      ['Every week on Friday', 'weekly:5'],
      ['Monthly on the 4th', 'monthly:4'],
    ];
    for (const [label, rule] of picks) {
      if (!screen.queryByRole('dialog', { name: 'Repeat' })) await openRepeatMenu(user);
      await user.click(screen.getByRole('menuitemradio', { name: new RegExp(`^${label}`) }));
      await waitFor(async () => expect(await storedRepeat(services, taskId)).toBe(rule));
    }
    // The chip says the rule, and focus is back on it.
    await waitFor(() => expect(chip('Repeat')).toHaveAccessibleName('Repeat: Monthly on the 4th'));
    expect(chip('Repeat')).toHaveFocus();
    // When the next would be due, and what carries on to it.
    expect(
      screen.getByText(
        `Repeats monthly on the 4th · Next: ${shortDate('2027-01-04', true)}. ${SERIES_NOTE}`,
      ),
    ).toBeInTheDocument();
  });

  it('sets custom rules by keyboard: weekdays, a day of the month, days after done', async () => {
    const { user, services, taskId } = await openTask(
      { title: 'Water the plants', due_on: DUE },
      { now: FRIDAY },
    );
    await openRepeatMenu(user);
    await user.keyboard('{End}{Enter}');
    const form = screen.getByRole('form', { name: 'Custom repeat' });
    expect(within(form).getByRole('radio', { name: 'On days of the week' })).toHaveFocus();
    // The due date's weekday is on; Friday off, Monday and Thursday on.
    const day = (name: string) => within(form).getByRole('button', { name });
    expect(day('Friday')).toHaveAttribute('aria-pressed', 'true');
    await user.click(day('Friday'));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Pick at least one day.');
    day('Thursday').focus();
    await user.keyboard(' ');
    day('Monday').focus();
    await user.keyboard('{Enter}');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(async () => expect(await storedRepeat(services, taskId)).toBe('weekly:1,4'));
    await waitFor(() => expect(chip('Repeat')).toHaveAccessibleName('Repeat: Every Mon, Thu'));

    await openRepeatMenu(user);
    // A rule of its own is "Custom…", checked.
    expect(screen.getByRole('menuitemradio', { name: /Custom/ })).toHaveAttribute(
      'aria-checked',
      'true',
    );
    await user.keyboard('{Enter}');
    await user.click(screen.getByRole('radio', { name: 'On a day of the month' }));
    const monthDay = screen.getByRole('textbox', { name: 'Day of the month (1–31)' });
    await user.clear(monthDay);
    await user.type(monthDay, '32{Enter}');
    expect(await screen.findByText('Pick a day from 1 to 31.')).toBeInTheDocument();
    await user.clear(monthDay);
    await user.type(monthDay, '31{Enter}');
    await waitFor(async () => expect(await storedRepeat(services, taskId)).toBe('monthly:31'));

    await openRepeatMenu(user);
    await user.keyboard('{Enter}');
    await user.click(screen.getByRole('radio', { name: 'Some days after done' }));
    const after = screen.getByRole('textbox', { name: 'Days after done (1–365)' });
    await user.clear(after);
    await user.type(after, '0{Enter}');
    expect(await screen.findByText('Pick 1 to 365 days.')).toBeInTheDocument();
    await user.clear(after);
    await user.type(after, '3{Enter}');
    await waitFor(async () => expect(await storedRepeat(services, taskId)).toBe('after:3'));
    expect(
      await screen.findByText(
        `Repeats 3 days after done · Next: ${shortDate('2026-12-07')}, if done today. ${SERIES_NOTE}`,
      ),
    ).toBeInTheDocument();
  });

  it('stops repeating: this one stays, and the toast says so', async () => {
    const { user, services, taskId } = await openTask(
      { title: 'Water the plants', due_on: DUE, repeat: 'weekly:5' },
      { now: FRIDAY },
    );
    await openRepeatMenu(user);
    expect(menuItems('Repeat options')[0]).toBe('Stop repeating');
    await user.click(screen.getByRole('menuitemradio', { name: /Stop repeating/ }));
    await waitFor(async () => expect(await storedRepeat(services, taskId)).toBeNull());
    expect(useToasts.getState().toasts.map((t) => t.message)).toContain(
      'Stopped repeating. This task stays; no more will follow.',
    );
    await waitFor(() => expect(chip('Repeat')).toHaveAccessibleName('Repeat: Never'));
    expect(screen.queryByText(/Repeats/)).toBeNull();
    expect((await stored(services, taskId))?.title).toBe('Water the plants');
  });

  it('completing a repeating task makes the next one, and links to it', async () => {
    const { user, services, taskId, listId } = await openTask(
      { title: 'Water the plants', due_on: DUE, repeat: 'weekly:5' },
      { now: FRIDAY },
    );
    await user.click(chip('Status'));
    await user.click(screen.getByRole('menuitemradio', { name: /Done/ }));
    const link = await screen.findByRole('link', {
      name: `Next one, due ${shortDate('2026-12-11')}`,
    });
    const next = (await storedRows(services.sync, 'tasks')).find(
      (row) => row.follows_id === taskId,
    );
    expect(next).toMatchObject({ due_on: '2026-12-11', repeat: 'weekly:5', status: 'todo' });
    expect(link).toHaveAttribute('href', `/lists/${listId}/tasks/${String(next?.id)}`);
    await user.click(link);
    await findHeading('Water the plants');
    expect(chip('Status')).toHaveAccessibleName('Status: To do');
  });

  it('shows a viewer the rule as text', async () => {
    const device = await localListDevice();
    const listId = await sharedList(device.services, 'viewer');
    const [taskId] = await seedTasks(device.services, listId, 1, () => ({ repeat: 'daily' }));
    renderApp(device.services, `/lists/${listId}/tasks/${String(taskId)}`);
    await findHeading('Task 1');
    const values = Object.fromEntries(
      screen.getAllByRole('term').map((t) => [t.textContent, t.nextElementSibling?.textContent]),
    );
    expect(values.Repeat).toBe('Every day');
    expect(screen.queryByRole('button', { name: /^Repeat/ })).toBeNull();
  });
});
