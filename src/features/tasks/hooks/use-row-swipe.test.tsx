// The row's swipe and long-press, driven by synthetic pointer events on a stand-in row and a
// timer the test runs by hand: a sideways drag past the threshold commits on release, a short
// one springs back, a vertical start is a scroll, a held press selects and the click after it
// opens nothing; mice and pens never swipe.
import { act, fireEvent, render, screen } from '@testing-library/react';
import { createPortal } from 'react-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  LONG_PRESS_MS,
  SWIPE_COMMIT_PX,
  useRowSwipe,
  type RowSwipeOptions,
  type SwipeTimers,
} from './use-row-swipe';

/** Timers that fire only when the test says so. */
function handTimers() {
  const pending = new Map<number, { run: () => void; ms: number }>();
  let next = 1;
  const timers: SwipeTimers = {
    set: (run, ms) => {
      pending.set(next, { run, ms });
      return next++;
    },
    clear: (id) => pending.delete(id),
  };
  return {
    timers,
    pending,
    /** Runs every timer due within `ms`. */
    elapse: (ms: number) => {
      act(() => {
        for (const [id, timer] of [...pending]) {
          if (timer.ms > ms) continue;
          pending.delete(id);
          timer.run();
        }
      });
    },
  };
}

function Row({ options, timers }: { options: RowSwipeOptions; timers: SwipeTimers }) {
  const { bind, offset, side } = useRowSwipe(options, timers);
  return (
    <div data-testid="row" {...bind} data-offset={offset} data-side={side ?? ''}>
      <a href="/task" onClick={(event) => event.preventDefault()}>
        Fix the door
      </a>
      {/* As a status menu's bottom sheet: drawn elsewhere, its events bubble to the row. */}
      {createPortal(<button type="button">In a sheet</button>, document.body)}
    </div>
  );
}

function setup({ enabled = true, width = 0 }: { enabled?: boolean; width?: number } = {}) {
  const clock = handTimers();
  const options = {
    enabled,
    onSwipeRight: vi.fn(),
    onSwipeLeft: vi.fn(),
    onLongPress: vi.fn(),
  };
  render(<Row options={options} timers={clock.timers} />);
  const row = screen.getByTestId('row');
  vi.spyOn(row, 'getBoundingClientRect').mockReturnValue(new DOMRect(0, 0, width, 44));
  return { ...clock, ...options, row, link: screen.getByRole('link', { name: 'Fix the door' }) };
}

type Kind = 'touch' | 'mouse' | 'pen';
const at = (x: number, y: number, pointerType: Kind = 'touch') => ({
  pointerId: 1,
  pointerType,
  isPrimary: true,
  clientX: x,
  clientY: y,
});

/** A finger from (100, 20) through each x (same height), lifted at the last. */
function drag(target: HTMLElement, xs: number[], pointerType: Kind = 'touch') {
  fireEvent.pointerDown(target, at(100, 20, pointerType));
  for (const x of xs) fireEvent.pointerMove(target, at(x, 20, pointerType));
  fireEvent.pointerUp(target, at(xs.at(-1) ?? 100, 20, pointerType));
}

afterEach(() => vi.restoreAllMocks());

