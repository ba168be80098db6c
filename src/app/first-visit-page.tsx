// The page a browser's very first visit paints before the app has loaded (src/boot/first-visit.ts):
// the frame and the welcome screen as the app renders them at its address, which sends a
// device nobody uses from '/' to '/welcome?next=%2Flists'. The build renders it to HTML
// (scripts/first-visit.ts) into index.html; first-visit-page.test.tsx holds it to what the
// app renders there.
import { Router } from 'wouter';

import { FIRST_VISIT_NEXT } from '@/boot/first-visit';
import { Welcome } from '@/features/account/components/welcome-screen';

import { AppFrame } from './app-frame';

/** The `?next=` the app's welcome screen has after a first visit's redirects. */
export const FIRST_VISIT_QUERY = `?next=${encodeURIComponent(FIRST_VISIT_NEXT)}`;

export function FirstVisitPage() {
  return (
    <Router ssrPath="/welcome" ssrSearch={FIRST_VISIT_QUERY.slice(1)}>
      <AppFrame mode="none" main={<Welcome query={FIRST_VISIT_QUERY} />} />
    </Router>
  );
}
