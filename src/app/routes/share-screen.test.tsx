// "Add to Outpost" against the real sync library on fake-indexeddb: the shared files shown
// with what the worker refused and why, a list and task picked by keyboard, a new task titled
// from the share, the files queued as attachments (offline) the way "Add file" does, the
// share forgotten and the task opened; viewers' lists are not offered.
import { File as NodeFile } from 'node:buffer';

import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { ATTACHMENTS_PER_TASK_MAX } from '@/data/schema';
import { keptFile, queuedChanges, storedRows } from '@sync/testing';
import { Route, Switch, useParams } from '@/lib/router';
import {
  atPath,
  createTestServices,
  findHeading,
  localOnlyServices,
  renderApp,
  renderWithServices,
  type TestServices,
} from '@/testing/app-harness';
import { sharedList } from '@/testing/fixtures';
import type { KeptShare } from '@/lib/pwa/share-inbox';

import { ShareScreen, type ShareScreenProps } from './share-screen';

let services: TestServices | undefined;
beforeEach(() => {
  // jsdom has no object URLs; the thumbnails only need a URL to point at.
  vi.stubGlobal(
    'URL',
    Object.assign(URL, { createObjectURL: () => 'blob:thumb', revokeObjectURL: () => undefined }),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
});

/** A shared file as the worker hands it back (Node's File: it survives fake-indexeddb). */
const shared = (name: string, type: string, body = 'bytes') =>
  new NodeFile([body], name, { type }) as unknown as File;

function share(overrides: Partial<KeptShare> = {}): KeptShare {
  return { id: 'share-1', title: '', text: '', url: '', files: [], refused: [], ...overrides };
}

function TaskProbe() {
  const { listId, taskId } = useParams();
  return <p>Task screen {`${listId}/${taskId}`}</p>;
}

function render(kept: ShareScreenProps['kept'], onAttached = vi.fn(() => Promise.resolve())) {
  atPath('/share?id=share-1');
  renderWithServices(
    services!,
    <Switch>
      <Route path="/share">
        <ShareScreen kept={kept} onAttached={onAttached} />
      </Route>
      <Route path="/lists/:listId/tasks/:taskId">
        <TaskProbe />
      </Route>
    </Switch>,
  );
  return onAttached;
}

async function attachmentsOf(taskId: string) {
  return (await storedRows(services!.sync, 'attachments')).filter(
    (row) => row.task_id === taskId && !row.deleted_at,
  );
}

async function setup() {
  services = localOnlyServices({ online: false });
  const { repos } = services.sync;
  const attic = await repos.lists.create({ name: 'Attic', color: 'slate' });
  const blockC = await repos.lists.create({ name: 'Block C', color: 'teal' });
  await repos.tasks.create(blockC, { title: 'Check fire exits' });
  const seal = await repos.tasks.create(blockC, { title: 'Seal window' });
  const done = await repos.tasks.create(blockC, { title: 'Old job' });
  await repos.tasks.update(done, { status: 'done' });
  return { attic, blockC, seal };
}

describe('ShareScreen', () => {
  it('attaches the shared files to a task picked by keyboard, offline, then opens it', async () => {
    const { blockC, seal } = await setup();
    const files = [shared('crack.png', 'image/png'), shared('report.pdf', 'application/pdf')];
    const onAttached = render({ share: share(), files });

    expect(await screen.findByRole('heading', { name: '2 files' })).toBeInTheDocument();
    expect(screen.getByText('crack.png').closest('li')).toHaveTextContent('5 B');
    const attic = await screen.findByRole('radio', { name: 'Attic' });
    expect(attic).toBeChecked();

    const user = userEvent.setup();
    attic.focus();
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('radio', { name: 'Block C' })).toBeChecked();
    await user.tab();
    expect(screen.getByRole('radio', { name: 'New task' })).toHaveFocus();
    // Open tasks of the chosen list only.
    await screen.findByRole('radio', { name: 'Seal window' });
    expect(screen.queryByRole('radio', { name: 'Old job' })).not.toBeInTheDocument();
    await user.keyboard('{ArrowDown}{ArrowDown}');
    expect(screen.getByRole('radio', { name: 'Seal window' })).toBeChecked();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Attach' })).toHaveFocus();
    await user.keyboard('{Enter}');

    expect(await screen.findByText(`Task screen ${blockC}/${seal}`)).toBeInTheDocument();
    const rows = await attachmentsOf(seal);
    expect(rows.map((row) => [row.file_name, row.mime_type, row.list_id]).sort()).toEqual([
      ['crack.png', 'image/png', blockC],
      ['report.pdf', 'application/pdf', blockC],
    ]);
    // Queued for upload like any attachment: the bytes kept, the rows in the outbox.
    for (const row of rows) {
      expect((await keptFile(services!.sync, String(row.id)))?.state).toBe('queued');
    }
    const queued = (await queuedChanges(services!.sync)).filter((c) => c.table === 'attachments');
    expect(queued).toHaveLength(2);
    expect(onAttached).toHaveBeenCalledTimes(1);
  });

  it('makes a new task titled from the share and attaches to it', async () => {
    const { attic } = await setup();
    render({
      share: share({ title: 'Meter reading', text: 'Boiler room\nsecond line' }),
      files: [shared('meter.jpg', 'image/jpeg')],
    });
    const title = await screen.findByLabelText('Title');
    expect(title).toHaveValue('Meter reading');

    const user = userEvent.setup();
    await user.clear(title);
    await user.click(screen.getByRole('button', { name: 'Attach' }));
    // An empty title is refused like anywhere else, and nothing is made.
    expect(await screen.findByText(/title/i, { selector: '.field__error' })).toBeInTheDocument();
    expect(await storedRows(services!.sync, 'attachments')).toHaveLength(0);

    await user.type(title, 'Meter in boiler room{Enter}');
    const probe = await screen.findByText(/^Task screen /);
    const [, taskId] = probe.textContent.replace('Task screen ', '').split('/');
    const tasks = await storedRows(services!.sync, 'tasks');
    expect(tasks.find((task) => task.id === taskId)).toMatchObject({
      title: 'Meter in boiler room',
      list_id: attic,
    });
    expect((await attachmentsOf(taskId!)).map((row) => row.file_name)).toEqual(['meter.jpg']);
  });

  it('titles a new task from the text or link when the share has no title', async () => {
    await setup();
    render({
      share: share({ text: '  Boiler room\nmore', url: 'https://example.com' }),
      files: [shared('meter.jpg', 'image/jpeg')],
    });
    expect(await screen.findByLabelText('Title')).toHaveValue('Boiler room');
  });

  it('stays and says why when the task has no room for the files', async () => {
    const { seal } = await setup();
    for (let i = 0; i < ATTACHMENTS_PER_TASK_MAX; i++) {
      await services!.sync.repos.attachments.add(
        seal,
        shared(`p${i}.png`, 'image/png'),
        `p${i}.png`,
      );
    }
    const onAttached = render({ share: share(), files: [shared('crack.png', 'image/png')] });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('radio', { name: 'Block C' }));
    await user.click(await screen.findByRole('radio', { name: 'Seal window' }));
    await user.click(screen.getByRole('button', { name: 'Attach' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(
      `Nothing was added:crack.png: A task can have at most ${ATTACHMENTS_PER_TASK_MAX} photos and files.`,
    );
    expect(screen.getByRole('heading', { level: 1, name: 'Add to Outpost' })).toBeInTheDocument();
    expect(await attachmentsOf(seal)).toHaveLength(ATTACHMENTS_PER_TASK_MAX);
    expect(onAttached).not.toHaveBeenCalled();
  });

  it('names each file the worker did not keep, with why', async () => {
    await setup();
    render({
      share: share({
        refused: [
          { name: 'walkround.mp4', type: 'video/mp4', size: 4, reason: 'FILE_TYPE' },
          {
            name: 'scan.pdf',
            type: 'application/pdf',
            size: 12 * 1024 * 1024,
            reason: 'FILE_TOO_LARGE',
          },
          { name: 'p21.jpg', type: 'image/jpeg', size: 4, reason: 'TOO_MANY' },
        ],
      }),
      files: [shared('crack.png', 'image/png')],
    });
    const refused = (await screen.findByText('These files can’t be added:')).parentElement!;
    const items = within(refused)
      .getAllByRole('listitem')
      .map((item) => item.textContent);
    expect(items).toEqual([
      'walkround.mp4: Only JPEG, PNG, WebP, GIF images and PDF files can be attached',
      'scan.pdf: Files can be at most 10 MB (this one is 12 MB)',
      'p21.jpg: At most 20 files can be added at once',
    ]);
    expect(await screen.findByRole('button', { name: 'Attach' })).toBeEnabled();
  });

  it('offers nothing to attach when every file was refused', async () => {
    await setup();
    render({
      share: share({
        refused: [{ name: 'walkround.mp4', type: 'video/mp4', size: 4, reason: 'FILE_TYPE' }],
      }),
      files: [],
    });
    expect(await screen.findByText('This file can’t be added:')).toBeInTheDocument();
    expect(screen.getByText(/Nothing here can be attached/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Attach' })).not.toBeInTheDocument();
  });

  it('says so when the share is no longer on the device', async () => {
    await setup();
    render(null);
    expect(await screen.findByText('Nothing to add')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to your lists' })).toHaveAttribute(
      'href',
      '/lists',
    );
  });

  it('offers only lists the user may add to (not those they view)', async () => {
    await setup();
    await sharedList(services!, 'viewer', 'Look only');
    await sharedList(services!, 'editor', 'Can edit');
    render({ share: share(), files: [shared('crack.png', 'image/png')] });
    expect(await screen.findByRole('radio', { name: 'Can edit' })).toBeInTheDocument();
    expect(screen.queryByRole('radio', { name: 'Look only' })).not.toBeInTheDocument();
  });

  it('is behind the session gate: a first-time visitor comes back to the share after signing in', async () => {
    services = createTestServices();
    const { router } = renderApp(services, '/share?id=share-1');
    await findHeading(/welcome/i);
    expect(router.state.location.pathname).toBe('/welcome');
    expect(router.state.location.search).toBe('?next=%2Fshare%3Fid%3Dshare-1');
  });

  it('is a route of the app, opening on what the worker kept', async () => {
    services = localOnlyServices();
    renderApp(services, '/share?id=share-1');
    // No CacheStorage in jsdom: nothing kept, said so on the share screen itself.
    await findHeading('Add to Outpost');
    expect(await screen.findByText('Nothing to add')).toBeInTheDocument();
  });
});
