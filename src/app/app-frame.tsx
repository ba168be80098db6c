// The app's frame as markup, apart from what it does (layout.tsx): the build renders it too,
// around the welcome screen, for a browser's first visit (first-visit-page.tsx), so it imports
// nothing but the router's link.
import type { ReactNode, RefObject } from 'react';

import { Link } from '@/lib/router';
import type { SessionMode } from '@/lib/session';

/**
 * The frame's own markup: skip link, header (brand, `status`, the "?" button), the
 * navigation, the screen in <main>, then `children` (the overlays).
 */
export function AppFrame({
  mode,
  status,
  onHelp,
  mainRef,
  navigation,
  main,
  children,
}: {
  mode: SessionMode;
  /** The sync status, once the device is someone's. */
  status?: ReactNode;
  onHelp?: () => void;
  mainRef?: RefObject<HTMLElement | null>;
  navigation?: ReactNode;
  main: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className={mode === 'none' ? 'app' : 'app app--nav'}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/lists" className="app-header__brand">
          <img src="/icon.svg" alt="" width={24} height={24} />
          {/* Beside the navigation on a phone, the word gives way (the icon stays). */}
          <span className={mode === 'none' ? undefined : 'app-header__brand-text--collapsible'}>
            Outpost
          </span>
        </Link>
        {/* Takes the free space, so the status and "?" sit at the right, signed in or not. */}
        <span className="app-header__spacer" />
        {status}
        <button
          type="button"
          className="app-header__help"
          aria-label="Keyboard shortcuts"
          title="Keyboard shortcuts (?)"
          onClick={onHelp}
        >
          ?
        </button>
      </header>
      {navigation}
      <main id="main" ref={mainRef} tabIndex={-1} className="app-main">
        {main}
      </main>
      {children}
    </div>
  );
}
