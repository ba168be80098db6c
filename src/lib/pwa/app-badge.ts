// The count on Outpost's icon (Badging API): changes waiting to be sent, and tasks assigned to
// the person that are due or overdue. The app keeps it current while open (useAppBadge) and
// the service worker after a background sync, both through showBadge, which works in a page
// and in the worker alike.
import { badgingSupported } from './background-support';

/** What the badge counts. */
export interface BadgeCounts {
  /** Changes queued on this device and not yet on the server. */
  pending: number;
  /** Tasks assigned to the person, not done, due today or earlier (assignedDueCount). */
  assignedDue: number;
}

/** The number on the badge: 0 clears it. */
export function badgeCount({ pending, assignedDue }: BadgeCounts): number {
  return pending + assignedDue;
}

/**
 * Shows `count` on the app's icon, or clears it at 0. Silently does nothing where badges are
 * not supported (or the app is not installed, where browsers refuse): a badge is a hint, never
 * worth an error.
 */
export async function showBadge(count: number): Promise<void> {
  if (!badgingSupported()) return;
  try {
    await (count > 0 ? navigator.setAppBadge(count) : navigator.clearAppBadge());
  } catch {
    // Refused (not installed, a permission policy): the icon keeps what it had.
  }
}
