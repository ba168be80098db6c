// /share?id= — where the service worker sends the share sheet's POST once it has kept the
// files (src/sw.ts): reads that share from the device and hands it to the share screen.
import { useCallback, useEffect, useState } from 'react';

import { clearShares } from '@/lib/pwa/share-cache';
import { readShare } from '@/lib/pwa/share-inbox';
import { useSearchParams } from '@/lib/router';

import { ShareScreen, type ShareScreenProps } from './share-screen';

export function ShareRoute() {
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  // What was read, with the id it was read for (another id is still being read).
  const [read, setRead] = useState<{ id: string; kept: ShareScreenProps['kept'] }>();
  useEffect(() => {
    let live = true;
    readShare(id).then(
      (kept) => live && setRead({ id, kept }),
      (error: unknown) => {
        console.error('[outpost] could not read a share', error);
        if (live) setRead({ id, kept: null });
      },
    );
    return () => {
      live = false;
    };
  }, [id]);
  const onAttached = useCallback(() => clearShares(), []);
  return <ShareScreen kept={read?.id === id ? read.kept : undefined} onAttached={onAttached} />;
}
