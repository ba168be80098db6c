// Whether a POST to /share is the navigation a browser makes for a share from the device's
// share sheet (the manifest's share_target), or a form that another site submitted to it,
// which the worker must not keep (issue 35). It can judge only by what a service worker's
// FetchEvent shows, which is not what the wire carries; what Chromium shows (checked in
// Chromium with a worker that echoed each request):
//
//                             mode      Origin header   referrer      Sec-Fetch-Site (wire)
//   share sheet (OS)          navigate  "null"          ""            none
//   a form of the app's page  navigate  the app's       the page      same-origin
//   another site's form       navigate  its origin      its origin    cross-site / same-site
//   …with no-referrer policy,
//    or from a sandboxed frame navigate  "null"          ""            cross-site
//
// The share sheet's navigation is made by the browser with no initiator (Chromium's
// NavigateShareTargetPost: is_renderer_initiated false, an empty Referrer), so its Origin is
// an opaque origin's "null". Sec-Fetch-* are added by the network stack after the worker, so
// a worker never sees them in Chromium (they are honoured here should a browser show them).
// What follows: another site's form is refused by its Origin (or, in a browser that sends no
// Origin on a POST navigation, by its referrer); a page of the app's own origin is accepted,
// since any script of this origin can write the share inbox (CacheStorage) directly anyway.
// A cross-site form that hides its origin ("null", no referrer) looks, to the worker, exactly
// like the share sheet: it cannot be told apart here (see src/README.md "Share to Outpost").

/** Why a POST to /share was not taken for the share sheet's. */
export type ShareOriginRefusal = 'NOT_NAVIGATION' | 'FOREIGN_ORIGIN';

/** The parts of a FetchEvent's request the judgement reads. */
export type ShareRequestSignals = Pick<Request, 'mode' | 'destination' | 'referrer'> & {
  headers: Pick<Headers, 'get'>;
};

/** The origin of a URL, or null when it is not one. */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** Null when `request` may be the share sheet's; else why it is not taken. */
export function shareOriginRefusal(
  request: ShareRequestSignals,
  ownOrigin: string,
): ShareOriginRefusal | null {
  // A share opens the app: a top-level navigation (not a fetch, not a frame of another page).
  if (request.mode !== 'navigate' || request.destination !== 'document') return 'NOT_NAVIGATION';
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'none' && site !== 'same-origin') return 'FOREIGN_ORIGIN';
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== 'null' && origin !== ownOrigin) return 'FOREIGN_ORIGIN';
  // '' is no referrer; a Request made in script may say 'about:client' (its own page).
  if (request.referrer !== '' && request.referrer !== 'about:client') {
    if (originOf(request.referrer) !== ownOrigin) return 'FOREIGN_ORIGIN';
  }
  return null;
}
