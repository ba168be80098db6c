// Comments on the task detail, against the real sync library on fake-indexeddb: posting
// (Ctrl+Enter), inline validation, editing and deleting one's own (with Undo), the owner's right to
// delete anyone's (an editor's lack of it), "Not synced yet" while queued, and, against the
// devstack, the seeded conversation with its authors' names.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { LOCAL_USER_ID } from '@sync/index';
import {
  putStoredRows,
  patchStoredRow,
  storedRows,
  storedRow,
  queuedChanges,
  markQueuedSent,
  clearQueue,
} from '@sync/testing';
import { Toaster } from '@/components/ui/toaster';
import {
  devstackClient,
  localOnlyServices,
  onlineServices,
  renderWithServices,
  type TestServices,
} from '@/testing/app-harness';
import { putMembership, serverRow } from '@/testing/fixtures';

import { CommentsPanel } from './comments-panel';

let services: TestServices | undefined;

const BOB = 'b0b00000-0000-4000-8000-000000000002';
const HOUR_MS = 3_600_000;

async function setup(options: { role?: 'editor' | 'viewer' | 'none' } = {}) {
  services = localOnlyServices();
  const { repos } = services.sync;
  const listId = await repos.lists.create({ name: 'Block C', color: 'teal' });
  const taskId = await repos.tasks.create(listId, { title: 'Photograph cracked render' });
  const at = new Date().toISOString();
  if (options.role === 'none') {
    // Membership gone (removed from the list while the task was open).
    for (const row of await storedRows(services.sync, 'memberships')) {
      if (row.list_id === listId)
        await patchStoredRow(services.sync, 'memberships', row.id, { deleted_at: at });
    }
  } else if (options.role) {
    // As the server's membership row would arrive: it wins over the local owner stand-in.
    await putMembership(services, listId, options.role);
  }
  return { listId, taskId, repos };
}

/** A comment by someone else, as pulled from the server, with their profile. */
async function bobsComment(listId: string, taskId: string, body = 'Render is cracked.') {
  const at = new Date(Date.now() - 2 * HOUR_MS).toISOString();
  await putStoredRows(services!.sync, 'profiles', [
    serverRow('profiles', {
      id: BOB,
      display_name: 'Bob',
      avatar_path: null,
      created_at: at,
      updated_at: at,
    }),
  ]);
  const id = crypto.randomUUID();
  await putStoredRows(services!.sync, 'comments', [
    serverRow('comments', {
      id,
      task_id: taskId,
      list_id: listId,
      author_id: BOB,
      body,
      created_at: at,
      updated_at: at,
    }),
  ]);
  return id;
}

async function render(listId: string, taskId: string) {
  renderWithServices(
    services!,
    <>
      <CommentsPanel taskId={taskId} listId={listId} />
      <Toaster />
    </>,
  );
  await screen.findByRole('heading', { name: /^Comments/, level: 2 });
}

/** The list item of the comment whose text is `body`. */
async function commentWith(body: string): Promise<HTMLElement> {
  // Compared as written: the matcher's default would fold the line breaks being checked.
  const text = await screen.findByText(
    (_, element) =>
      element?.classList.contains('comments__body') === true && element.textContent === body,
  );
  const item = text.closest('li');
  if (!item) throw new Error(`no comment "${body}"`);
  return item;
}

async function liveComments(taskId: string) {
  const rows = (await storedRows(services!.sync, 'comments')).filter(
    (row) => row.task_id === taskId,
  );
  return rows.filter((row) => !row.deleted_at);
}

