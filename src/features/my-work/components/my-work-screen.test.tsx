// My work's screens on a local-only device, against the real sync library on fake-indexeddb
// and a fixed clock: Today's groups and rows across lists, a tick that completes the task and
// keeps its row shown done, the keyboard (j/k, x, Enter), Upcoming's day headings, Assigned
// to me's empty state and the sidebar's counts.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';

import { LOCAL_USER_ID } from '@sync/index';
import { myWorkQueries } from '@/data/my-work-queries';
import { FIRST_FRAME_ROWS } from './my-work-screen';
import {
  findHeading,
  localOnlyServices,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';

/** 2 Dec 2026, 10:00 local time. */
const NOW = new Date(2026, 11, 2, 10).getTime();

let services: TestServices | undefined;

afterEach(async () => {
  await services?.close();
  services = undefined;
});

async function device() {
  services = localOnlyServices({ now: () => NOW });
  const { repos } = services.sync;
  const roof = await repos.lists.create({ name: 'Roof crew', color: 'teal' });
  const yard = await repos.lists.create({ name: 'Yard', color: 'red' });
  const task = (listId: string, title: string, due_on: string | null) =>
    repos.tasks.create(listId, { title, due_on });
  await task(yard, 'Sweep the yard', '2026-12-02');
  await task(roof, 'Order tiles', '2026-11-28');
  await task(roof, 'Fix gutter', '2026-12-02');
  await task(roof, 'Check flashing', '2026-12-03');
  await task(yard, 'Paint fence', '2026-12-10');
  await task(yard, 'Some day', null);
  return { services, roof, yard };
}

const rowsIn = (name: string) =>
  within(screen.getByRole('region', { name: new RegExp(`^${name}`) }))
    .getAllByRole('listitem')
    .map((row) => row.getAttribute('aria-label'));

describe('my work', () => {
  it('draws a screenful of rows first and the rest a frame later, with the whole count', async () => {
    const { services, roof } = await device();
    for (let i = 1; i <= FIRST_FRAME_ROWS + 5; i += 1) {
      await services.sync.repos.tasks.create(roof, { title: `Tile ${i}`, due_on: '2026-12-02' });
    }
    renderApp(services, '/today');
    await findHeading('Today');
    // Today's group: Fix gutter, the tiles, Sweep the yard; Overdue's Order tiles before it.
    await waitFor(() => expect(rowsIn('Today')).toHaveLength(FIRST_FRAME_ROWS + 7));
    expect(screen.getByRole('region', { name: /^Today/ })).toHaveAccessibleName(
      new RegExp(`^Today,\\s*${FIRST_FRAME_ROWS + 7}\\s*tasks$`),
    );
  });

  it('shows Today: overdue, then today’s, each row with its list; the sidebar counts', async () => {
    const { services } = await device();
    renderApp(services, '/today');
    await findHeading('Today');
    await waitFor(() => expect(rowsIn('Overdue')).toEqual(['Order tiles']));
    // Lists in the sidebar's order, then each list's order.
    expect(rowsIn('Today')).toEqual(['Fix gutter', 'Sweep the yard']);
    const row = screen.getByRole('listitem', { name: 'Order tiles' });
    expect(row).toHaveTextContent('Roof crew');
    expect(within(row).getByRole('link', { name: 'Order tiles' })).toHaveAttribute(
      'href',
      expect.stringMatching(/^\/lists\/[^/]+\/tasks\/[^/]+$/),
    );
    const nav = screen.getAllByRole('navigation', { name: 'Main' })[0]!;
    expect(await within(nav).findByRole('link', { name: 'Today, 3 due' })).toBeInTheDocument();
    expect(within(nav).getByRole('link', { name: 'Assigned to me, 0 open' })).toBeInTheDocument();
  });

  it('ticks a task done: it is written, and stays shown done until the view is left', async () => {
    const { services } = await device();
    const user = userEvent.setup();
    renderApp(services, '/today');
    await user.click(await screen.findByRole('checkbox', { name: 'Done: Fix gutter' }));
    await waitFor(async () => {
      const tasks = await services.sync.queries
        .extend(myWorkQueries)
        .dueToday(LOCAL_USER_ID, '2026-12-02');
      expect(tasks.rows.map((row) => row.task.title)).not.toContain('Fix gutter');
    });
    expect(screen.getByRole('checkbox', { name: 'Done: Fix gutter' })).toBeChecked();
    expect(screen.getByRole('listitem', { name: 'Fix gutter' })).toHaveAttribute(
      'data-status',
      'done',
    );
    // Unticked there, it is open again.
    await user.click(screen.getByRole('checkbox', { name: 'Done: Fix gutter' }));
    await waitFor(() =>
      expect(screen.getByRole('listitem', { name: 'Fix gutter' })).toHaveAttribute(
        'data-status',
        'todo',
      ),
    );
  });

  it('walks the rows by keyboard: j/k across groups, x ticks, Enter opens', async () => {
    const { services } = await device();
    const user = userEvent.setup();
    const { router } = renderApp(services, '/today');
    await screen.findByRole('listitem', { name: 'Order tiles' });
    await user.keyboard('j');
    expect(screen.getByRole('listitem', { name: 'Order tiles' })).toHaveFocus();
    await user.keyboard('j');
    expect(screen.getByRole('listitem', { name: 'Fix gutter' })).toHaveFocus();
    await user.keyboard('jk');
    expect(screen.getByRole('listitem', { name: 'Fix gutter' })).toHaveFocus();
    await user.keyboard('x');
    await waitFor(() =>
      expect(screen.getByRole('checkbox', { name: 'Done: Fix gutter' })).toBeChecked(),
    );
    await user.keyboard('{Enter}');
    await findHeading('Fix gutter');
    expect(router.state.location.pathname).toMatch(/^\/lists\/[^/]+\/tasks\/[^/]+$/);
  });

  it('shows Upcoming by day, and an empty Assigned to me that says what it is for', async () => {
    const { services } = await device();
    const user = userEvent.setup();
    renderApp(services, '/upcoming');
    await findHeading('Upcoming');
    await waitFor(() => expect(rowsIn('Tomorrow')).toEqual(['Check flashing']));
    const later = new Intl.DateTimeFormat(undefined, {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
    }).format(new Date(2026, 11, 10));
    expect(rowsIn(later)).toEqual(['Paint fence']);
    await user.click(screen.getAllByRole('link', { name: 'Assigned to me' })[0]!);
    await findHeading('Assigned to me');
    expect(await screen.findByText('Nothing assigned to you')).toBeInTheDocument();
  });
});
