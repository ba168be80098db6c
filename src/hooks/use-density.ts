// How dense the task rows are: "comfortable" (the default) or "compact", a choice of this
// device's (Settings → Appearance), kept in localStorage and shared live by every tab and
// screen. Rows are virtualised at a fixed height, so the height is a number here, not only CSS.
import { useSyncExternalStore } from 'react';

export type Density = 'comfortable' | 'compact';

export const DENSITIES: readonly Density[] = ['comfortable', 'compact'];

/** A task row's height at each density (px), on a desktop and on a touch screen. */
export const ROW_HEIGHTS: Readonly<Record<Density, { fine: number; touch: number }>> = {
  comfortable: { fine: 36, touch: 44 },
  compact: { fine: 30, touch: 40 },
};

const KEY = 'outpost:density';
const listeners = new Set<() => void>();

function read(): Density {
  try {
    return localStorage.getItem(KEY) === 'compact' ? 'compact' : 'comfortable';
  } catch {
    // Storage refused (a locked-down browser): the default.
    return 'comfortable';
  }
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  // Another tab's choice.
  const onStorage = (event: StorageEvent) => {
    if (event.key === KEY) onChange();
  };
  addEventListener('storage', onStorage);
  return () => {
    listeners.delete(onChange);
    removeEventListener('storage', onStorage);
  };
}

/** Stores the choice and tells every screen of this tab (others hear it by `storage`). */
export function setDensity(density: Density): void {
  try {
    localStorage.setItem(KEY, density);
  } catch {
    // Not kept, but this tab still shows it until reload.
  }
  for (const listener of listeners) listener();
}

/** The device's row density, live. */
export function useDensity(): Density {
  return useSyncExternalStore(subscribe, read, () => 'comfortable');
}
