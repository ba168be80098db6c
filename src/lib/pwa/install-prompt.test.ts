// The install prompt's state: Chromium's event is captured (and its mini-infobar held back),
// installing uses it once, an install by other means is noticed, the display mode is followed,
// a dismissal (the card's or the browser dialog's) and "has created something" are remembered
// across reloads.
import { beforeEach, describe, expect, it } from 'vitest';

import {
  CREATED_SOMETHING_KEY,
  INSTALL_DISMISSED_KEY,
  listenForInstallPrompt,
  useInstallPrompt,
} from './install-prompt';

function installEvent(outcome: 'accepted' | 'dismissed') {
  const event = new Event('beforeinstallprompt', { cancelable: true }) as Event & {
    prompt: () => Promise<void>;
    userChoice: Promise<{ outcome: string }>;
    prompted: number;
  };
  event.prompted = 0;
  event.prompt = () => {
    event.prompted += 1;
    return Promise.resolve();
  };
  event.userChoice = Promise.resolve({ outcome });
  return event;
}

/** A stand-in for matchMedia('(display-mode: standalone)') whose answer a test can change. */
class FakeMediaQuery extends EventTarget {
  matches = false;
  change(matches: boolean): void {
    this.matches = matches;
    this.dispatchEvent(Object.assign(new Event('change'), { matches }));
  }
}

const target = new EventTarget();
const standaloneQuery = new FakeMediaQuery();
listenForInstallPrompt({
  target,
  standaloneQuery: standaloneQuery as unknown as Pick<
    MediaQueryList,
    'matches' | 'addEventListener'
  >,
});

beforeEach(() => {
  useInstallPrompt.setState({
    deferred: null,
    standalone: false,
    dismissed: false,
    createdSomething: false,
  });
});

describe('install prompt', () => {
  it('captures the browser prompt instead of letting it show, and uses it once to install', async () => {
    const event = installEvent('accepted');
    target.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(true);
    expect(useInstallPrompt.getState().deferred).toBe(event);

    expect(await useInstallPrompt.getState().install()).toBe(true);
    expect(event.prompted).toBe(1);
    expect(useInstallPrompt.getState()).toMatchObject({ deferred: null, standalone: true });
    expect(await useInstallPrompt.getState().install()).toBe(false); // nothing left to use
  });

  it("remembers a no in the browser's own dialog like the card's Not now", async () => {
    target.dispatchEvent(installEvent('dismissed'));
    expect(await useInstallPrompt.getState().install()).toBe(false);
    expect(useInstallPrompt.getState()).toMatchObject({
      deferred: null,
      standalone: false,
      dismissed: true,
    });
    expect(localStorage.getItem(INSTALL_DISMISSED_KEY)).toBe('1');
  });

  it('follows the display mode: opened installed, then back in a browser tab', () => {
    standaloneQuery.change(true);
    expect(useInstallPrompt.getState().standalone).toBe(true);
    standaloneQuery.change(false);
    expect(useInstallPrompt.getState().standalone).toBe(false);
  });

  it('notices an install made from the browser menu', () => {
    target.dispatchEvent(installEvent('accepted'));
    target.dispatchEvent(new Event('appinstalled'));
    expect(useInstallPrompt.getState()).toMatchObject({ deferred: null, standalone: true });
  });

  it('remembers a dismissal and that something was created', () => {
    useInstallPrompt.getState().markCreated();
    useInstallPrompt.getState().dismiss();
    expect(localStorage.getItem(CREATED_SOMETHING_KEY)).toBe('1');
    expect(localStorage.getItem(INSTALL_DISMISSED_KEY)).toBe('1');
    expect(useInstallPrompt.getState()).toMatchObject({ createdSomething: true, dismissed: true });
  });
});
