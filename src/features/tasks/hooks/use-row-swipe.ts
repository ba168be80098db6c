// Swipe and long-press on a task row, for touch screens (issue 40): a finger dragged sideways
// past a threshold and lifted completes the task (right) or deletes it (left); a press held
// still selects it. A finger that moves up or down first is scrolling the page and is left
// alone, and a mouse or pen never swipes. The row spreads `bind` on its element, moves its
// content by `offset` and shows the action for `side` behind it (row-swipe.css).
import { useEffect, useRef, useState, type PointerEvent } from 'react';

/** A press held this long without moving is a long-press (ms). */
export const LONG_PRESS_MS = 500;
/** A finger that has moved less than this is still pressing, not dragging (px). */
export const DRAG_SLOP_PX = 10;
/** A swipe lifted past this distance commits (px), or past SWIPE_COMMIT_FRACTION if less. */
export const SWIPE_COMMIT_PX = 96;
/** A swipe lifted past this share of the row's width commits (0–1), or SWIPE_COMMIT_PX. */
export const SWIPE_COMMIT_FRACTION = 0.35;

/** The timer a long-press waits on: the browser's, or a test's. */
export interface SwipeTimers {
  set: (run: () => void, ms: number) => number;
  clear: (id: number) => void;
}

const browserTimers: SwipeTimers = {
  set: (run, ms) => window.setTimeout(run, ms),
  clear: (id) => window.clearTimeout(id),
};

export interface RowSwipeOptions {
  enabled: boolean;
  onSwipeRight: () => void;
  onSwipeLeft: () => void;
  onLongPress: () => void;
}

type Handler = (event: PointerEvent<HTMLElement>) => void;

export interface RowSwipe {
  /** Spread on the row's element. */
  bind: {
    onPointerDown: Handler;
    onPointerMove: Handler;
    onPointerUp: Handler;
    onPointerCancel: Handler;
  };
  /** How far the row's content follows the finger (px; negative to the left). */
  offset: number;
  /** Which way a swipe is going, while one is. */
  side: 'left' | 'right' | null;
}

interface Gesture {
  pointerId: number;
  startX: number;
  startY: number;
  /** The distance past which lifting the finger commits (px). */
  commitAt: number;
  phase: 'pressing' | 'swiping' | 'scrolling' | 'held';
  timer: number | null;
}

/**
 * After a long-press or a swipe the browser may still send the tap's click (and on a long
 * press its context menu): neither must open the task. Both are dropped until the next touch
 * or key, which ends the suppression (a later click is the user's own).
 */
function suppressTapAftermath(): void {
  const drop = (event: Event) => {
    event.preventDefault();
    event.stopPropagation();
    if (event.type === 'click') removeEventListener('click', drop, true);
  };
  const end = () => {
    removeEventListener('click', drop, true);
    removeEventListener('contextmenu', drop, true);
    removeEventListener('pointerdown', end, true);
    removeEventListener('keydown', end, true);
  };
  addEventListener('click', drop, true);
  addEventListener('contextmenu', drop, true);
  addEventListener('pointerdown', end, true);
  addEventListener('keydown', end, true);
}

export function useRowSwipe(
  { enabled, onSwipeRight, onSwipeLeft, onLongPress }: RowSwipeOptions,
  timers: SwipeTimers = browserTimers,
): RowSwipe {
  const [offset, setOffset] = useState(0);
  const gesture = useRef<Gesture | null>(null);
  // The row passes new functions on each render; a gesture calls the latest.
  const callbacks = useRef({ onSwipeRight, onSwipeLeft, onLongPress });
  useEffect(() => {
    callbacks.current = { onSwipeRight, onSwipeLeft, onLongPress };
  });

  const end = () => {
    const current = gesture.current;
    if (current?.timer != null) timers.clear(current.timer);
    gesture.current = null;
    setOffset(0);
  };
  // A row that goes away mid-press must not long-press afterwards.
  useEffect(
    () => () => {
      const timer = gesture.current?.timer;
      if (timer != null) timers.clear(timer);
      gesture.current = null;
    },
    [timers],
  );

  /** The gesture this event belongs to, if any. */
  const ongoing = (event: PointerEvent<HTMLElement>) => {
    const current = gesture.current;
    return current && current.pointerId === event.pointerId ? current : null;
  };

  const bind = {
    onPointerDown: (event: PointerEvent<HTMLElement>) => {
      // Not a press in a popup the row opened (a menu drawn in a portal still bubbles here).
      if (!enabled || event.pointerType !== 'touch' || !event.isPrimary) return;
      if (!event.currentTarget.contains(event.target as Node)) return;
      end();
      const width = event.currentTarget.getBoundingClientRect().width;
      const current: Gesture = {
        pointerId: event.pointerId,
        startX: event.clientX,
        startY: event.clientY,
        commitAt:
          width > 0 ? Math.min(SWIPE_COMMIT_PX, width * SWIPE_COMMIT_FRACTION) : SWIPE_COMMIT_PX,
        phase: 'pressing',
        timer: null,
      };
      current.timer = timers.set(() => {
        current.timer = null;
        if (gesture.current !== current || current.phase !== 'pressing') return;
        current.phase = 'held';
        suppressTapAftermath();
        callbacks.current.onLongPress();
      }, LONG_PRESS_MS);
      gesture.current = current;
    },
    onPointerMove: (event: PointerEvent<HTMLElement>) => {
      const current = ongoing(event);
      if (!current) return;
      const dx = event.clientX - current.startX;
      const dy = event.clientY - current.startY;
      if (current.phase === 'pressing') {
        if (Math.hypot(dx, dy) < DRAG_SLOP_PX) return;
        if (current.timer !== null) timers.clear(current.timer);
        current.timer = null;
        // Up or down first: the page is scrolling, not the row.
        current.phase = Math.abs(dx) > Math.abs(dy) ? 'swiping' : 'scrolling';
      }
      if (current.phase === 'swiping') setOffset(dx);
    },
    onPointerUp: (event: PointerEvent<HTMLElement>) => {
      const current = ongoing(event);
      if (!current) return;
      const dx = event.clientX - current.startX;
      const swiped = current.phase === 'swiping' && Math.abs(dx) >= current.commitAt;
      end();
      if (!swiped) return;
      suppressTapAftermath();
      if (dx > 0) callbacks.current.onSwipeRight();
      else callbacks.current.onSwipeLeft();
    },
    onPointerCancel: (event: PointerEvent<HTMLElement>) => {
      if (ongoing(event)) end();
    },
  };

  const shown = enabled ? offset : 0;
  return { bind, offset: shown, side: shown > 0 ? 'right' : shown < 0 ? 'left' : null };
}
