// Which navigations the service worker leaves to the server: every API root, bare, with a
// query or a sub-path; never an app route, even one that starts with the same letters.
import { describe, expect, it } from 'vitest';

import { isApiPath } from './navigation-denylist';

describe('navigation denylist', () => {
  it.each([
    '/auth',
    '/auth/v1/verify?token=x',
    '/rest',
    '/rest/v1/tasks',
    '/storage/v1/object/sign/attachments/a.png?token=x',
    '/functions?x=1',
    '/functions/v1/create-invite',
    '/realtime',
    '/realtime/v1/websocket?apikey=x',
  ])('leaves %s to the server', (path) => {
    expect(isApiPath(path)).toBe(true);
  });

  it.each(['/', '/lists', '/lists/auth', '/authors', '/restore', '/settings?section=storage'])(
    'answers %s with the app shell',
    (path) => {
      expect(isApiPath(path)).toBe(false);
    },
  );
});
