// A change the server refuses while the app is open gets a toast saying what and why, even
// when it is the first rejection this device has ever logged; old ones are not repeated.
// Changes refused together are one toast that leads to Settings, and never push an Undo off
// the screen; a refused value is explained by its rule, never by the database's SQL.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { logRejections } from '@sync/testing';
import { showToast } from '@/lib/toasts';

import { REJECTION_TOAST_MS, refusedSummary } from './rejection-toasting';

import {
  findHeading,
  localOnlyServices,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';

let services: TestServices | undefined;

/** A fresh record each time: Dexie writes the new key into the object it adds. */
const refusal = (title = 'Rig the lights (done by Bob)') => ({
  table: 'tasks',
  rowId: '7a5c0000-0000-4000-8000-000000000001',
  op: 'patch' as const,
  data: { title },
  code: 'PERMISSION_DENIED',
  sqlState: '42501',
  message: 'new row violates row-level security policy',
  at: Date.now(),
});

function notifications(): HTMLElement {
  return screen.getByRole('status', { name: 'Notifications' });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('rejection toasts', () => {
  it('toasts the first rejection a device ever logs, with the reason', async () => {
    services = localOnlyServices();
    renderApp(services, '/lists');
    await findHeading('Lists');
    await logRejections(services.sync, [refusal()]);
    expect(
      await screen.findByText(/You can't edit the task “Rig the lights \(done by Bob\)” any more/),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Details' })).toHaveAttribute(
      'href',
      '/settings#rejected',
    );
  });

  it('does not repeat rejections logged before the app opened', async () => {
    services = localOnlyServices();
    await logRejections(services.sync, [refusal()]);
    renderApp(services, '/lists');
    await findHeading('Lists');
    await logRejections(services.sync, [refusal('Newer one')]);
    expect(await screen.findByText(/“Newer one”/)).toBeInTheDocument();
    expect(screen.queryByText(/Rig the lights/)).toBeNull();
  });

  it('explains a refused value by its rule, not by SQL', async () => {
    services = localOnlyServices();
    renderApp(services, '/lists');
    await findHeading('Lists');
    await logRejections(services.sync, [
      {
        ...refusal('x'.repeat(201)),
        code: 'VALIDATION_FAILED',
        sqlState: '23514',
        constraint: 'tasks_title_check',
        message: 'new row for relation "tasks" violates check constraint "tasks_title_check"',
      },
    ]);
    const toast = await within(notifications()).findByText(/The server refused your change/);
    expect(toast).toHaveTextContent('Title can be at most 200 characters. Your change was undone.');
    expect(notifications()).not.toHaveTextContent(/violates|constraint|relation/);
  });

  it('groups changes refused together into one toast that keeps the Undo on screen', async () => {
    services = localOnlyServices();
    const { router } = renderApp(services, '/lists');
    await findHeading('Lists');
    const user = userEvent.setup();
    showToast({
      message: 'Deleted “Fix the door”',
      durationMs: 60_000,
      action: { label: 'Undo', run: () => undefined },
    });
    showToast({ message: 'Link copied', durationMs: 60_000 });
    showToast({ message: 'Task completed', durationMs: 60_000 });

    await logRejections(services.sync, [refusal('One'), refusal('Two'), refusal('Three')]);
    await within(notifications()).findByText(
      "3 changes were refused and undone: you can't edit these any more.",
    );
    const items = within(notifications()).getAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(notifications()).toHaveTextContent('Deleted “Fix the door”');
    expect(within(notifications()).getByRole('button', { name: 'Undo' })).toBeInTheDocument();
    expect(notifications()).not.toHaveTextContent(/“One”|“Two”|“Three”/);

    // More refusals while it shows: the same toast counts them (for another reason now, so
    // it no longer names one).
    await logRejections(services.sync, [
      {
        ...refusal('Four'),
        code: 'NOT_FOUND',
        sqlState: 'P0002',
        message: 'tasks row was deleted',
      },
    ]);
    expect(
      await within(notifications()).findByText('4 changes were refused and undone.'),
    ).toBeInTheDocument();
    expect(within(notifications()).getAllByRole('listitem')).toHaveLength(3);
    expect(
      within(notifications()).queryByText(
        "3 changes were refused and undone: you can't edit these any more.",
      ),
    ).toBeNull();
    expect(within(notifications()).getByRole('button', { name: 'Undo' })).toBeInTheDocument();

    await user.click(within(notifications()).getByRole('link', { name: 'See why' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings'));
    expect(router.state.location.hash).toBe('#rejected');
  });

  it('goes by itself in time, paused while hovered or focused, and links to the log', async () => {
    services = localOnlyServices();
    renderApp(services, '/lists');
    await findHeading('Lists');
    await logRejections(services.sync, [refusal()]);
    const toast = (await within(notifications()).findByText(/You can't edit/)).closest('li')!;
    expect(toast).toHaveClass('toast--error');
    const link = within(toast).getByRole('link', { name: 'Details' });
    expect(link).toHaveAttribute('href', '/settings#rejected');

    // From here the toasts' clock is the test's (the device database keeps its own).
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'Date'],
      shouldClearNativeTimers: true,
    });
    // Held while the pointer is on it, however long.
    fireEvent.mouseEnter(toast);
    act(() => {
      vi.advanceTimersByTime(60_000);
    });
    expect(toast).toBeInTheDocument();
    fireEvent.mouseLeave(toast);
    act(() => {
      vi.advanceTimersByTime(REJECTION_TOAST_MS / 2);
    });
    // And while focus is in it (a keyboard user reading it); its time goes on from there.
    act(() => link.focus());
    act(() => {
      vi.advanceTimersByTime(60_000);
    });
    expect(toast).toBeInTheDocument();
    act(() => link.blur());
    act(() => {
      vi.advanceTimersByTime(REJECTION_TOAST_MS / 2 - 1_000);
    });
    expect(toast).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(1_000);
    });
    expect(toast).not.toBeInTheDocument();
    expect(notifications()).not.toHaveTextContent(/refused|edit/);
  });

  it('names the reason a group of refusals shares, and only then', () => {
    expect(refusedSummary(['NOT_FOUND', 'NOT_FOUND'])).toBe(
      '2 changes were refused and undone: someone else deleted what they changed.',
    );
    expect(refusedSummary(['VALIDATION_FAILED'])).toBe(
      '1 change was refused and undone: it breaks the rules for its fields.',
    );
    expect(refusedSummary(['PERMISSION_DENIED', 'VALIDATION_FAILED'])).toBe(
      '2 changes were refused and undone.',
    );
  });
});
