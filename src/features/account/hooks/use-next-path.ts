// The `?next=` a screen was sent here with (RequireSession adds it), kept across the
// welcome, sign-in and sign-up screens and only ever a path on this site.
import { useSearchParams } from '@/lib/router';

import { safeNext } from '@/lib/next-path';

export function useNextPath(): {
  /** Where to go once there is a session (or local-only use). */
  next: string;
  /** `?next=…` to append to links between the account screens ('' when there is none). */
  query: string;
} {
  const [params] = useSearchParams();
  const raw = params.get('next');
  const next = safeNext(raw);
  const query = raw && next === raw ? `?next=${encodeURIComponent(raw)}` : '';
  return { next, query };
}
