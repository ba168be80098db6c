// What every task-detail test file does first (components/task-detail-screen*.test.tsx): open a
// task on a local-only device (with the app's clock set when a date matters), and read its chips
// and menus as the user sees them.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { storedRow } from '@sync/testing';
import { useToasts } from '@/lib/toasts';
import {
  createTestServices,
  findHeading,
  markLocalOnly,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';

import { localListDevice } from './fixtures';

/** A task of the seeded shared list (supabase/seed.sql, i = 1). */
export const SEEDED_TASK = '7a5c0000-0000-4000-8000-000000000001';

/** Friday 4 December 2026, 10:00 on this machine's clock: "today" for the date menu. */
export const FRIDAY = new Date(2026, 11, 4, 10).getTime();

export async function openTask(
  input: Parameters<TestServices['sync']['repos']['tasks']['create']>[1],
  options: { now?: number } = {},
) {
  let listId: string;
  let services: TestServices;
  if (options.now === undefined) {
    const device = await localListDevice();
    services = device.services;
    listId = device.listId;
  } else {
    // As localListDevice, with the app's clock set.
    const now = options.now;
    markLocalOnly();
    useToasts.setState({ toasts: [] });
    services = createTestServices({ now: () => now });
    listId = await services.sync.repos.lists.create({ name: 'Groceries', color: 'teal' });
  }
  const taskId = await services.sync.repos.tasks.create(listId, input);
  const user = userEvent.setup();
  const { router } = renderApp(services, `/lists/${listId}/tasks/${taskId}`);
  await findHeading(input.title);
  return { user, router, services, listId, taskId };
}

/** A chip, by the property it sets ("Status"), whatever its value. */
export function chip(property: string) {
  return screen.getByRole('button', { name: new RegExp(`^${property}: `) });
}

/** The names of the open menu's items. */
export function menuItems(name: string) {
  const menu = within(screen.getByRole('menu', { name }));
  const radios = menu.queryAllByRole('menuitemradio');
  // The label alone: not the tick, the initials of an avatar or a hint.
  return (radios.length ? radios : menu.getAllByRole('menuitem')).map(
    (item) => item.querySelector('.menu__label')?.textContent,
  );
}

/** "Mon 7 Dec" as the chips write a date (in the reader's locale). */
export function shortDate(iso: string, withYear = false) {
  return new Date(`${iso}T00:00:00Z`).toLocaleDateString(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(withYear ? { year: 'numeric' } : {}),
    timeZone: 'UTC',
  });
}

export async function stored(services: TestServices, taskId: string) {
  return storedRow(services.sync, 'tasks', taskId);
}
