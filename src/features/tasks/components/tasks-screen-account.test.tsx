// The tasks screen signed in against the devstack: loading before the first sync, exporting
// the list from the server, and the link to a shared list's members (and the phone's menu of
// both).
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  createTestServices,
  devstackClient,
  findHeading,
  onlineServices,
  renderApp,
  SEEDED_LIST,
  SEEDED_LIST_NAME,
  signInDemo,
  type TestServices,
} from '@/testing/app-harness';

let services: TestServices | undefined;

/** A list's export as the browser would receive it: the file and its name, per download. */
function captureDownloads(): { name: string; blob: Blob }[] {
  const downloads: { name: string; blob: Blob }[] = [];
  let last: Blob | undefined;
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    last = blob as Blob;
    return 'blob:test/export';
  });
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    if (last) downloads.push({ name: this.download, blob: last });
  });
  return downloads;
}

describe('tasks screen with an account', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('says Loading, not "isn\'t on this device", until the first sync is done', async () => {
    const supabase = await signInDemo(devstackClient(), 'bob');
    services = createTestServices({ supabase, online: true });
    const { router } = renderApp(services, `/lists/${SEEDED_LIST}`);
    await findHeading('Loading…');
    expect(screen.queryByText(/isn.t on this device/)).not.toBeInTheDocument();
    // The first pull brings the list.
    services.sync.start();
    await screen.findByRole('heading', { level: 1, name: SEEDED_LIST_NAME }, { timeout: 15_000 });
    // After it, a list that is not here is really not here.
    act(() => void router.navigate(`/lists/${crypto.randomUUID()}`));
    await findHeading("This list isn't on this device");
  });

  it('exports the list as CSV or JSON from the server', async () => {
    const supabase = await signInDemo(devstackClient(), 'bob');
    // The file's date comes from the app's clock.
    const now = new Date(2031, 2, 4, 9, 0).getTime();
    services = onlineServices(supabase, { now: () => now });
    const downloads = captureDownloads();
    const user = userEvent.setup();
    renderApp(services, `/lists/${SEEDED_LIST}`);
    await findHeading(SEEDED_LIST_NAME);
    await user.click(await screen.findByRole('button', { name: 'Export' }));
    let dialog = screen.getByRole('dialog', { name: `Export “${SEEDED_LIST_NAME}”` });
    expect(within(dialog).getByRole('combobox', { name: 'Format' })).toHaveValue('csv');
    await user.click(within(dialog).getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(downloads).toHaveLength(1), { timeout: 15_000 });
    expect(downloads[0]?.name).toBe(`${SEEDED_LIST_NAME} 2031-03-04.csv`);
    const csv = await downloads[0]!.blob.text();
    expect(csv.split('\r\n')[0]).toMatch(/^id,title,status,/);
    // One line per task of the seeded list, and the header.
    expect(csv.trim().split('\r\n')).toHaveLength(31);
    expect(await screen.findByText(`Downloaded ${downloads[0]?.name}`)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await user.click(screen.getByRole('button', { name: 'Export' }));
    dialog = screen.getByRole('dialog', { name: `Export “${SEEDED_LIST_NAME}”` });
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Format' }), 'json');
    await user.click(within(dialog).getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(downloads).toHaveLength(2), { timeout: 15_000 });
    expect(downloads[1]?.name).toBe(`${SEEDED_LIST_NAME} 2031-03-04.json`);
    const doc = JSON.parse(await downloads[1]!.blob.text()) as {
      list: { name: string };
      tasks: unknown[];
    };
    expect(doc.list.name).toBe(SEEDED_LIST_NAME);
    expect(doc.tasks).toHaveLength(30);
  });

  it('says export needs a connection while offline, and why a refused export failed', async () => {
    const supabase = await signInDemo(devstackClient(), 'bob');
    services = createTestServices({ supabase, online: false });
    // Made on this device and not synced: the server has no such list.
    const listId = await services.sync.repos.lists.create({ name: 'Not sent yet', color: 'teal' });
    const downloads = captureDownloads();
    const user = userEvent.setup();
    renderApp(services, `/lists/${listId}`);
    await findHeading('Not sent yet');
    await user.click(screen.getByRole('button', { name: 'Export' }));
    const dialog = screen.getByRole('dialog', { name: 'Export “Not sent yet”' });
    const download = within(dialog).getByRole('button', { name: 'Download' });
    expect(download).toBeDisabled();
    expect(download).toHaveAccessibleDescription('Exporting needs a connection.');
    expect(dialog).toHaveTextContent("Changes on this device that haven't synced yet");

    act(() => services!.online.set(true));
    await waitFor(() => expect(download).toBeEnabled());
    await user.click(download);
    expect(
      await within(dialog).findByText(/The server doesn't have this list for you/, undefined, {
        timeout: 15_000,
      }),
    ).toBeInTheDocument();
    expect(downloads).toHaveLength(0);
  });

  it('links to the members of a shared list, and has both in one menu for phones', async () => {
    const supabase = await signInDemo(devstackClient(), 'bob');
    services = onlineServices(supabase);
    const user = userEvent.setup();
    const { router } = renderApp(services, `/lists/${SEEDED_LIST}`);
    await findHeading(SEEDED_LIST_NAME);
    const link = await screen.findByRole('link', { name: /^Members/ }, { timeout: 15_000 });
    expect(link).toHaveAttribute('href', `/lists/${SEEDED_LIST}/members`);
    await waitFor(() => expect(link).toHaveTextContent('Members (2)'));

    // The phone's "More" (CSS shows it in place of the two).
    const more = screen.getByRole('button', { name: 'More' });
    await user.click(more);
    const menu = screen.getByRole('menu', { name: 'More' });
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual(['Export…', 'Members (2)']);
    await user.click(within(menu).getByRole('menuitem', { name: 'Export…' }));
    const dialog = screen.getByRole('dialog', { name: `Export “${SEEDED_LIST_NAME}”` });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await user.click(more);
    await user.click(screen.getByRole('menuitem', { name: 'Members (2)' }));
    expect(router.state.location.pathname).toBe(`/lists/${SEEDED_LIST}/members`);
  });
});
