// What a start does once its first screen is on the screen, not before (issue 42). After the
// first render commits, the browser still has to lay out, paint and rasterise that frame; on
// a machine of two cores, work started then (supabase-js's 200 kB, the engine's first reads,
// the next screens' data and code, the service worker's update flow) took the cores its
// raster needed, and the rows reached the screen 80–90 ms after they were in the DOM.

/** How long the work waits for the first contentful paint at most (ms): a tab opened in the background paints nothing until it is shown. */
export const FIRST_CONTENTFUL_PAINT_WAIT_MS = 500;

/** The browser's parts afterFirstPaint uses, injected for tests. */
export interface PaintHost {
  /** PerformanceObserver, where the browser has one. */
  PerformanceObserver?: typeof PerformanceObserver | undefined;
  setTimeout: (run: () => void, ms: number) => unknown;
  clearTimeout: (id: never) => void;
}

/**
 * Runs `run` once, when the page's first contentful paint is reported (it is presented: the
 * browser reports it after the frame is on screen; at once if it was already), or after
 * FIRST_CONTENTFUL_PAINT_WAIT_MS, whichever comes first.
 */
export function afterFirstPaint(run: () => void, host: PaintHost = globalThis): void {
  let done = false;
  let observer: PerformanceObserver | undefined;
  const go = () => {
    if (done) return;
    done = true;
    observer?.disconnect();
    host.clearTimeout(timer as never);
    run();
  };
  const timer = host.setTimeout(go, FIRST_CONTENTFUL_PAINT_WAIT_MS);
  const Observer = host.PerformanceObserver;
  if (!Observer) return;
  try {
    observer = new Observer((list) => {
      if (list.getEntriesByName('first-contentful-paint').length > 0) go();
    });
    // Buffered: a paint reported before this call (the first visit's page) counts.
    observer.observe({ type: 'paint', buffered: true });
  } catch {
    observer = undefined; // no paint timing here: the timer alone
  }
}
