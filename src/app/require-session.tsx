// Screens with data need someone to own it: an account (even with an expired session) or
// the "use without an account" choice. On first run, the welcome screen.
import type { ReactNode } from 'react';

import { Redirect, useLocation } from '@/lib/router';
import { useSession } from '@/lib/session';

export function RequireSession({ children }: { children: ReactNode }) {
  const { ready, mode } = useSession();
  const location = useLocation();
  if (!ready) return null; // a few ms: the device database is being opened
  if (mode === 'none') {
    const next = `${location.pathname}${location.search}`;
    return <Redirect to={`/welcome?next=${encodeURIComponent(next)}`} replace />;
  }
  return children;
}
