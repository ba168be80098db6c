// Settings › Sync with the app closed: what this browser does with Outpost closed, in words;
// what the worker's last background sync did; and the notifications switch, off until the
// person turns it on and the browser allows it, saying how to unblock it when it does not.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';

import { notificationsWanted, recordBackgroundRun } from '@/lib/pwa/background-state';
import {
  aliceDevice,
  fakeBrowser,
  restoreBrowser,
  type FakeBrowser,
} from '@/lib/pwa/testing/fake-browser';
import { useInstallPrompt } from '@/lib/pwa/install-prompt';
import { localOnlyServices, renderWithServices } from '@/testing/app-harness';

import { BackgroundSection } from './background-section';

afterEach(async () => {
  useInstallPrompt.setState({ standalone: false, ios: false });
  await restoreBrowser();
});

/** A Chromium app installed and used: everything there, notifications not asked yet. */
const CHROMIUM: FakeBrowser = {
  backgroundSync: true,
  periodicSync: 'granted',
  badging: true,
  notification: 'default',
};

/** Alice's device showing the section, once its switch has read the stored choice. */
async function openSection(browser: FakeBrowser = CHROMIUM) {
  const stubs = fakeBrowser(browser);
  renderWithServices(await aliceDevice(), <BackgroundSection />);
  const section = screen.getByRole('region', { name: 'Sync with the app closed' });
  const status = within(section).getByRole('status');
  await waitFor(() => expect(status).not.toBeEmptyDOMElement());
  return {
    stubs,
    section,
    status,
    toggle: within(section).getByRole('switch', { name: 'Notifications' }),
    user: userEvent.setup(),
  };
}

describe('settings › sync with the app closed', () => {
  it('says what a browser with everything does, and what the last background sync did', async () => {
    await recordBackgroundRun({ at: Date.now() - 5 * 60_000, trigger: 'sync', outcome: 'synced' });
    const { section, toggle, status } = await openSection();
    expect(section).toHaveTextContent('even if Outpost is closed');
    expect(
      await within(section).findByText(/refreshed in the background about twice a day/),
    ).toBeInTheDocument();
    expect(
      await within(section).findByText(
        /^Last background sync 5 min ago, to send edits made offline\. Everything was sent/,
      ),
    ).toBeInTheDocument();
    expect(toggle).not.toBeChecked();
    expect(toggle).toBeEnabled();
    expect(status).toHaveTextContent('Notifications are off.');
  });

  it('says plainly where edits wait for Outpost to be opened (Safari, Firefox)', async () => {
    const { section, toggle, status } = await openSection({});
    expect(section).toHaveTextContent(
      'edits you make offline are sent when Outpost is next opened with a connection. Safari and Firefox work this way.',
    );
    expect(
      await within(section).findByText(/doesn't refresh lists in the background/),
    ).toBeInTheDocument();
    expect(
      await within(section).findByText(
        "Outpost hasn't synced in the background on this device yet.",
      ),
    ).toBeInTheDocument();
    expect(toggle).toBeDisabled();
    expect(status).toHaveTextContent("This browser can't show notifications from Outpost.");
  });

  it('says why lists are not refreshed: not installed, or not allowed yet', async () => {
    await recordBackgroundRun({ at: Date.now(), trigger: 'periodic', outcome: 'failed' });
    const { section } = await openSection({ ...CHROMIUM, periodicSync: 'denied' });
    expect(await within(section).findByRole('link', { name: 'install Outpost' })).toHaveAttribute(
      'href',
      '/settings#install',
    );
    expect(
      await within(section).findByText(/just now, to refresh your lists\. The server couldn't/),
    ).toHaveAttribute('data-outcome', 'failed');
    useInstallPrompt.setState({ standalone: true });
    expect(
      await within(section).findByText(/allows them for installed apps it sees you use often/),
    ).toBeInTheDocument();
  });

  it('turns notifications on from the click, only once the browser allows them, and off', async () => {
    const { stubs, toggle, status, user } = await openSection();
    await user.click(toggle);
    expect(stubs.requestPermission).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(toggle).toBeChecked());
    expect(status).toHaveTextContent("Notifications are on: you'll get one when a task is");
    expect(await notificationsWanted()).toBe(true);

    await user.click(toggle);
    await waitFor(() => expect(toggle).not.toBeChecked());
    expect(status).toHaveTextContent('Notifications are off.');
    expect(await notificationsWanted()).toBe(false);
  });

  it('keeps them off and says how to allow them when the browser blocks them', async () => {
    const { stubs, toggle, status, user } = await openSection({ ...CHROMIUM, answer: 'denied' });
    // From the keyboard: Space on the focused switch.
    toggle.focus();
    await user.keyboard(' ');
    expect(stubs.requestPermission).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(status).toHaveTextContent(/blocked for Outpost in this browser/));
    expect(status).toHaveTextContent('set Notifications to Allow, then turn this on');
    expect(toggle).not.toBeChecked();
    expect(await notificationsWanted()).toBe(false);
  });

  it('says when the browser was asked and did not say yes (its prompt closed)', async () => {
    const { toggle, status, user } = await openSection({ ...CHROMIUM, answer: 'default' });
    await user.click(toggle);
    await waitFor(() =>
      expect(status).toHaveTextContent("The browser didn't allow notifications."),
    );
    expect(toggle).not.toBeChecked();
    expect(await notificationsWanted()).toBe(false);
  });

  it('shows notifications blocked before as blocked from the start', async () => {
    const blocked = await openSection({ ...CHROMIUM, notification: 'denied' });
    expect(blocked.toggle).not.toBeChecked();
    expect(blocked.status).toHaveTextContent(/blocked for Outpost/);
  });

  it('on an iPhone not installed, says notifications come with installing', async () => {
    useInstallPrompt.setState({ ios: true });
    const { status } = await openSection({});
    expect(status).toHaveTextContent('notifications work once Outpost is installed');
  });

  it('has nothing to sync on a device used without an account', async () => {
    fakeBrowser(CHROMIUM);
    renderWithServices(localOnlyServices(), <BackgroundSection />);
    const section = screen.getByRole('region', { name: 'Sync with the app closed' });
    expect(
      await within(section).findByText(/Without an account your data stays on this device/),
    ).toBeInTheDocument();
    expect(within(section).queryByRole('switch')).toBeNull();
  });
});
