// /share?id= — where the service worker sends the share sheet's POST once it has kept the
// files (src/sw.ts): reads that share from the device and hands it to the share screen.
import { useCallback, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';

import { clearShares, readShare } from '@/lib/pwa/share-inbox';

import { ShareScreen, type ShareScreenProps } from './share-screen';

export function ShareRoute() {
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const [kept, setKept] = useState<ShareScreenProps['kept']>();
  useEffect(() => {
    let live = true;
    setKept(undefined);
    readShare(id).then(
      (found) => live && setKept(found),
      (error: unknown) => {
        console.error('[outpost] could not read a share', error);
        if (live) setKept(null);
      },
    );
    return () => {
      live = false;
    };
  }, [id]);
  const onAttached = useCallback(() => clearShares(), []);
  return <ShareScreen kept={kept} onAttached={onAttached} />;
}
