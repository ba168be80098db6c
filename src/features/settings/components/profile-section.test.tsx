// Settings › Profile against the devstack: the name is checked inline (the field stays
// editable) and saved through the repositories; the picture needs a connection, refuses
// what the bucket would, and uploads to the public avatars bucket.
import { createClient } from '@supabase/supabase-js';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';

import { storedRow, queuedChanges } from '@sync/testing';
import { AUTH_STORAGE_KEY } from '@/lib/supabase';

import {
  findHeading,
  onlineServices,
  renderApp,
  signUpFresh,
  type TestServices,
} from '@/testing/app-harness';

import { signedInClient, signedUpClient } from '../settings-test-support';

const BOB = 'b0b00000-0000-4000-8000-000000000002';
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

let services: TestServices | undefined;

function section(name: string): HTMLElement {
  const element = screen.getByRole('heading', { level: 2, name }).closest('section');
  if (!element) throw new Error(`no section around ${name}`);
  return element;
}

async function openSettings(supabase: Awaited<ReturnType<typeof signedInClient>>) {
  services = onlineServices(supabase);
  const view = renderApp(services, '/settings');
  await findHeading('Settings');
  return { ...view, app: services, user: userEvent.setup() };
}

describe('settings › profile, signed in', () => {
  it("checks bob's name inline and saves it to his profile row", async () => {
    const { app, user } = await openSettings(await signedInClient('bob'));
    const field = await within(section('Profile')).findByRole(
      'textbox',
      { name: 'Display name' },
      { timeout: 15_000 },
    );
    expect(field).toHaveValue('Bob');
    // Saved offline: the change stays queued on this device, so the devstack other test
    // files share keeps the seeded name.
    app.online.set(false);

    await user.clear(field);
    await user.click(within(section('Profile')).getByRole('button', { name: 'Save name' }));
    expect(await within(section('Profile')).findByText("Name can't be empty.")).toBeVisible();
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toBeEnabled();
    expect((await storedRow(app.sync, 'profiles', BOB))?.display_name).toBe('Bob');

    await user.type(field, 'x'.repeat(61));
    expect(
      await within(section('Profile')).findByText('Name can be at most 60 characters.'),
    ).toBeVisible();
    await user.clear(field);
    await user.type(field, '  Bob the Builder ');
    await waitFor(() => expect(field).not.toHaveAttribute('aria-invalid'));
    await user.click(within(section('Profile')).getByRole('button', { name: 'Save name' }));

    expect(await within(section('Profile')).findByText('Name saved.')).toBeInTheDocument();
    expect((await storedRow(app.sync, 'profiles', BOB))?.display_name).toBe('Bob the Builder');
    const queued = (await queuedChanges(app.sync)).filter(
      (entry) => entry.table === 'profiles' && entry.rowId === BOB,
    );
    expect(queued.map((entry) => entry.data)).toEqual([{ display_name: 'Bob the Builder' }]);
    expect(field).toHaveValue('Bob the Builder');
  });

  it('uploads a picture to the avatars bucket when online, and refuses what the bucket would', async () => {
    // A fresh account: its picture changes no one else's tests.
    const supabase = await signedUpClient('Casey Picture');
    const { app, user } = await openSettings(supabase);
    const me = (await supabase.auth.getUser()).data.user?.id ?? '';
    const profile = section('Profile');
    await within(profile).findByRole('textbox', { name: 'Display name' }, { timeout: 15_000 });
    const input = within(profile).getByLabelText('Change picture');

    app.online.set(false);
    await waitFor(() => expect(input).toBeDisabled());
    expect(profile).toHaveTextContent('Changing your picture needs a connection.');
    app.online.set(true);
    await waitFor(() => expect(input).toBeEnabled());

    const big = new File([new Uint8Array(2 * 1024 * 1024 + 1)], 'big.png', { type: 'image/png' });
    await user.upload(input, big);
    expect(await within(profile).findByText('Pictures can be at most 2 MB.')).toBeVisible();
    const text = new File(['hello'], 'note.txt', { type: 'text/plain' });
    // As if the browser's picker let any file through (accept is only a hint).
    await userEvent.setup({ applyAccept: false }).upload(input, text);
    expect(
      await within(profile).findByText('Choose a JPEG, PNG, WebP or GIF image.'),
    ).toBeVisible();
    expect((await storedRow(app.sync, 'profiles', me))?.avatar_path ?? null).toBeNull();

    await user.upload(input, new File([PNG], 'me.png', { type: 'image/png' }));
    expect(await within(profile).findByText('Picture changed.')).toBeInTheDocument();
    const path = (await storedRow(app.sync, 'profiles', me))?.avatar_path;
    expect(path).toMatch(new RegExp(`^${me}/avatar-\\d+\\.png$`));
    const picture = within(profile).getByRole('img', { name: 'Casey Picture' });
    expect(picture.tagName).toBe('IMG');
    const url = picture.getAttribute('src') ?? '';
    expect(url).toContain(`/storage/v1/object/public/avatars/${String(path)}`);
    const served = await fetch(url);
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);

    await user.click(within(profile).getByRole('button', { name: 'Remove picture' }));
    expect(await within(profile).findByText('Picture removed.')).toBeInTheDocument();
    expect((await storedRow(app.sync, 'profiles', me))?.avatar_path).toBeNull();
    // The avatar follows the profile row through a live query, a frame or more later.
    await waitFor(() =>
      expect(within(profile).getByRole('img', { name: 'Casey Picture' }).tagName).toBe('SPAN'),
    );
  });

  it('says in plain words when the picture cannot reach the server, and keeps the old one', async () => {
    // The app's client with storage cut off (as on a network that drops uploads): auth,
    // sync and realtime still reach the devstack.
    const { url, publishableKey } = inject('devstack');
    const supabase = createClient(url, publishableKey, {
      realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
      auth: { autoRefreshToken: false, detectSessionInUrl: false, storageKey: AUTH_STORAGE_KEY },
      global: {
        fetch: (input, init) =>
          String(input instanceof Request ? input.url : input).includes('/storage/v1/')
            ? Promise.reject(new TypeError('Failed to fetch'))
            : fetch(input, init),
      },
    });
    const me = await signUpFresh(supabase, 'Casey Offline');
    const { app, user } = await openSettings(supabase);
    const profile = section('Profile');
    await within(profile).findByRole('textbox', { name: 'Display name' }, { timeout: 15_000 });

    await user.upload(
      within(profile).getByLabelText('Change picture'),
      new File([PNG], 'me.png', { type: 'image/png' }),
    );
    expect(
      await within(profile).findByText(
        "Couldn't reach the server to upload the picture. Try again when you're online.",
      ),
    ).toBeVisible();
    expect(profile).not.toHaveTextContent('Failed to fetch');
    expect((await storedRow(app.sync, 'profiles', me.id))?.avatar_path ?? null).toBeNull();
    expect(within(profile).getByLabelText('Change picture')).toBeEnabled();
  });
});
