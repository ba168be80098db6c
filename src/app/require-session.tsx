// Screens with data need someone to own it: an account (even with an expired session) or
// the "use without an account" choice. On first run, the welcome screen.
import { Navigate, Outlet, useLocation } from 'react-router';

import { useSession } from '@/lib/session';

export function RequireSession() {
  const { ready, mode } = useSession();
  const location = useLocation();
  if (!ready) return null; // a few ms: the device database is being opened
  if (mode === 'none') {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/welcome?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}
