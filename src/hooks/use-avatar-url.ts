// A profile picture's URL: avatars live in the public `avatars` bucket at
// `{user_id}/…`, so the URL is computed locally (no request) and the browser caches the image.
// supabase-js computes it, so until it has loaded (just after start-up) there is none yet and
// the initials show.
import { useMemo } from 'react';

import { AVATARS_BUCKET } from '@/lib/avatars';
import { useLoadedSupabase } from '@/lib/services';

export function useAvatarUrl(path: string | null | undefined): string | null {
  const supabase = useLoadedSupabase();
  return useMemo(
    () =>
      path && supabase
        ? supabase.storage.from(AVATARS_BUCKET).getPublicUrl(path).data.publicUrl
        : null,
    [supabase, path],
  );
}
