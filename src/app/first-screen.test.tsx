// The first screen's reads (main.tsx starts them before the first render): with them done, a
// list opened at its URL shows its tasks and counts in the app's very first render, with no
// wait on the device database; without them it first renders nothing of the list.
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { renderApp, type TestServices } from '@/testing/app-harness';
import { localListDevice } from '@/features/tasks/testing/fixtures';

import { readFirstScreen } from './first-screen';
import { SCREEN_CODE } from './screen-code';
import { preloadScreen } from './routes';

let services: TestServices | undefined;

afterEach(async () => {
  await services?.close();
  services = undefined;
});

async function listWithTasks() {
  const device = await localListDevice();
  services = device.services;
  for (const title of ['Milk', 'Bread']) {
    await services.sync.repos.tasks.create(device.listId, { title });
  }
  const path = `/lists/${device.listId}`;
  // The screen's code is here, as a page's first screen's usually is by its first render.
  preloadScreen(path);
  await SCREEN_CODE.list();
  return { services, path };
}

describe('readFirstScreen', () => {
  it("has a list's tasks and counts on screen at the app's first render", async () => {
    const { services, path } = await listWithTasks();
    const reads = readFirstScreen(services.sync, path);
    await reads.ready;
    renderApp(services, path);
    // No find*: this is what the first render (and its effects) drew.
    expect(screen.getByRole('heading', { name: 'Groceries' })).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: /Milk/ })).toBeInTheDocument();
    expect(screen.getByText('2 open · 0 done')).toBeInTheDocument();
    reads.release();
  });

  it('without them, the first render waits for the device database', async () => {
    const { services, path } = await listWithTasks();
    renderApp(services, path);
    expect(screen.queryByRole('heading', { name: 'Groceries' })).not.toBeInTheDocument();
    expect(await screen.findByRole('listitem', { name: /Milk/ })).toBeInTheDocument();
  });

  it('goes on showing what the screen took after the reads are let go', async () => {
    const { services, path } = await listWithTasks();
    const reads = readFirstScreen(services.sync, path);
    await reads.ready;
    renderApp(services, path);
    reads.release();
    expect(await screen.findByText('2 open · 0 done')).toBeInTheDocument();
    const [listId] = path.split('/').slice(-1);
    await services.sync.repos.tasks.create(listId!, { title: 'Eggs' });
    expect(await screen.findByText('3 open · 0 done')).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: /Eggs/ })).toBeInTheDocument();
  });
});
