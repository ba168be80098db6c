// The offer of notifications on a shared list's members screen: made only while they are
// neither on nor blocked and the person has not said "Not now"; "Turn on" asks the browser
// from the click, "Not now" is remembered on this device.
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';

import {
  notificationPromptDismissed,
  notificationsWanted,
  setNotificationsWanted,
} from '@/lib/pwa/background-state';
import { fakeBrowser, restoreBrowser, type FakeBrowser } from '@/lib/pwa/testing/fake-browser';
import { createTestServices, renderWithServices } from '@/testing/app-harness';

import { NotificationOffer } from './notification-offer';

afterEach(restoreBrowser);

const QUESTION = 'Get a notification when a task is assigned to you?';

function renderOffer(browser: FakeBrowser = { notification: 'default' }) {
  const stubs = fakeBrowser(browser);
  const view = renderWithServices(createTestServices(), <NotificationOffer />);
  return { stubs, view, user: userEvent.setup() };
}

/** Waits until the offer has read the stored choice and chosen not to show. */
async function expectNoOffer(view: ReturnType<typeof renderOffer>['view']) {
  // It renders nothing until then too: wait for the store to have answered.
  await notificationsWanted();
  await notificationPromptDismissed();
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(view.container).toBeEmptyDOMElement();
}

describe('notification offer', () => {
  it('asks the browser on "Turn on" and says where to change it', async () => {
    const { stubs, user } = renderOffer();
    expect(await screen.findByText(QUESTION)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Turn on' }));
    expect(stubs.requestPermission).toHaveBeenCalledTimes(1);
    const status = screen.getByRole('status');
    await waitFor(() =>
      expect(status).toHaveTextContent(
        "Notifications are on: you'll get one when a task is assigned to you. Change this in Settings.",
      ),
    );
    expect(screen.getByRole('link', { name: 'Change this in Settings' })).toHaveAttribute(
      'href',
      '/settings#background',
    );
    expect(screen.queryByText(QUESTION)).toBeNull();
    expect(await notificationsWanted()).toBe(true);
  });

  it('says the browser blocked them when it did, and keeps them off', async () => {
    const { user } = renderOffer({ notification: 'default', answer: 'denied' });
    await user.click(await screen.findByRole('button', { name: 'Turn on' }));
    await waitFor(() =>
      expect(screen.getByRole('status')).toHaveTextContent(
        'The browser blocked notifications for Outpost.',
      ),
    );
    expect(await notificationsWanted()).toBe(false);
  });

  it('goes on "Not now", and is not made again', async () => {
    const { stubs, view, user } = renderOffer();
    await user.click(await screen.findByRole('button', { name: 'Not now' }));
    expect(view.container).toBeEmptyDOMElement();
    expect(stubs.requestPermission).not.toHaveBeenCalled();
    expect(await notificationPromptDismissed()).toBe(true);
    view.unmount();

    const again = renderWithServices(createTestServices(), <NotificationOffer />);
    await expectNoOffer(again);
  });

  it('is not made when notifications are on, blocked, or impossible here', async () => {
    await setNotificationsWanted(true);
    await expectNoOffer(renderOffer({ notification: 'granted' }).view);
    await restoreBrowser();
    await expectNoOffer(renderOffer({ notification: 'denied' }).view);
    await restoreBrowser();
    await expectNoOffer(renderOffer({}).view);
  });
});
