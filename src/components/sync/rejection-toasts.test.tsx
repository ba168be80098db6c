// A change the server refuses while the app is open gets a toast saying what and why, even
// when it is the first rejection this device has ever logged; old ones are not repeated.
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import {
  createTestServices,
  findHeading,
  markLocalOnly,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';

let services: TestServices | undefined;

/** A fresh record each time: Dexie writes the new key into the object it adds. */
const refusal = (title = 'Rig the lights (done by Bob)') => ({
  table: 'tasks',
  rowId: '7a5c0000-0000-4000-8000-000000000001',
  op: 'patch' as const,
  data: { title },
  code: 'PERMISSION_DENIED',
  sqlState: '42501',
  message: 'new row violates row-level security policy',
  at: Date.now(),
});

describe('rejection toasts', () => {
  it('toasts the first rejection a device ever logs, with the reason', async () => {
    markLocalOnly();
    services = createTestServices();
    renderApp(services, '/lists');
    await findHeading('Lists');
    await services.sync.db._rejections.add(refusal());
    expect(
      await screen.findByText(/You can't edit the task “Rig the lights \(done by Bob\)” any more/),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Details' })).toBeInTheDocument();
  });

  it('does not repeat rejections logged before the app opened', async () => {
    markLocalOnly();
    services = createTestServices();
    await services.sync.db._rejections.add(refusal());
    renderApp(services, '/lists');
    await findHeading('Lists');
    await services.sync.db._rejections.add(refusal('Newer one'));
    expect(await screen.findByText(/“Newer one”/)).toBeInTheDocument();
    expect(screen.queryByText(/Rig the lights/)).toBeNull();
  });
});
