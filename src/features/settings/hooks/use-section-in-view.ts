// Which settings section the reader is at, for the section navigation's aria-current: the one
// linked to (a click in the navigation, or `/settings#sync` from elsewhere) until the reader
// scrolls by hand, else the last one whose top has passed a line near the top of the window.
// Scrolling to a linked section moves the page too, and must not move the mark off it (the
// last sections are too short to reach the top), hence the pin.
import { useEffect, useRef, useState } from 'react';

import { useLocation } from '@/lib/router';

/** A section is the one in view once its top passes this line (share of the window's height). */
export const VIEW_LINE = 0.25;

/** Keys that scroll the page: the reader moving on by hand. */
const SCROLL_KEYS = new Set(['ArrowDown', 'ArrowUp', 'PageDown', 'PageUp', 'Home', 'End', ' ']);

/** The last section whose top is above the line, or the first one while all are below. */
function sectionAtLine(ids: readonly string[]): string | null {
  const line = innerHeight * VIEW_LINE;
  let found = ids[0] ?? null;
  for (const id of ids) {
    const top = document.getElementById(id)?.getBoundingClientRect().top;
    if (top !== undefined && top <= line) found = id;
  }
  return found;
}

/** The section in view among `ids` (in page order), and `pin` for one the reader picked. */
export function useSectionInView(ids: readonly string[]): {
  active: string | null;
  pin: (id: string) => void;
} {
  const { hash } = useLocation();
  const linked = decodeURIComponent(hash.replace(/^#/, ''));
  const [pinned, setPinned] = useState<string | null>(ids.includes(linked) ? linked : null);
  const [inView, setInView] = useState<string | null>(null);
  // A new link to a section (the address changed) pins it, as a click does.
  const [seenHash, setSeenHash] = useState(hash);
  if (seenHash !== hash) {
    setSeenHash(hash);
    if (ids.includes(linked)) setPinned(linked);
  }

  // Read by the listeners, which are set up once.
  const pinnedNow = useRef(pinned);
  useEffect(() => {
    pinnedNow.current = pinned;
  });
  const key = ids.join(' ');
  useEffect(() => {
    const sections = key.split(' ');
    let frame = 0;
    const measure = () => {
      frame = 0;
      setInView(sectionAtLine(sections));
    };
    const onScroll = () => {
      if (!frame) frame = requestAnimationFrame(measure);
    };
    const byHand = () => {
      if (pinnedNow.current !== null) setPinned(null);
    };
    const onKey = (event: KeyboardEvent) => {
      if (SCROLL_KEYS.has(event.key)) byHand();
    };
    onScroll();
    // Sections fill in from the device a moment later and push the others down.
    const resized = new ResizeObserver(onScroll);
    for (const id of sections) {
      const section = document.getElementById(id);
      if (section) resized.observe(section);
    }
    addEventListener('scroll', onScroll, { passive: true });
    addEventListener('resize', onScroll, { passive: true });
    addEventListener('wheel', byHand, { passive: true });
    addEventListener('touchmove', byHand, { passive: true });
    addEventListener('keydown', onKey);
    return () => {
      cancelAnimationFrame(frame);
      resized.disconnect();
      removeEventListener('scroll', onScroll);
      removeEventListener('resize', onScroll);
      removeEventListener('wheel', byHand);
      removeEventListener('touchmove', byHand);
      removeEventListener('keydown', onKey);
    };
  }, [key]);

  return { active: pinned ?? inView, pin: setPinned };
}
