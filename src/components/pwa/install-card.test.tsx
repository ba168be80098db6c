// The install card's rules: offered only once the user has created something, through the
// browser's prompt (or, on iOS, as Share → Add to Home Screen steps); gone for good after
// "Not now" or a no in the browser's own dialog; never shown while running installed (also
// when the display mode changes under it) or while an update waits.
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';

import {
  INSTALL_DISMISSED_KEY,
  listenForInstallPrompt,
  useInstallPrompt,
  type BeforeInstallPromptEvent,
} from '@/lib/pwa/install-prompt';
import { useServiceWorkerState } from '@/lib/pwa/service-worker';

import { InstallCard } from './install-card';

function promptEvent(outcome: 'accepted' | 'dismissed'): BeforeInstallPromptEvent {
  return Object.assign(new Event('beforeinstallprompt', { cancelable: true }), {
    prompt: () => Promise.resolve(),
    userChoice: Promise.resolve({ outcome }),
  });
}

/** matchMedia('(display-mode: standalone)') whose answer a test changes. */
class FakeMediaQuery extends EventTarget {
  matches = false;
  change(matches: boolean): void {
    this.matches = matches;
    this.dispatchEvent(Object.assign(new Event('change'), { matches }));
  }
}

const browser = new EventTarget();
const standaloneQuery = new FakeMediaQuery();
listenForInstallPrompt({
  target: browser,
  standaloneQuery: standaloneQuery as unknown as Pick<
    MediaQueryList,
    'matches' | 'addEventListener'
  >,
});

const title = () => screen.queryByRole('heading', { name: 'Install Outpost' });

beforeEach(() => {
  useInstallPrompt.setState({
    deferred: null,
    standalone: false,
    ios: false,
    dismissed: false,
    createdSomething: false,
  });
  useServiceWorkerState.setState({ updateReady: false });
});

describe('install card', () => {
  it('is offered through the browser prompt only after the user has created something', () => {
    render(<InstallCard />);
    act(() => {
      browser.dispatchEvent(promptEvent('accepted'));
    });
    expect(title()).not.toBeInTheDocument();

    act(() => {
      useInstallPrompt.getState().markCreated();
    });
    expect(title()).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Install' })).toBeInTheDocument();
  });

  it('installs through the prompt and goes away', async () => {
    useInstallPrompt.setState({ createdSomething: true });
    render(<InstallCard />);
    act(() => {
      browser.dispatchEvent(promptEvent('accepted'));
    });
    await userEvent.click(screen.getByRole('button', { name: 'Install' }));
    expect(title()).not.toBeInTheDocument();
    expect(localStorage.getItem(INSTALL_DISMISSED_KEY)).toBeNull();
  });

  it('stays away after "Not now", remembered for the next visit', async () => {
    useInstallPrompt.setState({ createdSomething: true });
    render(<InstallCard />);
    act(() => {
      browser.dispatchEvent(promptEvent('accepted'));
    });
    await userEvent.click(screen.getByRole('button', { name: 'Not now' }));
    expect(title()).not.toBeInTheDocument();
    expect(localStorage.getItem(INSTALL_DISMISSED_KEY)).toBe('1');

    // The browser offers its prompt again on the next page load: the card stays away.
    act(() => {
      browser.dispatchEvent(promptEvent('accepted'));
    });
    expect(title()).not.toBeInTheDocument();
  });

  it("stays away after a no in the browser's own install dialog", async () => {
    useInstallPrompt.setState({ createdSomething: true });
    render(<InstallCard />);
    act(() => {
      browser.dispatchEvent(promptEvent('dismissed'));
    });
    await userEvent.click(screen.getByRole('button', { name: 'Install' }));
    expect(title()).not.toBeInTheDocument();
    expect(localStorage.getItem(INSTALL_DISMISSED_KEY)).toBe('1');

    act(() => {
      browser.dispatchEvent(promptEvent('accepted'));
    });
    expect(title()).not.toBeInTheDocument();
  });

  it('is hidden while the app runs installed, following display-mode changes', () => {
    useInstallPrompt.setState({ createdSomething: true });
    render(<InstallCard />);
    act(() => {
      browser.dispatchEvent(promptEvent('accepted'));
    });
    expect(title()).toBeInTheDocument();

    act(() => {
      standaloneQuery.change(true);
    });
    expect(title()).not.toBeInTheDocument();
    act(() => {
      standaloneQuery.change(false);
    });
    expect(title()).toBeInTheDocument();
  });

  it('on iOS, explains Share → Add to Home Screen instead of an Install button', () => {
    useInstallPrompt.setState({ ios: true, createdSomething: true });
    render(<InstallCard />);
    const card = screen.getByRole('complementary', { name: 'Install Outpost' });
    expect(card).toHaveTextContent(/Tap Share .*, then Add to Home Screen/);
    expect(screen.queryByRole('button', { name: 'Install' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Not now' })).toBeInTheDocument();
  });

  it('says nothing on a browser with no install prompt and no iOS steps', () => {
    useInstallPrompt.setState({ createdSomething: true });
    render(<InstallCard />);
    expect(title()).not.toBeInTheDocument();
  });

  it('steps aside while "New version ready" is showing', () => {
    useInstallPrompt.setState({ createdSomething: true });
    useServiceWorkerState.setState({ updateReady: true });
    render(<InstallCard />);
    act(() => {
      browser.dispatchEvent(promptEvent('accepted'));
    });
    expect(title()).not.toBeInTheDocument();
  });
});
