// Which POSTs to /share the worker takes for the share sheet's: what Chromium's worker sees
// for the share sheet and for the app's own page is taken; another site's form is refused by
// its Origin or its referrer, as are fetches and frames; the refusal page keeps nothing of
// the request in it.
import { describe, expect, it } from 'vitest';

import { shareOriginRefusal, type ShareRequestSignals } from './share-origin';
import { shareRefusedResponse } from './share-refused';

const APP = 'https://outpost.example';

function request(
  headers: Record<string, string>,
  { mode = 'navigate', destination = 'document', referrer = '' } = {},
): ShareRequestSignals {
  return {
    mode: mode as RequestMode,
    destination: destination as RequestDestination,
    referrer,
    headers: new Headers(headers),
  };
}

describe('shareOriginRefusal', () => {
  it('takes the share sheet’s navigation: no initiator, so Origin "null" and no referrer', () => {
    expect(shareOriginRefusal(request({ origin: 'null' }), APP)).toBeNull();
    // Where a browser shows Fetch Metadata to the worker, and where it sends no Origin.
    expect(shareOriginRefusal(request({ 'sec-fetch-site': 'none', origin: 'null' }), APP)).toBe(
      null,
    );
    expect(shareOriginRefusal(request({}), APP)).toBeNull();
  });

  it('takes a form of the app’s own page', () => {
    expect(
      shareOriginRefusal(request({ origin: APP }, { referrer: `${APP}/lists/1` }), APP),
    ).toBeNull();
    expect(
      shareOriginRefusal(request({ 'sec-fetch-site': 'same-origin', origin: APP }), APP),
    ).toBeNull();
  });

  it('refuses another site’s form, by its Origin, its referrer or its Fetch Metadata', () => {
    const cases: ShareRequestSignals[] = [
      request({ origin: 'https://evil.example' }, { referrer: 'https://evil.example/' }),
      request({ origin: 'https://evil.example' }),
      // Same site, another origin: still not the app.
      request({ origin: 'https://sub.outpost.example' }),
      request({ origin: 'http://outpost.example' }),
      // A browser that sends no Origin on a POST navigation still sends the referrer.
      request({}, { referrer: 'https://evil.example/page' }),
      request({ origin: 'null' }, { referrer: 'https://evil.example/page' }),
      request({ origin: APP }, { referrer: 'not a url' }),
      request({ 'sec-fetch-site': 'cross-site', origin: 'null' }),
      request({ 'sec-fetch-site': 'same-site', origin: APP }),
    ];
    for (const [index, signals] of cases.entries()) {
      expect(shareOriginRefusal(signals, APP), `case ${index}`).toBe('FOREIGN_ORIGIN');
    }
  });

  it('refuses what is not a top-level navigation', () => {
    expect(shareOriginRefusal(request({ origin: APP }, { mode: 'cors' }), APP)).toBe(
      'NOT_NAVIGATION',
    );
    expect(shareOriginRefusal(request({ origin: APP }, { mode: 'same-origin' }), APP)).toBe(
      'NOT_NAVIGATION',
    );
    expect(shareOriginRefusal(request({ origin: 'null' }, { destination: 'iframe' }), APP)).toBe(
      'NOT_NAVIGATION',
    );
  });
});

describe('shareRefusedResponse', () => {
  it('says why and that nothing was kept, as a page that runs and loads nothing', async () => {
    const response = shareRefusedResponse('FOREIGN_ORIGIN');
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toContain('<h1>Not added to Outpost</h1>');
    expect(html).toContain('not by your device’s share sheet');
    expect(html).toContain('Nothing of it was kept on this device.');
    expect(html).toContain('<a href="/lists">Go to your lists</a>');
    expect(shareRefusedResponse('TOO_LARGE').status).toBe(413);
    expect(shareRefusedResponse('MALFORMED').status).toBe(400);
    expect(shareRefusedResponse('NOT_MULTIPART').status).toBe(415);
  });
});
