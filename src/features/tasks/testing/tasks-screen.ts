// What every tasks-screen test file does first (components/tasks-screen*.test.tsx): open a
// local-only list on screen, and read the rows it shows and the rows the device database holds.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { findHeading, renderApp, type TestServices } from '@/testing/app-harness';

import { dbTasks, localListDevice } from './fixtures';

export async function openList(titles: string[] = [], path?: (listId: string) => string) {
  const device = await localListDevice();
  const services = device.services;
  for (const title of titles) await services.sync.repos.tasks.create(device.listId, { title });
  const user = userEvent.setup();
  const { router } = renderApp(services, path ? path(device.listId) : `/lists/${device.listId}`);
  await findHeading('Groceries');
  return { user, router, listId: device.listId, services };
}

export function taskList() {
  return screen.getByRole('list', { name: 'Tasks' });
}

export function shownTitles(): string[] {
  return within(taskList())
    .getAllByRole('listitem')
    .map((row) => row.getAttribute('aria-label') ?? '');
}

export async function titleOf(services: TestServices, listId: string, title: string) {
  return (await dbTasks(services, listId)).find((row) => row.title === title);
}
