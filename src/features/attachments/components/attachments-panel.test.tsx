// Files on the task detail, against the real sync library on fake-indexeddb: adding queues
// the bytes and the row, refused files are named with the limit they break and never queued,
// "Take photo" only where there is a camera, previews open in a dialog, removal has Undo,
// viewers only look, and a file that is not on this device says when it will be.
import { Blob as NodeBlob, File as NodeFile } from 'node:buffer';

import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { ATTACHMENTS_PER_TASK_MAX } from '@/data/schema';
import {
  putStoredRows,
  storedRows,
  storedRow,
  queuedChanges,
  markQueuedSent,
  clearQueue,
  keptFiles,
  keptFile,
  keepFiles,
  setFileState,
} from '@sync/testing';
import { Toaster } from '@/components/ui/toaster';
import { localOnlyServices, renderWithServices, type TestServices } from '@/testing/app-harness';
import { putMembership, serverRow } from '@/testing/fixtures';

import { AttachmentsPanel } from './attachments-panel';

let services: TestServices | undefined;
afterEach(() => {
  vi.restoreAllMocks();
  // jsdom has no mediaDevices of its own: a camera given by withCamera() goes again.
  Reflect.deleteProperty(navigator, 'mediaDevices');
});

/**
 * A device whose browser lists these kinds of media devices (a camera: 'videoinput'), as it
 * does before any permission (kinds, no names). `answer`: the list, once given.
 */
function withDevices(...kinds: MediaDeviceKind[]) {
  const answer = Promise.resolve(
    kinds.map((kind, index) => ({ kind, deviceId: String(index), groupId: '', label: '' })),
  );
  Object.defineProperty(navigator, 'mediaDevices', {
    configurable: true,
    value: {
      enumerateDevices: () => answer,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    },
  });
  return { answer };
}

/** A real 1 × 1 PNG. */
const PNG_BYTES = Uint8Array.from(
  atob(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  ),
  (c) => c.charCodeAt(0),
);

/**
 * A file as a browser's picker hands it over. Node's File, because jsdom's does not survive
 * fake-indexeddb's structured clone (it comes back as `{}`), while a browser's File survives
 * IndexedDB, and Node's does too.
 */
function deviceFile(parts: (string | Uint8Array)[], name: string, type: string): File {
  return new NodeFile(parts, name, { type }) as unknown as File;
}

function png(name: string): File {
  return deviceFile([PNG_BYTES], name, 'image/png');
}

function pdf(name: string): File {
  return deviceFile(['%PDF-1.4\n%%EOF\n'], name, 'application/pdf');
}

async function setup(options: { role?: 'editor' | 'viewer'; online?: boolean } = {}) {
  services = localOnlyServices({ online: options.online ?? false });
  const { repos } = services.sync;
  const listId = await repos.lists.create({ name: 'Block C', color: 'teal' });
  const taskId = await repos.tasks.create(listId, { title: 'Photograph cracked render' });
  if (options.role) {
    // As the server's membership row would arrive: it wins over the local owner stand-in.
    await putMembership(services, listId, options.role);
  }
  return { listId, taskId, repos, services };
}

/** `withToasts`: the app's toasts beside the panel (Undo lives there). */
async function render(listId: string, taskId: string, withToasts = false) {
  const result = renderWithServices(
    services!,
    <>
      <AttachmentsPanel taskId={taskId} listId={listId} />
      {withToasts ? <Toaster /> : null}
    </>,
  );
  await screen.findByRole('heading', { name: /^Files/, level: 2 });
  return result;
}

async function liveAttachments(taskId: string) {
  const rows = (await storedRows(services!.sync, 'attachments')).filter(
    (row) => row.task_id === taskId,
  );
  return rows.filter((row) => !row.deleted_at);
}

function itemOf(name: string): HTMLElement {
  const item = screen.getByText(name, { selector: '.attachments__name' }).closest('li');
  if (!item) throw new Error(`no item for ${name}`);
  return item;
}

