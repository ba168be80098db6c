// Settings' own section navigation: a sticky column of links beside the sections on a wide
// window, a strip that scrolls sideways under the header on a phone (settings.css). The link
// of the section being read carries aria-current; in the strip it is kept in sight.
import { useLayoutEffect, useRef } from 'react';

import { Link } from '@/lib/router';

import { useSectionInView } from '../hooks/use-section-in-view';

export interface SettingsNavProps {
  /** Each section's id and title, in page order. */
  sections: readonly (readonly [id: string, title: string])[];
}

export function SettingsNav({ sections }: SettingsNavProps) {
  const ids = sections.map(([id]) => id);
  const { active, pin } = useSectionInView(ids);
  const list = useRef<HTMLUListElement>(null);

  useLayoutEffect(() => {
    // The strip scrolls sideways to show the current link (the page does not move: only the
    // strip's own scroll is set). The column never overflows, so this does nothing there.
    const strip = list.current;
    const link = strip?.querySelector<HTMLElement>('[aria-current]');
    if (!strip || !link) return;
    const shown = strip.getBoundingClientRect();
    const box = link.getBoundingClientRect();
    if (box.left < shown.left) strip.scrollLeft -= shown.left - box.left;
    else if (box.right > shown.right) strip.scrollLeft += box.right - shown.right;
  }, [active]);

  return (
    <nav aria-label="Settings sections" className="settings-nav">
      <ul ref={list}>
        {sections.map(([id, title]) => (
          <li key={id}>
            <Link
              to={`/settings#${id}`}
              aria-current={active === id ? 'location' : undefined}
              onClick={() => {
                pin(id);
                // The address already names it (linked, then scrolled away from): no change
                // of address to scroll by, so go there here.
                if (decodeURIComponent(location.hash.slice(1)) !== id) return;
                const section = document.getElementById(id);
                section?.scrollIntoView?.({ block: 'start' });
                section?.focus({ preventScroll: true });
              }}
            >
              {title}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
