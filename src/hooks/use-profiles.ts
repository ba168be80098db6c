// Profiles of the people the user shares lists with (synced as peers), by user id.
import { useLiveQuery } from 'dexie-react-hooks';

import { useServices } from '@/lib/services';

export interface Profile {
  id: string;
  display_name: string;
  avatar_path: string | null;
}

export function useProfiles(): ReadonlyMap<string, Profile> {
  const { sync } = useServices();
  return (
    useLiveQuery(async () => {
      const rows = await sync.db.rows('profiles').toArray();
      return new Map(
        rows
          .filter((row) => !row.deleted_at)
          .map((row) => [
            row.id,
            {
              id: row.id,
              display_name: typeof row.display_name === 'string' ? row.display_name : '',
              avatar_path: typeof row.avatar_path === 'string' ? row.avatar_path : null,
            },
          ]),
      );
    }, [sync]) ?? EMPTY
  );
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
