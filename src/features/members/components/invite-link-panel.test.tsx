// The invite panel's "Share…" button against the devstack (a real invite link): offered only
// where the browser can share, hands the link to the share sheet, and a share sheet closed
// without sharing is no error (the link stays on screen to copy).
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { Toaster } from '@/components/ui/toaster';
import { useToasts } from '@/lib/toasts';
import {
  createTestServices,
  devstackClient,
  renderWithServices,
  SEEDED_LIST,
} from '@/testing/app-harness';

import { signInAs } from '../members-test-support';
import { InviteLinkPanel } from './invite-link-panel';

/** jsdom has no Web Share API; a test gives the page one (or leaves it without). */
function giveShare(share: (data: ShareData) => Promise<void>) {
  Object.defineProperty(navigator, 'share', { value: share, configurable: true, writable: true });
}

afterEach(() => {
  Reflect.deleteProperty(navigator, 'share');
});

/** The panel for alice, owner of the seeded list, with a link already made. */
async function panelWithLink() {
  const supabase = await signInAs(devstackClient(), 'alice');
  const services = createTestServices({ supabase, online: true });
  const user = userEvent.setup();
  renderWithServices(
    services,
    <>
      <InviteLinkPanel listId={SEEDED_LIST} full={false} />
      <Toaster />
    </>,
  );
  await user.click(await screen.findByRole('button', { name: 'Create invite link' }));
  const link = await screen.findByRole('textbox', { name: 'Invite link (editor)' });
  return { user, url: (link as HTMLInputElement).value };
}

describe('sharing an invite link', () => {
  it('hands the link to the share sheet where the browser has one', async () => {
    const share = vi.fn<(data: ShareData) => Promise<void>>(() => Promise.resolve());
    giveShare(share);
    const { user, url } = await panelWithLink();
    expect(url).toMatch(/\/invite\/[0-9a-f]{64}$/);

    await user.click(screen.getByRole('button', { name: 'Share…' }));
    expect(share).toHaveBeenCalledTimes(1);
    expect(share).toHaveBeenCalledWith({ title: 'Join my list on Outpost', url });
    expect(screen.getByRole('textbox', { name: 'Invite link (editor)' })).toHaveValue(url);
  });

  it('offers only "Copy link" where the browser cannot share', async () => {
    expect('share' in navigator).toBe(false);
    await panelWithLink();
    expect(screen.getByRole('button', { name: 'Copy link' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Share…' })).not.toBeInTheDocument();
  });

  it('says nothing when the share sheet is closed without sharing', async () => {
    // What browsers do when the person dismisses the sheet.
    const share = vi.fn<(data: ShareData) => Promise<void>>(() =>
      Promise.reject(new DOMException('Share canceled', 'AbortError')),
    );
    giveShare(share);
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const { user, url } = await panelWithLink();
      await user.click(screen.getByRole('button', { name: 'Share…' }));
      await waitFor(() => expect(share).toHaveBeenCalledTimes(1));
      // Let a rejection that nothing caught surface before looking.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).not.toHaveBeenCalled();
      expect(useToasts.getState().toasts).toEqual([]);
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      expect(screen.getByRole('textbox', { name: 'Invite link (editor)' })).toHaveValue(url);
      expect(screen.getByRole('button', { name: 'Share…' })).toBeEnabled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});
