// Screens loaded on first use, without React.lazy's cost: React.lazy suspends on its first
// render even when the module is already here (a fresh promise's state is unknown), and
// React 19 holds a suspended boundary's content back for up to 300 ms to avoid flicker.
// That was most of the time from navigation to first tasks. Here the load promise carries
// its result in `status`/`value` once settled, read synchronously at render: code
// that has loaded (preloaded at start-up, or on an earlier visit) renders at once, and only
// code still on its way suspends.
import type { ComponentType } from 'react';

/** How long a failed load of a screen's code stays failed before opening it tries again (ms). */
export const LOAD_RETRY_AFTER_MS = 5_000;

export interface LazyScreen<P extends object> {
  (props: P): React.ReactNode;
  /** Starts loading the code (idempotent; see LOAD_RETRY_AFTER_MS). */
  preload: () => Promise<unknown>;
}

/** A promise that says how it settled, as React's use() understands. */
type Tracked<T> = Promise<T> & { status?: 'fulfilled' | 'rejected'; value?: T; reason?: unknown };

export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): LazyScreen<P> {
  let loading: Tracked<ComponentType<P>> | undefined;
  let failedAt = 0;
  const preload = () => {
    // A failed load stays failed for a moment (React re-renders once by itself after an
    // error; retrying then would loop on a chunk that cannot be fetched); opening the screen
    // again later tries again.
    if (loading?.status === 'rejected' && Date.now() - failedAt > LOAD_RETRY_AFTER_MS) {
      loading = undefined;
    }
    if (!loading) {
      const promise: Tracked<ComponentType<P>> = load();
      loading = promise;
      promise.then(
        (component) => {
          promise.status = 'fulfilled';
          promise.value = component;
        },
        (error: unknown) => {
          promise.status = 'rejected';
          promise.reason = error;
          failedAt = Date.now();
        },
      );
    }
    return loading;
  };
  function Screen(props: P) {
    const promise = preload();
    if (promise.status === 'rejected') throw promise.reason;
    // Suspend until the code is here. Throwing the promise, as React.lazy itself does: use()
    // also works in the browser, but its wake-up is not delivered in React's test mode.
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- Suspense's protocol
    if (promise.status !== 'fulfilled' || !promise.value) throw promise;
    const Component = promise.value;
    return <Component {...props} />;
  }
  return Object.assign(Screen, { preload });
}
