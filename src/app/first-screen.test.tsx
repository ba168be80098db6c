// The first screen's reads (main.tsx starts them before the first render): with them done, a
// list opened at its URL shows its tasks and counts in the app's very first render, with no
// wait on the device database; without them it first renders nothing of the list.
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { renderApp, type TestServices } from '@/testing/app-harness';
import { localListDevice } from '@/features/tasks/testing/fixtures';

import { readFirstScreen, readScreensAhead } from './first-screen';
import { SCREEN_CODE } from './screen-code';
import { preloadScreen } from './routes';

let services: TestServices | undefined;

async function listWithTasks() {
  const device = await localListDevice();
  services = device.services;
  for (const title of ['Milk', 'Bread']) {
    await services.sync.repos.tasks.create(device.listId, { title });
  }
  const path = `/lists/${device.listId}`;
  // The screen's code is here, as main.tsx's first render waits for it.
  await preloadScreen(path);
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

  it("has a list's rows on screen at the first render once the rows' reads are done", async () => {
    const { services, path } = await listWithTasks();
    const reads = readFirstScreen(services.sync, path);
    // What main.tsx waits for before the first render; the counts may come after.
    await reads.rows;
    renderApp(services, path);
    expect(screen.getByRole('heading', { name: 'Groceries' })).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: /Milk/ })).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: /Bread/ })).toBeInTheDocument();
    expect(await screen.findByText('2 open · 0 done')).toBeInTheDocument();
    reads.release();
  });

  it("settles the rows' reads with the first tasks, without waiting for the counts", async () => {
    const { services, path } = await listWithTasks();
    const queries = services.sync.queries;
    const gate = () => {
      let open = () => {};
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { open, opened };
    };
    const tasksGate = gate();
    const countsGate = gate();
    const firstTasks = queries.firstTasks.bind(queries);
    const taskCounts = queries.taskCounts.bind(queries);
    const list = queries.list.bind(queries);
    const role = queries.role.bind(queries);
    const answered: string[] = [];
    queries.list = async (...args) => {
      const found = await list(...args);
      answered.push('list');
      return found;
    };
    queries.role = async (...args) => {
      const found = await role(...args);
      answered.push('role');
      return found;
    };
    queries.firstTasks = async (...args) => {
      await tasksGate.opened;
      return firstTasks(...args);
    };
    queries.taskCounts = async (...args) => {
      await countsGate.opened;
      return taskCounts(...args);
    };
    const reads = readFirstScreen(services.sync, path);
    const settled: string[] = [];
    void reads.rows.then(() => settled.push('rows'));
    void reads.ready.then(() => settled.push('ready'));
    // Every read but the gated ones has its answer: the owner, the list and the role.
    await expect.poll(() => [...answered].sort()).toEqual(['list', 'role']);
    await Promise.resolve();
    expect(settled).toEqual([]);
    tasksGate.open();
    await expect.poll(() => settled).toEqual(['rows']);
    countsGate.open();
    await expect.poll(() => settled).toEqual(['rows', 'ready']);
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

describe('readScreensAhead', () => {
  it("starts a list's reads when a press begins on a link to it, and on a click by keyboard", async () => {
    const device = await localListDevice();
    services = device.services;
    const queries = services.sync.queries;
    const firstTasks = queries.firstTasks.bind(queries);
    const asked: string[] = [];
    const waiting = new Map<string, () => void>();
    const askedFor = (listId: string) =>
      asked.includes(listId)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.set(listId, resolve));
    queries.firstTasks = (listId, ...rest) => {
      asked.push(listId);
      waiting.get(listId)?.();
      return firstTasks(listId, ...rest);
    };
    const link = (href: string) => {
      const a = document.createElement('a');
      a.href = href;
      a.append(document.createElement('span'));
      document.body.append(a);
      return a;
    };
    const other = await services.sync.repos.lists.create({ name: 'Hardware', color: 'red' });
    const toList = link(`/lists/${device.listId}`);
    const toOther = link(`/lists/${other}`);
    const toSettings = link('/settings');
    // jsdom would try to follow the links.
    const stay = (event: Event) => event.preventDefault();
    document.body.addEventListener('click', stay);
    const stop = readScreensAhead(services.sync);
    try {
      toSettings.dispatchEvent(new Event('pointerdown', { bubbles: true }));
      expect(asked).toEqual([]);
      // On the link's content, as a press usually lands.
      toList.firstElementChild!.dispatchEvent(new Event('pointerdown', { bubbles: true }));
      await askedFor(device.listId);
      expect(asked).toEqual([device.listId]);
      // A keyboard's Enter makes a click with no press before it; the read is shared.
      toList.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
      toOther.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
      await askedFor(other);
      expect(asked).toEqual([device.listId, other]);
      stop();
      const third = await services.sync.repos.lists.create({ name: 'Garden', color: 'teal' });
      const toThird = link(`/lists/${third}`);
      toThird.dispatchEvent(new Event('pointerdown', { bubbles: true }));
      // Reads started in order: one the press had started would come before this one.
      const sentinel = readFirstScreen(services.sync, `/lists/${device.listId}-none`);
      await askedFor(`${device.listId}-none`);
      expect(asked).toEqual([device.listId, other, `${device.listId}-none`]);
      sentinel.release();
      toThird.remove();
    } finally {
      stop();
      document.body.removeEventListener('click', stay);
      toList.remove();
      toOther.remove();
      toSettings.remove();
    }
  });
});