describe('AttachmentsPanel', () => {
  it('takes a photo: the row and its bytes are queued and it says it is waiting to upload', async () => {
    withDevices('audioinput', 'videoinput');
    const { listId, taskId } = await setup();
    await render(listId, taskId);
    expect(await screen.findByText('No files')).toBeInTheDocument();

    const user = userEvent.setup();
    // The pickers wait for the list's access (its own live query), not for the empty box.
    const camera = await screen.findByLabelText('Take photo');
    // The allowed image types by name: `image/*` would let a picker offer HEIC or SVG.
    expect(camera).toHaveAttribute('accept', 'image/jpeg,image/png,image/webp,image/gif');
    expect(camera).toHaveAttribute('capture', 'environment');
    await user.upload(camera, png('crack.png'));

    expect(await screen.findByText('Waiting to upload')).toBeInTheDocument();
    const item = itemOf('crack.png');
    expect(within(item).getByText(`${PNG_BYTES.length} B`)).toBeInTheDocument();
    expect(
      await within(item).findByRole('button', { name: 'Preview crack.png' }),
    ).toBeInTheDocument();
    expect(screen.queryByText('No files')).not.toBeInTheDocument();

    const rows = await liveAttachments(taskId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      file_name: 'crack.png',
      mime_type: 'image/png',
      size_bytes: PNG_BYTES.length,
      list_id: listId,
    });
    const id = rows[0]!.id;
    expect((await keptFile(services!.sync, id))?.state).toBe('queued');
    const outbox = (await queuedChanges(services!.sync)).filter(
      (entry) => entry.table === 'attachments' && entry.rowId === id,
    );
    expect(outbox.map((entry) => entry.op)).toEqual(['insert']);
    expect(screen.getByRole('status')).toHaveTextContent('Added 1 file.');
  });

  it('refuses a file over 10 MB and a text file before queueing, naming the limit', async () => {
    const { listId, taskId } = await setup();
    await render(listId, taskId);
    await screen.findByText('No files');
    // A picker's "All files" lets people choose anything, whatever `accept` says.
    const user = userEvent.setup({ applyAccept: false });
    const input = await screen.findByLabelText('Add file');
    expect(input).toHaveAttribute('multiple');
    expect(input.getAttribute('accept')).toBe(
      'image/jpeg,image/png,image/webp,image/gif,application/pdf',
    );
    expect(screen.getByText(/up to 10 MB each/)).toBeInTheDocument();
    const big = new File([new Uint8Array(11 * 1024 * 1024)], 'big.png', { type: 'image/png' });
    // One byte over 10 MiB: its size must not read as the limit itself ("10 MB").
    const justOver = new File([new Uint8Array(10 * 1024 * 1024 + 1)], 'just-over.jpg', {
      type: 'image/jpeg',
    });
    const text = new File(['hello'], 'notes.txt', { type: 'text/plain' });
    await user.upload(input, [big, justOver, text]);

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('These files were not added:');
    expect(within(alert).getByText('big.png').closest('li')).toHaveTextContent(
      'big.png: Files can be at most 10 MB (this one is 11 MB)',
    );
    expect(within(alert).getByText('just-over.jpg').closest('li')).toHaveTextContent(
      'just-over.jpg: Files can be at most 10 MB (this one is 10.1 MB)',
    );
    expect(within(alert).getByText('notes.txt').closest('li')).toHaveTextContent(
      'notes.txt: Only JPEG, PNG, WebP, GIF images and PDF files can be attached',
    );
    expect(await storedRows(services!.sync, 'attachments')).toHaveLength(0);
    expect(await keptFiles(services!.sync)).toHaveLength(0);
    expect(
      (await queuedChanges(services!.sync)).filter((entry) => entry.table === 'attachments').length,
    ).toBe(0);
    expect(screen.getByText('No files')).toBeInTheDocument();

    await user.click(within(alert).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('offers "Take photo" only where the device has a camera', async () => {
    const { answer } = withDevices('audioinput', 'audiooutput');
    const { listId, taskId } = await setup();
    await render(listId, taskId);
    expect(await screen.findByLabelText('Add file')).toBeInTheDocument();
    // Once the device has listed its devices (and the picker has heard it).
    await act(async () => {
      await answer;
    });
    expect(screen.queryByLabelText('Take photo')).not.toBeInTheDocument();
    // The limits are read out with the buttons, not shown until they matter.
    expect(screen.getByLabelText('Add file')).toHaveAccessibleDescription(
      'JPEG, PNG, WebP, GIF or PDF, up to 10 MB each · 0 of 20',
    );
  });

  it(`holds a task to ${ATTACHMENTS_PER_TASK_MAX} files`, async () => {
    withDevices('videoinput');
    const { listId, taskId, repos } = await setup();
    for (let i = 1; i < ATTACHMENTS_PER_TASK_MAX; i++) {
      await repos.attachments.add(taskId, png(`photo-${i}.png`), `photo-${i}.png`);
    }
    await render(listId, taskId);
    expect(await screen.findByText(/19 of 20/)).toBeInTheDocument();

    const user = userEvent.setup();
    await user.upload(await screen.findByLabelText('Add file'), [
      png('last.png'),
      png('one-too-many.png'),
    ]);

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'one-too-many.png: A task can have at most 20 photos and files.',
    );
    expect(alert).not.toHaveTextContent('last.png');
    const names = (await liveAttachments(taskId)).map((row) => row.file_name);
    expect(names).toHaveLength(20);
    expect(names).toContain('last.png');
    expect(names).not.toContain('one-too-many.png');
    expect(await screen.findByText(/has 20 of 20 files/)).toBeInTheDocument();
    expect(screen.getByLabelText('Add file')).toBeDisabled();
    expect(await screen.findByLabelText('Take photo')).toBeDisabled();
  });

  it('lists files oldest first and opens a preview that gives focus back when closed', async () => {
    const { listId, taskId, repos } = await setup();
    await repos.attachments.add(taskId, png('first.png'), 'first.png', { width: 1, height: 1 });
    await repos.attachments.add(taskId, pdf('plan.pdf'), 'plan.pdf');
    await render(listId, taskId);
    const user = userEvent.setup();

    const preview = await screen.findByRole('button', { name: 'Preview first.png' });
    const items = screen.getAllByRole('listitem');
    expect(items.map((item) => item.querySelector('.attachments__name')?.textContent)).toEqual([
      'first.png',
      'plan.pdf',
    ]);

    await user.click(preview);
    const dialog = screen.getByRole('dialog', { name: 'first.png' });
    const image = within(dialog).getByRole('img', { name: 'first.png' });
    expect(image.getAttribute('src')).toMatch(/^blob:/);
    expect(within(dialog).getByText(/1 × 1/)).toBeInTheDocument();
    expect(within(dialog).getByRole('link', { name: 'Download' })).toHaveAttribute(
      'download',
      'first.png',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(preview).toHaveFocus();

    await user.click(screen.getByRole('button', { name: 'Preview plan.pdf' }));
    const pdfDialog = screen.getByRole('dialog', { name: 'plan.pdf' });
    // A PDF is handed to the device as a download, never opened in a tab of ours.
    const save = within(pdfDialog).getByRole('link', { name: 'Download PDF' });
    expect(save).toHaveAttribute('download', 'plan.pdf');
    expect(save).not.toHaveAttribute('target');
    expect(save.getAttribute('href')).toMatch(/^blob:/);
    expect(within(pdfDialog).queryByRole('link', { name: /open/i })).not.toBeInTheDocument();
  });

  // Issue 14 item 1: storage may have served HTML as `application/pdf ; x=1, text/html`; the
  // bytes this device kept carry that type, but the object URL must carry the row's.
  it("makes object URLs with the row's type, never the type the bytes came with", async () => {
    const { listId, taskId, repos } = await setup();
    const pdfId = await repos.attachments.add(taskId, pdf('plan.pdf'), 'plan.pdf');
    const pngId = await repos.attachments.add(taskId, png('photo.png'), 'photo.png');
    const html = '<script>localStorage.clear()</script>';
    for (const [id, type] of [
      [pdfId, 'application/pdf ; x=1, text/html'],
      [pngId, 'image/png;,text/html'],
    ] as const) {
      const kept = await keptFile(services!.sync, id);
      // Node's Blob, as deviceFile() explains: jsdom's does not survive fake-indexeddb.
      const blob = new NodeBlob([html], { type }) as unknown as Blob;
      await keepFiles(services!.sync, [{ ...kept!, blob, state: 'cached' }]);
    }
    // A row whose type is not on the allowed list (a damaged record) gets opaque bytes.
    const oddId = await repos.attachments.add(taskId, pdf('odd.pdf'), 'odd.pdf');
    const oddRow = await storedRow(services!.sync, 'attachments', oddId);
    await putStoredRows(services!.sync, 'attachments', [{ ...oddRow!, mime_type: 'text/html' }]);
    const made: Blob[] = [];
    const create = URL.createObjectURL.bind(URL);
    vi.spyOn(URL, 'createObjectURL').mockImplementation((object: Blob | MediaSource) => {
      // Node's Blob (what the device kept, sliced) is not jsdom's, hence no instanceof.
      if ('slice' in object) made.push(object);
      return create(object);
    });
    await render(listId, taskId);
    await screen.findByRole('button', { name: 'Preview photo.png' });
    await waitFor(() => expect(made).toHaveLength(3));
    expect(made.map((blob) => blob.type).sort()).toEqual([
      'application/octet-stream',
      'application/pdf',
      'image/png',
    ]);
    for (const blob of made.filter((one) => one.type !== 'application/octet-stream')) {
      expect(await blob.text()).toBe(html); // the same bytes, only their label changed
    }
  });

  it('lets go of its object URLs when it goes away', async () => {
    const { listId, taskId, repos } = await setup();
    await repos.attachments.add(taskId, png('crack.png'), 'crack.png');
    const revoke = vi.spyOn(URL, 'revokeObjectURL');
    const { unmount } = await render(listId, taskId);
    const preview = await screen.findByRole('button', { name: 'Preview crack.png' });
    const url = preview.querySelector('img')?.getAttribute('src');
    expect(url).toMatch(/^blob:/);
    unmount();
    expect(revoke).toHaveBeenCalledWith(url);
  });

  it('removes a file at once, puts focus on the section, and Undo brings it back', async () => {
    const { listId, taskId, repos } = await setup();
    const id = await repos.attachments.add(taskId, png('crack.png'), 'crack.png');
    await render(listId, taskId, true);
    const user = userEvent.setup();

    await user.click(await screen.findByRole('button', { name: 'Remove crack.png' }));
    expect(await screen.findByText('No files')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect((await storedRow(services!.sync, 'attachments', id))?.deleted_at).toEqual(
      expect.any(String),
    );
    expect(screen.getByRole('heading', { name: 'Files' })).toHaveFocus();
    expect(screen.getByText('Removed “crack.png”')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Undo' }));
    expect(await screen.findByRole('button', { name: 'Remove crack.png' })).toBeInTheDocument();
    expect(await liveAttachments(taskId)).toHaveLength(1);
    // Its upload is still queued, and no delete is.
    const queued = (await queuedChanges(services!.sync)).filter((entry) => entry.rowId === id);
    expect(queued.map((entry) => entry.op)).toEqual(['insert']);
  });

  it('says when it is too late to undo a removal', async () => {
    const { listId, taskId, repos } = await setup();
    await repos.attachments.add(taskId, png('crack.png'), 'crack.png');
    await render(listId, taskId, true);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Remove crack.png' }));
    await screen.findByText('No files');
    // The engine took the delete after the undo window.
    await markQueuedSent(services!.sync);
    await user.click(screen.getByRole('button', { name: 'Undo' }));
    expect(
      await screen.findByText('Too late to undo: the file was already removed.'),
    ).toBeInTheDocument();
    expect(screen.getByText('No files')).toBeInTheDocument();
  });

  it('shows a viewer the files but nothing to add or remove', async () => {
    const { listId, taskId, repos } = await setup({ role: 'viewer' });
    await repos.attachments.add(taskId, png('crack.png'), 'crack.png');
    await render(listId, taskId);
    expect(
      await screen.findByText('crack.png', { selector: '.attachments__name' }),
    ).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Preview crack.png' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Take photo')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Add file')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Remove/ })).not.toBeInTheDocument();
  });

  it('shows where each upload is, and "Not synced yet" while only the row waits', async () => {
    const { listId, taskId, repos } = await setup();
    const id = await repos.attachments.add(taskId, png('crack.png'), 'crack.png');
    await render(listId, taskId);
    await screen.findByText('crack.png', { selector: '.attachments__name' });
    const item = () => itemOf('crack.png');
    expect(await within(item()).findByText('Waiting to upload')).toBeInTheDocument();

    await setFileState(services!.sync, id, 'uploading');
    expect(await within(item()).findByText('Uploading…')).toBeInTheDocument();
    await setFileState(services!.sync, id, 'failed');
    expect(await within(item()).findByText('Upload failed — retrying')).toBeInTheDocument();
    await setFileState(services!.sync, id, 'uploaded');
    expect(await within(item()).findByText('Not synced yet')).toBeInTheDocument();
    await clearQueue(services!.sync); // as after a successful push
    await waitFor(() =>
      expect(within(item()).queryByText('Not synced yet')).not.toBeInTheDocument(),
    );
    expect(within(item()).queryByText(/upload/i)).not.toBeInTheDocument();
  });

  it('says a file made elsewhere is available when online, and offers a retry once online', async () => {
    const { listId, taskId } = await setup({ role: 'editor' });
    // A row pulled from the server whose bytes never reached this device.
    const at = new Date().toISOString();
    await putStoredRows(services!.sync, 'attachments', [
      serverRow('attachments', {
        id: crypto.randomUUID(),
        task_id: taskId,
        list_id: listId,
        object_path: `${listId}/${taskId}/x.png`,
        file_name: 'from-bob.png',
        mime_type: 'image/png',
        size_bytes: 2048,
        width: null,
        height: null,
        created_by: 'b0b00000-0000-4000-8000-000000000002',
        created_at: at,
        updated_at: at,
      }),
    ]);
    await render(listId, taskId);
    await screen.findByText('from-bob.png', { selector: '.attachments__name' });
    const item = itemOf('from-bob.png');
    expect(await within(item).findByText('Available when online')).toBeInTheDocument();
    expect(within(item).queryByRole('button', { name: /^Preview/ })).not.toBeInTheDocument();

    // Back online, it tries again; the (unreachable) server fails, so it says so plainly.
    services!.online.set(true);
    expect(await within(item).findByText("Couldn't load this file")).toBeInTheDocument();
    expect(
      within(item).getByRole('button', { name: 'Retry loading from-bob.png' }),
    ).toBeInTheDocument();
  });
});
