// An attachment's bytes as an object URL for <img> and links: from this device when it has
// them, else downloaded once (and kept) by the sync library. Always settles: a file that is
// neither here nor reachable becomes `unavailable`, never an endless spinner.
//
// The bytes' type is never the one storage served: a member can upload HTML labelled
// `image/png;,text/html`, and a blob: URL of that type opened here is a page on our origin,
// with the session in reach. The Blob is remade with the row's own mime_type, which the
// database and the sync layer both hold to the allowed list.
import { useEffect, useState } from 'react';

import { ATTACHMENT_MIME_TYPES } from '@/data/schema';
import { useOnline } from '@/hooks/use-online';
import { useServices } from '@/lib/services';

/** How long a download may take before the screen gives up and offers a retry (ms). */
export const ATTACHMENT_LOAD_TIMEOUT_MS = 20_000;

export type AttachmentView =
  | { status: 'loading' }
  | { status: 'ready'; url: string }
  /** `offline`: the device has no network, so the placeholder says when it will come. */
  | { status: 'unavailable'; offline: boolean };

/** What a type outside the allowed list becomes: bytes a browser will not render. */
const OPAQUE_TYPE = 'application/octet-stream';

/** The Blob type to use for an attachment: its row's type when allowed, else opaque. */
export function trustedAttachmentType(mimeType: string): string {
  return (ATTACHMENT_MIME_TYPES as readonly string[]).includes(mimeType) ? mimeType : OPAQUE_TYPE;
}

interface Loaded {
  key: string;
  url: string | null;
}

export function useAttachmentUrl(
  attachmentId: string,
  /** The attachment row's mime_type; the bytes get this type, whatever they came with. */
  mimeType: string,
): {
  view: AttachmentView;
  retry: () => void;
} {
  const { sync } = useServices();
  const online = useOnline();
  const [tries, setTries] = useState(0);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const key = `${attachmentId}:${tries}`;
  const unavailable = loaded?.key === key && loaded.url === null;
  // Coming back online is a new attempt, so "Available when online" keeps its word (state
  // adjusted while rendering, as React recommends, rather than in an effect).
  const [wasOnline, setWasOnline] = useState(online);
  if (online !== wasOnline) {
    setWasOnline(online);
    if (online && unavailable) setTries((n) => n + 1);
  }

  useEffect(() => {
    let cancelled = false;
    let url: string | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ATTACHMENT_LOAD_TIMEOUT_MS);
    });
    Promise.race([sync.attachmentBlob(attachmentId), timeout])
      .catch(() => undefined)
      .then((blob) => {
        clearTimeout(timer);
        if (cancelled) return;
        if (blob) {
          try {
            // slice() relabels the same bytes without copying them.
            url = URL.createObjectURL(blob.slice(0, blob.size, trustedAttachmentType(mimeType)));
          } catch {
            url = null; // not a Blob after all (a damaged record): show the placeholder
          }
        }
        setLoaded({ key, url });
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
      clearTimeout(timer);
      if (url) URL.revokeObjectURL(url);
    };
  }, [sync, attachmentId, mimeType, key]);

  const view: AttachmentView =
    loaded?.key !== key
      ? { status: 'loading' }
      : loaded.url
        ? { status: 'ready', url: loaded.url }
        : { status: 'unavailable', offline: !online };
  return { view, retry: () => setTries((n) => n + 1) };
}
