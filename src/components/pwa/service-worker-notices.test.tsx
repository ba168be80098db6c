// The two notices: "Ready to work offline" is a toast said once (the device remembers it);
// "New version ready" stays until answered, and "Later" puts it away.
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';

import { OFFLINE_READY_SHOWN_KEY, useServiceWorkerState } from '@/lib/pwa/service-worker';
import { useToasts } from '@/lib/toasts';

import { ServiceWorkerNotices } from './service-worker-notices';

beforeEach(() => {
  useServiceWorkerState.setState({ offlineReady: false, updateReady: false });
});

describe('service worker notices', () => {
  it('says "Ready to work offline" once, as a toast, and remembers it was said', () => {
    useServiceWorkerState.setState({ offlineReady: true });
    const { rerender } = render(<ServiceWorkerNotices />);
    rerender(<ServiceWorkerNotices />);
    expect(useToasts.getState().toasts.map((toast) => toast.message)).toEqual([
      'Ready to work offline',
    ]);
    expect(useServiceWorkerState.getState().offlineReady).toBe(false);
    expect(localStorage.getItem(OFFLINE_READY_SHOWN_KEY)).toBe('1');
  });

  it('offers "Reload" and "Later" for a waiting version; Later puts it away', async () => {
    useServiceWorkerState.setState({ updateReady: true });
    render(<ServiceWorkerNotices />);
    const notice = screen.getByRole('status');
    expect(notice).toHaveTextContent('New version ready');
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Later' }));
    expect(screen.queryByText('New version ready')).not.toBeInTheDocument();
  });
});
