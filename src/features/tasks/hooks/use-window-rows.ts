// The task list virtualised against the window's scroll: only the rows near the viewport are in
// the DOM, so 10,000 tasks stay smooth. Rows have a fixed height, the device's density's
// (useRowHeight); what has to be found out is where the list starts on the page.
import { useWindowVirtualizer, windowScroll, type Virtualizer } from '@tanstack/react-virtual';
import {
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type RefObject,
} from 'react';

import { ROW_HEIGHTS, useDensity, type Density } from '@/hooks/use-density';

import type { TaskRow } from '../task-filter';

/** A screen whose main pointer is a finger: rows are taller, and swipe. */
const TOUCH_QUERY = '(pointer: coarse)';

/** Rows rendered beyond each edge of the viewport (keeps j/k and Tab on rendered rows). */
const OVERSCAN_ROWS = 8;
/**
 * Rows beyond each edge in a list's first render: the rows in sight are all a new screen has
 * to show before its first paint, and the rest come in the next task (issue 40: rows half as
 * tall put twice as many in the overscan, and on the screen's critical path).
 */
const FIRST_OVERSCAN_ROWS = 0;

/** The list's distance from the top of the page when last measured (useWindowRows). */
let lastScrollMargin = 0;

/** What the list's hooks ask of its virtualiser: to bring a row, rendered or not, into view. */
export type RowScroller = Pick<Virtualizer<Window, Element>, 'scrollToIndex'>;

/**
 * The virtualiser's window scroll, less the one to where the window already is: it makes that
 * one as it mounts, and a scroll makes the browser lay out the page first, within React's
 * commit (20–33 ms in a new tab, the page's first layout, which then came before its rows were
 * in the DOM for the browser's own). Its idea of where the window is follows every scroll event.
 */
const scrollWindowUnlessThere: typeof windowScroll = (offset, options, instance) => {
  const there = offset === instance.scrollOffset && !options.adjustments;
  if (there && options.behavior !== 'smooth') return;
  windowScroll(offset, options, instance);
};

function subscribeTouch(onChange: () => void): () => void {
  if (typeof matchMedia !== 'function') return () => undefined;
  const query = matchMedia(TOUCH_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** Whether the main pointer is a finger (never where the browser cannot say), live. */
export function useTouchScreen(): boolean {
  return useSyncExternalStore(
    subscribeTouch,
    () => typeof matchMedia === 'function' && matchMedia(TOUCH_QUERY).matches,
    () => false,
  );
}

export interface RowSize {
  density: Density;
  /** A row's height (px). */
  height: number;
  touch: boolean;
}

/** How tall the task rows are: the device's density, taller for a finger. */
export function useRowSize(): RowSize {
  const density = useDensity();
  const touch = useTouchScreen();
  return { density, height: ROW_HEIGHTS[density][touch ? 'touch' : 'fine'], touch };
}

/** The virtualiser of the list in `listRef`, whose rows are `rows`, each `rowHeight` tall. */
export function useWindowRows(
  listRef: RefObject<HTMLElement | null>,
  rows: readonly TaskRow[],
  rowHeight: number,
) {
  const [scrollMargin, setScrollMargin] = useState(() => lastScrollMargin);
  const [overscan, setOverscan] = useState(FIRST_OVERSCAN_ROWS);
  useEffect(() => {
    // After the frame that paints the first render (a timer set in that frame's callback).
    let timer = 0;
    const frame = requestAnimationFrame(() => {
      timer = window.setTimeout(() => setOverscan(OVERSCAN_ROWS));
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, []);

  // The list's distance from the top of the page, for the window virtualiser. What is above
  // it (a validation message, the "Added" line, a wrapped header) can change it, and any such
  // change resizes the screen, so the screen's size is watched. Read in the observer's
  // callbacks, which come once the browser has laid the page out (the first one before the
  // first paint), not in the layout effect: a read there made the browser lay out the whole
  // page an extra time, within React's commit (11–32 ms in a new tab), and the new margin
  // then rendered the rows again. Until the first reading, the last list's margin stands; the
  // reading comes before the first paint, so a first render off by a few rows is put right
  // before anything is seen.
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const observer = new ResizeObserver(() => {
      lastScrollMargin = Math.round(list.getBoundingClientRect().top + window.scrollY);
      setScrollMargin(lastScrollMargin);
    });
    observer.observe(list.closest('section') ?? document.body);
    return () => observer.disconnect();
  }, [listRef]);

  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: () => rowHeight,
    overscan,
    scrollMargin,
    getItemKey: (index) => rows[index]?.id ?? index,
    // The window's size from the first render, so that it has its rows: the virtualiser
    // measures the window in an effect, and until then it rendered none.
    initialRect: { width: window.innerWidth, height: window.innerHeight },
    scrollToFn: scrollWindowUnlessThere,
  });

  // A new density: the rows it has laid out are each a new height.
  const laidOut = useRef(rowHeight);
  useLayoutEffect(() => {
    if (laidOut.current === rowHeight) return;
    laidOut.current = rowHeight;
    virtualizer.measure();
  }, [virtualizer, rowHeight]);

  return virtualizer;
}
