// Profiles of the people the user shares lists with (synced as peers), by user id.
import { useLiveQuery } from 'dexie-react-hooks';

import type { Profile } from '@/data/rows';
import { useServices } from '@/lib/services';

export type { Profile };

export function useProfiles(): ReadonlyMap<string, Profile> {
  const { sync } = useServices();
  return useLiveQuery(() => sync.queries.profiles(), [sync]) ?? EMPTY;
}

const EMPTY: ReadonlyMap<string, Profile> = new Map();

/** A person's name for display: their profile's, else a fallback. */
export function displayName(
  profiles: ReadonlyMap<string, Profile>,
  userId: string | null | undefined,
  fallback = 'Someone',
): string {
  if (!userId) return fallback;
  return profiles.get(userId)?.display_name || fallback;
}
