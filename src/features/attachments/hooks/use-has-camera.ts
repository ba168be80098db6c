// Whether this device has a camera, so "Take photo" shows only where it can take one (issue
// 40): a desktop without a webcam gets "Add file" alone. The browser lists its devices'
// kinds without asking for permission (not their names); the answer follows a camera being
// plugged in or out.
import { useEffect, useState } from 'react';

/** False until the device has said it has a camera (and where it cannot say at all). */
export function useHasCamera(): boolean {
  const [hasCamera, setHasCamera] = useState(false);
  useEffect(() => {
    // Missing outside secure contexts (and in older browsers).
    const devices = navigator.mediaDevices as MediaDevices | undefined;
    if (typeof devices?.enumerateDevices !== 'function') return;
    let live = true;
    const check = () => {
      devices.enumerateDevices().then(
        (found) => {
          if (live) setHasCamera(found.some((device) => device.kind === 'videoinput'));
        },
        () => undefined, // refused: no camera to offer
      );
    };
    check();
    devices.addEventListener('devicechange', check);
    return () => {
      live = false;
      devices.removeEventListener('devicechange', check);
    };
  }, []);
  return hasCamera;
}
