// The icon's badge: the sum of what waits and what is due, cleared at 0, and silently nothing
// where the browser has no badges or refuses one.
import { afterEach, describe, expect, it } from 'vitest';

import { badgeCount, showBadge } from './app-badge';
import { fakeBrowser, restoreBrowser } from './testing/fake-browser';

afterEach(restoreBrowser);

describe('app badge', () => {
  it('counts changes waiting and tasks assigned and due together', () => {
    expect(badgeCount({ pending: 0, assignedDue: 0 })).toBe(0);
    expect(badgeCount({ pending: 3, assignedDue: 2 })).toBe(5);
  });

  it('sets the count, and clears the badge at 0', async () => {
    const stubs = fakeBrowser({ badging: true });
    await showBadge(4);
    expect(stubs.setAppBadge).toHaveBeenCalledWith(4);
    await showBadge(0);
    expect(stubs.clearAppBadge).toHaveBeenCalledTimes(1);
    expect(stubs.setAppBadge).toHaveBeenCalledTimes(1);
  });

  it('does nothing, and never throws, without badges or when the browser refuses', async () => {
    await expect(showBadge(2)).resolves.toBeUndefined();
    const stubs = fakeBrowser({ badging: true });
    stubs.setAppBadge.mockRejectedValueOnce(new DOMException('no', 'NotAllowedError'));
    await expect(showBadge(2)).resolves.toBeUndefined();
    stubs.setAppBadge.mockImplementationOnce(() => {
      throw new TypeError('sync throw');
    });
    await expect(showBadge(2)).resolves.toBeUndefined();
  });
});
