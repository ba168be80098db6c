// Placeholder until the storage service is built: answers 501 so callers get a clear error.
import { Hono } from 'hono';

import type { DevstackContext } from '../context';

export function storageRoutes(ctx: DevstackContext): Hono {
  void ctx;
  const app = new Hono();
  app.all('*', (c) => c.json({ message: 'storage is not implemented yet in the devstack' }, 501));
  return app;
}