describe('useRowSwipe', () => {
  it('follows the finger sideways and commits a right swipe past the threshold', () => {
    const { row, link, onSwipeRight, onSwipeLeft, onLongPress } = setup();
    fireEvent.pointerDown(link, at(100, 20));
    fireEvent.pointerMove(link, at(105, 21));
    // Within the slop: still a press.
    expect(row).toHaveAttribute('data-offset', '0');
    fireEvent.pointerMove(link, at(160, 22));
    expect(row).toHaveAttribute('data-offset', '60');
    expect(row).toHaveAttribute('data-side', 'right');
    fireEvent.pointerMove(link, at(100 + SWIPE_COMMIT_PX, 22));
    fireEvent.pointerUp(link, at(100 + SWIPE_COMMIT_PX, 22));
    expect(onSwipeRight).toHaveBeenCalledTimes(1);
    expect(onSwipeLeft).not.toHaveBeenCalled();
    expect(onLongPress).not.toHaveBeenCalled();
    expect(row).toHaveAttribute('data-offset', '0');
    expect(row).toHaveAttribute('data-side', '');
  });

  it('commits a left swipe, and springs back from one too short', () => {
    const { row, onSwipeRight, onSwipeLeft } = setup();
    drag(row, [80, 40, 100 - SWIPE_COMMIT_PX + 1]);
    expect(onSwipeLeft).not.toHaveBeenCalled();
    expect(row).toHaveAttribute('data-offset', '0');

    fireEvent.pointerDown(row, at(100, 20));
    fireEvent.pointerMove(row, at(60, 20));
    expect(row).toHaveAttribute('data-side', 'left');
    expect(row).toHaveAttribute('data-offset', '-40');
    fireEvent.pointerMove(row, at(100 - SWIPE_COMMIT_PX, 20));
    fireEvent.pointerUp(row, at(100 - SWIPE_COMMIT_PX, 20));
    expect(onSwipeLeft).toHaveBeenCalledTimes(1);
    expect(onSwipeRight).not.toHaveBeenCalled();
  });

  it('commits past 35% of a narrow row', () => {
    const { row, onSwipeRight } = setup({ width: 200 });
    drag(row, [140, 169]);
    expect(onSwipeRight).not.toHaveBeenCalled();
    drag(row, [140, 170]);
    expect(onSwipeRight).toHaveBeenCalledTimes(1);
  });

  it('leaves a vertical start to the page’s scrolling', () => {
    const { row, onSwipeRight, onLongPress, pending, elapse } = setup();
    fireEvent.pointerDown(row, at(100, 20));
    fireEvent.pointerMove(row, at(104, 40));
    // Then sideways, far: still the scroll it began as.
    fireEvent.pointerMove(row, at(300, 45));
    expect(row).toHaveAttribute('data-offset', '0');
    expect(pending.size).toBe(0);
    elapse(LONG_PRESS_MS);
    fireEvent.pointerUp(row, at(300, 45));
    expect(onSwipeRight).not.toHaveBeenCalled();
    expect(onLongPress).not.toHaveBeenCalled();
  });

  it('ignores mice and pens, and a cancelled gesture', () => {
    const first = setup();
    drag(first.row, [250], 'mouse');
    drag(first.row, [250], 'pen');
    expect(first.onSwipeRight).not.toHaveBeenCalled();
    fireEvent.pointerDown(first.row, at(100, 20));
    fireEvent.pointerMove(first.row, at(250, 20));
    fireEvent.pointerCancel(first.row, at(250, 20));
    expect(first.row).toHaveAttribute('data-offset', '0');
    fireEvent.pointerUp(first.row, at(250, 20));
    expect(first.onSwipeRight).not.toHaveBeenCalled();
  });

  it('does nothing on a row where it is not enabled', () => {
    const off = setup({ enabled: false });
    fireEvent.pointerDown(off.row, at(100, 20));
    off.elapse(LONG_PRESS_MS);
    fireEvent.pointerUp(off.row, at(100, 20));
    drag(off.row, [250]);
    expect(off.onLongPress).not.toHaveBeenCalled();
    expect(off.onSwipeRight).not.toHaveBeenCalled();
  });

  it('long-presses after 500 ms held still, and the click that follows opens nothing', () => {
    const { row, link, onLongPress, elapse } = setup();
    const opened = vi.fn();
    row.addEventListener('click', opened);
    fireEvent.pointerDown(link, at(100, 20));
    elapse(LONG_PRESS_MS - 1);
    expect(onLongPress).not.toHaveBeenCalled();
    elapse(LONG_PRESS_MS);
    expect(onLongPress).toHaveBeenCalledTimes(1);
    fireEvent.pointerUp(link, at(100, 20));
    expect(fireEvent.click(link)).toBe(false);
    expect(opened).not.toHaveBeenCalled();

    // The next tap is the user's own.
    fireEvent.pointerDown(link, at(100, 20));
    fireEvent.pointerUp(link, at(100, 20));
    fireEvent.click(link);
    expect(opened).toHaveBeenCalledTimes(1);
    expect(onLongPress).toHaveBeenCalledTimes(1);
  });

  it('does not long-press once the finger moves, nor after a quick tap', () => {
    const { row, onLongPress, pending, elapse } = setup();
    fireEvent.pointerDown(row, at(100, 20));
    fireEvent.pointerMove(row, at(120, 20));
    elapse(LONG_PRESS_MS);
    fireEvent.pointerUp(row, at(120, 20));
    fireEvent.pointerDown(row, at(100, 20));
    fireEvent.pointerUp(row, at(100, 20));
    expect(pending.size).toBe(0);
    elapse(LONG_PRESS_MS);
    expect(onLongPress).not.toHaveBeenCalled();
  });

  it('ignores a press in a sheet the row opened', () => {
    const { onLongPress, onSwipeRight, elapse } = setup();
    const inSheet = screen.getByRole('button', { name: 'In a sheet' });
    fireEvent.pointerDown(inSheet, at(100, 20));
    elapse(LONG_PRESS_MS);
    fireEvent.pointerUp(inSheet, at(100, 20));
    drag(inSheet, [250]);
    expect(onLongPress).not.toHaveBeenCalled();
    expect(onSwipeRight).not.toHaveBeenCalled();
  });
});
