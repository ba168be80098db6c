// Deletes inside their Undo window: held back on this device (the sync library sends them
// once UNDO_WINDOW_MS has passed), so the header says "Deleting… Undo" for them rather than
// counting them as changes waiting. Ephemeral UI state, so zustand, never Dexie.
import { create } from 'zustand';

export interface HeldDelete {
  /** Unique per delete (the row's id: a row is deleted once at a time). */
  id: string;
  /** Undoes the delete the way its toast's Undo does. */
  undo: () => Promise<void>;
}

interface HeldDeletesState {
  /** Oldest first. */
  held: HeldDelete[];
}

export const useHeldDeletes = create<HeldDeletesState>(() => ({ held: [] }));

/** Forgets a held delete (undone, or its window is over). */
export function releaseDelete(id: string): void {
  useHeldDeletes.setState((state) => ({ held: state.held.filter((entry) => entry.id !== id) }));
}

/**
 * Notes a delete held for `windowMs`; it is forgotten when that time has passed, or earlier
 * through releaseDelete (an Undo).
 */
export function holdDelete(entry: HeldDelete, windowMs: number): void {
  useHeldDeletes.setState((state) => ({
    held: [...state.held.filter((held) => held.id !== entry.id), entry],
  }));
  setTimeout(() => {
    // Only this hold: the same row deleted again since then has a hold of its own.
    if (useHeldDeletes.getState().held.includes(entry)) releaseDelete(entry.id);
  }, windowMs);
}
