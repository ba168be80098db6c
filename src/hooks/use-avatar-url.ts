// A profile picture's URL: avatars live in the public `avatars` bucket at
// `{user_id}/…`, so the URL is computed locally (no request) and the browser caches the image.
import { useMemo } from 'react';

import { useServices } from '@/lib/services';

/** Bucket of profile pictures (supabase/migrations/…_avatars.sql). */
export const AVATARS_BUCKET = 'avatars';

export function useAvatarUrl(path: string | null | undefined): string | null {
  const { supabase } = useServices();
  return useMemo(
    () => (path ? supabase.storage.from(AVATARS_BUCKET).getPublicUrl(path).data.publicUrl : null),
    [supabase, path],
  );
}
