// A notification's click: the task opens in the app's window in front, else any of its
// windows, else a new one; the path comes only from the notice and stays the app's own.
import { describe, expect, it, vi } from 'vitest';

import { noticePath, openNotice, OPEN_PATH_MESSAGE, type NoticeClients } from './notice-click';

const ORIGIN = 'https://outpost.example';

function windowClient(url: string, { focused = false, visible = false } = {}) {
  return {
    url,
    focused,
    visibilityState: visible ? 'visible' : 'hidden',
    focus: vi.fn(() => Promise.resolve()),
    postMessage: vi.fn(),
  };
}

function clientsOf(windows: ReturnType<typeof windowClient>[]) {
  const clients = {
    matchAll: vi.fn(() => Promise.resolve(windows)),
    openWindow: vi.fn(() => Promise.resolve(null)),
  } satisfies NoticeClients;
  return clients;
}

describe('noticePath', () => {
  it.each([
    [{ url: '/lists/a/tasks/b' }, '/lists/a/tasks/b'],
    [{ url: '/lists?x=1' }, '/lists?x=1'],
    [{ url: '//evil.example/x' }, '/lists'],
    [{ url: 'https://evil.example/' }, '/lists'],
    [{ url: 'javascript:alert(1)' }, '/lists'],
    [{ url: 42 }, '/lists'],
    [null, '/lists'],
    ['/lists/a', '/lists'],
  ])('%j opens %s', (data, path) => {
    expect(noticePath(data, ORIGIN)).toBe(path);
  });
});

describe('openNotice', () => {
  it('asks the focused window of the app to open the task, and focuses it', async () => {
    const back = windowClient(`${ORIGIN}/lists`, { visible: true });
    const front = windowClient(`${ORIGIN}/settings`, { focused: true, visible: true });
    const clients = clientsOf([back, front]);
    await openNotice({ url: '/lists/a/tasks/b' }, clients, ORIGIN);
    expect(front.postMessage).toHaveBeenCalledWith({
      type: OPEN_PATH_MESSAGE,
      path: '/lists/a/tasks/b',
    });
    expect(front.focus).toHaveBeenCalled();
    expect(back.postMessage).not.toHaveBeenCalled();
    expect(clients.openWindow).not.toHaveBeenCalled();
  });

  it('uses a hidden window of the app when none is in front; never another site’s', async () => {
    const other = windowClient('https://elsewhere.example/', { focused: true, visible: true });
    const hidden = windowClient(`${ORIGIN}/lists`);
    hidden.focus.mockRejectedValue(new Error('not allowed'));
    const clients = clientsOf([other, hidden]);
    await openNotice({ url: '/lists/a/tasks/b' }, clients, ORIGIN);
    expect(hidden.postMessage).toHaveBeenCalledOnce();
    expect(other.postMessage).not.toHaveBeenCalled();
  });

  it('opens a new window when the app has none', async () => {
    const clients = clientsOf([]);
    await openNotice({ url: '/lists/a/tasks/b' }, clients, ORIGIN);
    expect(clients.openWindow).toHaveBeenCalledWith('/lists/a/tasks/b');
  });
});
