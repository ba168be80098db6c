import { useEffect, useState } from 'react';

import { useServices } from '@/lib/services';

/** The current time, re-read every `intervalMs` (for "synced 2 min ago"). */
export function useNow(intervalMs = 15_000): number {
  const { now } = useServices();
  const [time, setTime] = useState(now);
  useEffect(() => {
    const timer = setInterval(() => setTime(now()), intervalMs);
    return () => clearInterval(timer);
  }, [now, intervalMs]);
  return time;
}