describe('CommentsPanel', () => {
  it('posts with Ctrl+Enter, keeping line breaks, as "You", not synced yet', async () => {
    const { listId, taskId } = await setup();
    await render(listId, taskId);
    expect(await screen.findByText('No comments yet')).toBeInTheDocument();

    const user = userEvent.setup();
    const box = await screen.findByRole('textbox', { name: 'Add a comment' });
    await user.type(box, 'Two cracks by the door.{Enter}Photos attached.');
    await user.keyboard('{Control>}{Enter}{/Control}');

    const item = await commentWith('Two cracks by the door.\nPhotos attached.');
    expect(within(item).getByText('You')).toBeInTheDocument();
    expect(within(item).getByText('just now')).toBeInTheDocument();
    expect(await within(item).findByText('Not synced yet')).toBeInTheDocument();
    expect(within(item).queryByText('edited')).not.toBeInTheDocument();
    await waitFor(() => expect(box).toHaveValue(''));
    expect(box).toHaveFocus();
    expect(screen.getByRole('heading', { name: 'Comments (1)' })).toBeInTheDocument();

    const rows = await liveComments(taskId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      body: 'Two cracks by the door.\nPhotos attached.',
      author_id: LOCAL_USER_ID,
      list_id: listId,
    });
    const queued = (await queuedChanges(services!.sync)).filter(
      (entry) => entry.table === 'comments' && entry.rowId === rows[0]!.id,
    );
    expect(queued.map((entry) => entry.op)).toEqual(['insert']);

    // Once pushed, the mark goes.
    await clearQueue(services!.sync);
    await waitFor(() => expect(within(item).queryByText('Not synced yet')).not.toBeInTheDocument());
  });

  it('keeps the composer to one line until it is used, and an empty conversation to one line', async () => {
    const { listId, taskId } = await setup();
    await render(listId, taskId);
    expect(await screen.findByText('No comments yet')).toHaveClass('comments__empty');
    const box = await screen.findByRole('textbox', { name: 'Add a comment' });
    expect(box).toHaveAttribute('rows', '1');
    expect(screen.queryByRole('button', { name: 'Comment' })).not.toBeInTheDocument();

    const user = userEvent.setup();
    await user.click(box);
    expect(box).toHaveAttribute('rows', '3');
    expect(box).toHaveAccessibleDescription(/Enter to post/);
    // On to Comment, still open; out of the form, empty, it is one line again.
    await user.tab();
    expect(screen.getByRole('button', { name: 'Comment' })).toHaveFocus();
    await user.tab();
    expect(screen.queryByRole('button', { name: 'Comment' })).not.toBeInTheDocument();
    expect(box).toHaveAttribute('rows', '1');

    // Text keeps it open after focus has gone.
    await user.type(box, 'Door sticks');
    await user.tab();
    await user.tab();
    expect(box).not.toHaveFocus();
    expect(box).toHaveAttribute('rows', '3');
    expect(screen.getByRole('button', { name: 'Comment' })).toBeInTheDocument();
  });

  it('refuses an empty comment and one over 4,000 characters inline, saving nothing', async () => {
    const { listId, taskId } = await setup();
    await render(listId, taskId);
    const user = userEvent.setup();
    const box = await screen.findByRole('textbox', { name: 'Add a comment' });

    await user.type(box, '   ');
    await user.click(screen.getByRole('button', { name: 'Comment' }));
    expect(await screen.findByText("Comment can't be empty.")).toBeInTheDocument();
    expect(box).toHaveAttribute('aria-invalid', 'true');
    expect(box).toHaveAccessibleDescription(/Comment can't be empty\./);

    await user.clear(box);
    await user.click(box);
    await user.paste('x'.repeat(4_001));
    expect(screen.getByText('4,001 / 4,000')).toBeInTheDocument();
    await user.keyboard('{Control>}{Enter}{/Control}');
    expect(await screen.findByText('Comment can be at most 4,000 characters.')).toBeInTheDocument();
    expect(box).toHaveValue('x'.repeat(4_001)); // still there to be shortened
    expect(await liveComments(taskId)).toHaveLength(0);
    expect(screen.getByText('No comments yet')).toBeInTheDocument();
  });

  it('edits your own comment in place; Escape cancels and focus goes back to Edit', async () => {
    const { listId, taskId, repos } = await setup({ role: 'editor' });
    const id = await repos.comments.create(taskId, 'Crak on the east wall');
    await render(listId, taskId);
    const user = userEvent.setup();

    let item = await commentWith('Crak on the east wall');
    const edit = await within(item).findByRole('button', { name: 'Edit your comment' });
    await user.click(edit);
    let field = within(item).getByRole('textbox', { name: 'Edit your comment' });
    expect(field).toHaveFocus();
    await user.type(field, ' and more');
    await user.keyboard('{Escape}');
    expect(within(item).queryByRole('textbox')).not.toBeInTheDocument();
    expect(within(item).getByText('Crak on the east wall')).toBeInTheDocument();
    expect(within(item).getByRole('button', { name: 'Edit your comment' })).toHaveFocus();

    await user.click(within(item).getByRole('button', { name: 'Edit your comment' }));
    field = within(item).getByRole('textbox', { name: 'Edit your comment' });
    await user.clear(field);
    await user.click(within(item).getByRole('button', { name: 'Save' }));
    expect(await within(item).findByText("Comment can't be empty.")).toBeInTheDocument();

    await user.type(field, 'Crack on the east wall');
    await user.click(within(item).getByRole('button', { name: 'Save' }));
    item = await commentWith('Crack on the east wall');
    expect(within(item).getByRole('button', { name: 'Edit your comment' })).toHaveFocus();
    expect((await storedRow(services!.sync, 'comments', id))?.body).toBe('Crack on the east wall');
  });

  it('says "edited" when a comment changed well after it was written', async () => {
    const { listId, taskId } = await setup();
    const id = await bobsComment(listId, taskId, 'First thoughts');
    await patchStoredRow(services!.sync, 'comments', id, { updated_at: new Date().toISOString() });
    await render(listId, taskId);
    const item = await commentWith('First thoughts');
    expect(within(item).getByText('edited')).toBeInTheDocument();
    expect(within(item).getByText('2 h ago')).toBeInTheDocument();
    expect(await within(item).findByText('Bob')).toBeInTheDocument();
  });

  it('deletes your own comment at once, focuses the section, and Undo brings it back', async () => {
    const { listId, taskId, repos } = await setup({ role: 'viewer' });
    const id = await repos.comments.create(taskId, 'Wrong task, sorry');
    await render(listId, taskId);
    const user = userEvent.setup();

    const item = await commentWith('Wrong task, sorry');
    await user.click(await within(item).findByRole('button', { name: 'Delete your comment' }));
    expect(await screen.findByText('No comments yet')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect((await storedRow(services!.sync, 'comments', id))?.deleted_at).toEqual(
      expect.any(String),
    );
    expect(screen.getByRole('heading', { name: /^Comments/ })).toHaveFocus();
    expect(screen.getByText('Comment deleted')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Undo' }));
    expect(await commentWith('Wrong task, sorry')).toBeInTheDocument();
    expect(await liveComments(taskId)).toHaveLength(1);
    // Nothing is left to delete it on the server; the comment itself is still to be sent.
    const queued = (await queuedChanges(services!.sync)).filter((entry) => entry.rowId === id);
    expect(queued.map((entry) => entry.op)).toEqual(['insert']);
  });

  it('says when it is too late to undo a comment delete', async () => {
    const { listId, taskId, repos } = await setup();
    await repos.comments.create(taskId, 'Sent already');
    await render(listId, taskId);
    const user = userEvent.setup();
    const item = await commentWith('Sent already');
    await user.click(await within(item).findByRole('button', { name: 'Delete your comment' }));
    await screen.findByText('No comments yet');
    // The engine took the delete after the undo window.
    await markQueuedSent(services!.sync);
    await user.click(screen.getByRole('button', { name: 'Undo' }));
    expect(
      await screen.findByText('Too late to undo: the comment was already deleted.'),
    ).toBeInTheDocument();
    expect(screen.getByText('No comments yet')).toBeInTheDocument();
  });

  it("lets the list's owner edit and delete anyone's comment", async () => {
    const { listId, taskId } = await setup(); // the list's creator owns it
    const id = await bobsComment(listId, taskId);
    await render(listId, taskId);
    const user = userEvent.setup();
    const item = await commentWith('Render is cracked.');
    expect(await within(item).findByText('Bob')).toBeInTheDocument();
    expect(
      await within(item).findByRole('button', { name: "Edit Bob's comment" }),
    ).toBeInTheDocument();

    await user.click(within(item).getByRole('button', { name: "Delete Bob's comment" }));
    await waitFor(async () =>
      expect((await storedRow(services!.sync, 'comments', id))?.deleted_at).toEqual(
        expect.any(String),
      ),
    );
  });

  it("gives an editor no edit or delete on someone else's comment, but on their own", async () => {
    const { listId, taskId, repos } = await setup({ role: 'editor' });
    await bobsComment(listId, taskId);
    await repos.comments.create(taskId, 'Agreed');
    await render(listId, taskId);
    // Once the editor's own buttons show, their role is known.
    const mine = await commentWith('Agreed');
    expect(
      await within(mine).findByRole('button', { name: 'Delete your comment' }),
    ).toBeInTheDocument();
    const bobs = await commentWith('Render is cracked.');
    expect(within(bobs).queryByRole('button')).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Add a comment' })).toBeInTheDocument();
  });

  it('gives someone no longer on the list the conversation but nothing to write with', async () => {
    const { listId, taskId } = await setup({ role: 'none' });
    await bobsComment(listId, taskId);
    await render(listId, taskId);
    const bobs = await commentWith('Render is cracked.');
    expect(within(bobs).queryByRole('button')).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Add a comment' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Comment' })).not.toBeInTheDocument();
  });

  it('shows the seeded conversation from the devstack with its authors', async () => {
    const supabase = devstackClient();
    const { error } = await supabase.auth.signInWithPassword({
      email: 'alice@example.com',
      password: 'outpost-demo',
    });
    expect(error).toBeNull();
    services = onlineServices(supabase);
    renderWithServices(
      services,
      <CommentsPanel
        taskId="7a5c0000-0000-4000-8000-000000000001"
        listId="11570000-0000-4000-8000-000000000001"
      />,
    );
    const bobs = await screen.findByText(
      'Render is cracked in two places — photos to follow.',
      { selector: '.comments__body' },
      { timeout: 15_000 },
    );
    const alices = await screen.findByText('Thanks, flag it for the contractor.', {
      selector: '.comments__body',
    });
    const bobItem = bobs.closest('li')!;
    const aliceItem = alices.closest('li')!;
    await within(bobItem).findByText('Bob', { selector: '.comments__author' });
    // Alice is signed in: her own comment says "You", her avatar still carries her name.
    expect(
      within(aliceItem).getByText('You', { selector: '.comments__author' }),
    ).toBeInTheDocument();
    expect(aliceItem.querySelector('.avatar')).toHaveAttribute('title', 'Alice');
    expect(screen.getByRole('heading', { name: 'Comments (2)' })).toBeInTheDocument();
    // Alice owns the list: she may delete Bob's comment too.
    expect(
      within(bobItem).getByRole('button', { name: "Delete Bob's comment" }),
    ).toBeInTheDocument();
  });
});
