// Settings on a device used without an account (no server): every section is there, sync
// says the data stays on this device, the log of rejected changes explains each one and can
// be dismissed, storage shows what the browser reports and asks to keep the data, and the
// export downloads this device's data.
import { Blob as NodeBlob } from 'node:buffer';

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { storedRows, keepFiles, logRejections, rejectionsLogged } from '@sync/testing';
import { OUTPOST_SCHEMA_VERSION } from '@/data/tables';
import {
  findHeading,
  localOnlyServices,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';

let services: TestServices | undefined;
afterEach(() => {
  vi.restoreAllMocks();
  Reflect.deleteProperty(navigator, 'storage');
});

function section(name: string): HTMLElement {
  const heading = screen.getByRole('heading', { level: 2, name });
  const element = heading.closest('section');
  if (!element) throw new Error(`no section around ${name}`);
  return element;
}

async function openLocalSettings(path = '/settings') {
  services = localOnlyServices();
  const view = renderApp(services, path);
  await findHeading('Settings');
  return { ...view, services, user: userEvent.setup() };
}

/** A browser's StorageManager as the page sees it, with a persist() that can say yes. */
function fakeStorage(options: { grant: boolean }) {
  let persisted = false;
  const storage = {
    // Binary megabytes, the units the app shows sizes in (src/utils/format.ts).
    estimate: vi.fn(() => Promise.resolve({ usage: 1.5 * 1024 ** 2, quota: 300 * 1024 ** 2 })),
    persisted: vi.fn(() => Promise.resolve(persisted)),
    persist: vi.fn(() => {
      persisted = options.grant;
      return Promise.resolve(persisted);
    }),
  };
  Object.defineProperty(navigator, 'storage', { value: storage, configurable: true });
  return storage;
}

describe('settings, used without an account', () => {
  it('shows every section, with sync on this device only', async () => {
    await openLocalSettings();
    for (const name of [
      'Profile',
      'Appearance',
      'Sync',
      'Rejected changes',
      'Storage',
      'Install',
      'Export',
      'Account',
      'About',
    ]) {
      expect(screen.getByRole('heading', { level: 2, name })).toBeInTheDocument();
    }
    expect(section('Sync')).toHaveTextContent('Your data is on this device only.');
    expect(
      within(section('Sync')).getByRole('link', { name: 'Create an account' }),
    ).toHaveAttribute('href', '/sign-up');
    expect(within(section('Sync')).queryByRole('button', { name: 'Sync now' })).toBeNull();
    expect(section('Profile')).toHaveTextContent('Create an account to set up a profile');
    expect(section('Account')).toHaveTextContent(
      "You're using Outpost without an account. Create an account to sync across devices and share lists.",
    );
    expect(
      within(section('Account')).getByRole('button', { name: 'Delete data on this device' }),
    ).toBeInTheDocument();
    expect(
      await within(section('Rejected changes')).findByText(
        'No rejected changes. Everything you changed was accepted.',
      ),
    ).toBeInTheDocument();
    expect(section('Install')).toHaveTextContent("Use your browser's menu to install Outpost.");
    expect(section('About')).toHaveTextContent('Version0.0.0-test');
    expect(section('About')).toHaveTextContent(`Sync protocol${OUTPOST_SCHEMA_VERSION}`);
    expect(section('About')).not.toHaveTextContent('Built');
    expect(section('About')).toHaveTextContent('Press ? for keyboard shortcuts');
  });

  it('moves focus to the section named in the address', async () => {
    await openLocalSettings('/settings#rejected');
    await waitFor(() => expect(document.activeElement).toBe(section('Rejected changes')));
  });

  it('explains each rejected change, links to what still exists, dismisses one and clears all', async () => {
    const { services: app, user } = await openLocalSettings();
    const { repos } = app.sync;
    const listId = await repos.lists.create({ name: 'Block C', color: 'teal' });
    const taskId = await repos.tasks.create(listId, { title: 'Fix the door' });
    const now = Date.now();
    await logRejections(app.sync, [
      {
        table: 'tasks',
        rowId: taskId,
        op: 'patch',
        data: { status: 'done' },
        code: 'PERMISSION_DENIED',
        sqlState: '42501',
        message: 'new row violates row-level security policy',
        at: now - 5 * 60_000,
        listId,
      },
      {
        table: 'comments',
        rowId: crypto.randomUUID(),
        op: 'insert',
        data: { body: 'On my way', task_id: crypto.randomUUID() },
        code: 'NOT_FOUND',
        message: 'task is gone',
        at: now - 60_000,
        listId: crypto.randomUUID(),
      },
      {
        table: 'lists',
        rowId: listId,
        op: 'patch',
        data: { name: 'x'.repeat(81) },
        code: 'VALIDATION_FAILED',
        sqlState: '22001',
        message: 'value too long for type character varying(80)',
        at: now,
        listId,
      },
    ]);

    const rejected = section('Rejected changes');
    const items = await within(rejected).findAllByRole('listitem');
    expect(items).toHaveLength(3);
    // Newest first.
    expect(items[0]).toHaveTextContent(
      'The server refused your change to the list “xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…”: List name can be at most 80 characters. Your change was undone.',
    );
    // The field's rule, never the database's SQL (product.md §8).
    expect(items[0]).not.toHaveTextContent('character varying');
    expect(items[0]).toHaveTextContent(/list\s*edit · just now/);
    expect(within(items[0]!).getByRole('link', { name: 'Open list' })).toHaveAttribute(
      'href',
      `/lists/${listId}`,
    );
    expect(items[1]).toHaveTextContent(
      'The comment “On my way” was deleted by someone else, so your change could not be saved.',
    );
    expect(items[1]).toHaveTextContent(/comment\s*new · 1 min ago/);
    expect(within(items[1]!).queryByRole('link')).toBeNull(); // its list is not on this device
    expect(items[2]).toHaveTextContent(
      "You can't edit the task “Fix the door” any more: your role on the list doesn't allow it. Your change was undone.",
    );
    expect(items[2]).toHaveTextContent(/task\s*edit · 5 min ago/);
    expect(within(items[2]!).getByRole('link', { name: 'Open task' })).toHaveAttribute(
      'href',
      `/lists/${listId}/tasks/${taskId}`,
    );

    await user.click(within(items[1]!).getByRole('button', { name: 'Dismiss' }));
    await waitFor(() => expect(within(rejected).getAllByRole('listitem')).toHaveLength(2));
    expect(rejected).not.toHaveTextContent('On my way');
    expect(await rejectionsLogged(app.sync)).toHaveLength(2);

    await user.click(within(rejected).getByRole('button', { name: 'Clear all' }));
    expect(
      await within(rejected).findByText(
        'No rejected changes. Everything you changed was accepted.',
      ),
    ).toBeInTheDocument();
    expect(await rejectionsLogged(app.sync)).toHaveLength(0);
  });

  it('shows storage used and keeps data on this device when the browser agrees', async () => {
    const storage = fakeStorage({ grant: true });
    const { user } = await openLocalSettings();
    const box = section('Storage');
    expect(
      await within(box).findByText('Outpost uses 1.5 MB of the 300 MB this browser allows.'),
    ).toBeInTheDocument();
    expect(box).toHaveTextContent('The browser may clear data on this device');
    expect(
      await within(box).findByText('No files are kept on this device for offline viewing.'),
    ).toBeInTheDocument();

    await user.click(within(box).getByRole('button', { name: 'Keep data on this device' }));
    expect(
      await within(box).findByText(/Data on this device is kept until you delete it/),
    ).toBeInTheDocument();
    expect(storage.persist).toHaveBeenCalledTimes(1);
    expect(within(box).queryByRole('button', { name: 'Keep data on this device' })).toBeNull();
  });

  it('explains a refusal to keep the data, and counts files kept for offline viewing', async () => {
    fakeStorage({ grant: false });
    const { services: app, user } = await openLocalSettings();
    // Node's Blob: fake-indexeddb stores through Node's structuredClone, which keeps a Node
    // Blob whole but turns jsdom's into a plain object (browsers keep theirs).
    const blob = (text: string) => new NodeBlob([text]) as unknown as Blob;
    await keepFiles(app.sync, [
      {
        id: 'f1',
        blob: blob('x'.repeat(1500)),
        objectPath: 'a',
        state: 'cached',
        attempts: 0,
        listId: 'l',
      },
      {
        id: 'f2',
        blob: blob('y'.repeat(500)),
        objectPath: 'b',
        state: 'queued',
        attempts: 0,
        listId: 'l',
      },
    ]);
    const box = section('Storage');
    expect(
      await within(box).findByText('2 files are kept on this device for offline viewing (2 KB).'),
    ).toBeInTheDocument();
    await user.click(await within(box).findByRole('button', { name: 'Keep data on this device' }));
    expect(await within(box).findByText(/Browsers decide this by themselves/)).toBeInTheDocument();
    expect(box).toHaveTextContent(/installing Outpost as an app/);
    expect(box).toHaveTextContent('The browser may clear data on this device');
  });

  it('exports the lists and tasks on this device as a JSON download', async () => {
    const { services: app, user } = await openLocalSettings();
    const { repos } = app.sync;
    const listId = await repos.lists.create({ name: 'Block C', color: 'teal' });
    const keep = await repos.tasks.create(listId, { title: 'Fix the door' });
    const gone = await repos.tasks.create(listId, { title: 'Deleted task' });
    await repos.tasks.delete(gone);
    await repos.comments.create(keep, 'On my way');

    const blobs: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      blobs.push(blob as Blob);
      return 'blob:test/export';
    });
    const downloads: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      downloads.push(this.download);
    });

    const box = section('Export');
    await user.click(within(box).getByRole('button', { name: 'Export all data (JSON)' }));
    const today = new Date();
    const name = `outpost-export-${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}.json`;
    expect(
      await within(box).findByText(
        new RegExp(`Exported 1 list and 1 task to ${name} \\([\\d.]+ K?B\\)`),
      ),
    ).toBeInTheDocument();
    expect(downloads).toEqual([name]);
    const doc = JSON.parse(await blobs[0]!.text()) as {
      app_version: string;
      lists: { name: string; tasks: { title: string; comments: { body: string }[] }[] }[];
    };
    expect(doc.app_version).toBe('0.0.0-test');
    expect(doc.lists.map((list) => list.name)).toEqual(['Block C']);
    expect(doc.lists[0]?.tasks.map((task) => task.title)).toEqual(['Fix the door']);
    expect(doc.lists[0]?.tasks[0]?.comments.map((comment) => comment.body)).toEqual(['On my way']);
  });

  it('deletes the data on this device after a warning, and goes to the welcome screen', async () => {
    const { services: app, user, router } = await openLocalSettings();
    const listId = await app.sync.repos.lists.create({ name: 'Block C', color: 'teal' });
    await app.sync.repos.tasks.create(listId, { title: 'Fix the door' });
    const account = section('Account');

    await user.click(within(account).getByRole('button', { name: 'Delete data on this device' }));
    const dialog = await screen.findByRole('dialog', { name: /changes haven't synced yet/ });
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    expect(within(dialog).queryByRole('button', { name: 'Sync now' })).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(await storedRows(app.sync, 'tasks')).toHaveLength(1);

    await user.click(within(account).getByRole('button', { name: 'Delete data on this device' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete anyway' }),
    );
    await findHeading(/welcome/i);
    expect(router.state.location.pathname).toBe('/welcome');
    expect(await storedRows(app.sync, 'tasks')).toHaveLength(0);
    expect(await storedRows(app.sync, 'lists')).toHaveLength(0);
    expect(localStorage.getItem('outpost:local-only')).toBeNull();
  });
});
