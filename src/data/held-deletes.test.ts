// A held delete is said in the header for its Undo window and no longer: forgotten when the
// window has passed, or at once when undone.
import { afterEach, describe, expect, it, vi } from 'vitest';

import { holdDelete, releaseDelete, useHeldDeletes } from './held-deletes';

afterEach(() => {
  vi.useRealTimers();
  useHeldDeletes.setState({ held: [] });
});

const undo = () => Promise.resolve();

describe('held deletes', () => {
  it('are forgotten once their window has passed', () => {
    vi.useFakeTimers();
    holdDelete({ id: 'a', undo }, 5_000);
    vi.advanceTimersByTime(2_000);
    holdDelete({ id: 'b', undo }, 5_000);
    expect(useHeldDeletes.getState().held.map((h) => h.id)).toEqual(['a', 'b']);
    vi.advanceTimersByTime(2_999);
    expect(useHeldDeletes.getState().held.map((h) => h.id)).toEqual(['a', 'b']);
    vi.advanceTimersByTime(1);
    expect(useHeldDeletes.getState().held.map((h) => h.id)).toEqual(['b']);
    vi.advanceTimersByTime(2_000);
    expect(useHeldDeletes.getState().held).toEqual([]);
  });

  it('are forgotten when undone, and a second delete of the row keeps its own window', () => {
    vi.useFakeTimers();
    holdDelete({ id: 'a', undo }, 5_000);
    releaseDelete('a');
    expect(useHeldDeletes.getState().held).toEqual([]);
    vi.advanceTimersByTime(4_000);
    holdDelete({ id: 'a', undo }, 5_000);
    // The first hold's time is up, not the second's.
    vi.advanceTimersByTime(1_000);
    expect(useHeldDeletes.getState().held.map((h) => h.id)).toEqual(['a']);
    vi.advanceTimersByTime(4_000);
    expect(useHeldDeletes.getState().held).toEqual([]);
  });
});
