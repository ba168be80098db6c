// Whether a media query matches, followed live: resizing the window (or turning a tablet)
// switches a task between the panel beside its list and its own page (issue 40).
import { useCallback, useSyncExternalStore } from 'react';

/** From this width on, a task opens beside its list rather than on a page of its own. */
export const TASK_BESIDE_LIST_QUERY = '(min-width: 1100px)';

/** Whether `query` matches now; the component renders again when that changes. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches);
}
