// Settings is linked to by section (`/settings#sync` from the header, `#rejected` from the
// rejection toasts): bring that section into view and put focus on it, so keyboard and
// screen-reader users land where sighted users do.
import { useEffect } from 'react';

import { useLocation } from '@/lib/router';

/** Sections above the target fill in from liveQuery a moment later and push it down. */
const SETTLE_MS = 250;

export function useScrollToHash(): void {
  const { hash } = useLocation();
  useEffect(() => {
    const id = decodeURIComponent(hash.replace(/^#/, ''));
    if (!id) return;
    const reveal = (focus: boolean) => {
      const target = document.getElementById(id);
      if (!target) return;
      // jsdom has no scrollIntoView; browsers all do.
      target.scrollIntoView?.({ block: 'start' });
      if (focus) target.focus({ preventScroll: true });
    };
    const frame = requestAnimationFrame(() => reveal(true));
    const settle = setTimeout(() => reveal(false), SETTLE_MS);
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(settle);
    };
  }, [hash]);
}
