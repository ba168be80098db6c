// The `avatars` bucket (supabase/migrations/…_avatars.sql) through unmodified supabase-js on
// both engines: a user writes only under their own folder, the bucket's size and type
// limits hold, and anyone (no session) reads a picture through its public URL.
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import {
  SEED,
  signedInDemoClient,
  startTestDevstack,
  type TestDevstack,
} from '../support/devstack';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7, 7, 7]);

/** The storage error a supabase-js call surfaced: its statusCode from the body. */
function statusCodeOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'statusCode' in error) {
    return String(error.statusCode);
  }
  return undefined;
}

describe.each(ENGINE_KINDS)('avatars bucket on %s', (kind) => {
  let stack: TestDevstack;
  let alice: SupabaseClient;
  let bob: SupabaseClient;

  beforeAll(async () => {
    stack = await startTestDevstack(kind);
    alice = await signedInDemoClient(stack, 'alice');
    bob = await signedInDemoClient(stack, 'bob');
  });

  afterAll(async () => {
    await stack.stop();
  });

  it('is public with a 2 MiB limit and image types only', async () => {
    const { rows } = await stack.db.query<{
      public: boolean;
      limit: number;
      types: string[];
    }>(
      `select public, file_size_limit::int as limit, allowed_mime_types as types
       from storage.buckets where id = 'avatars'`,
    );
    expect(rows[0]).toEqual({
      public: true,
      limit: 2 * 1024 * 1024,
      types: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'],
    });
  });

  it('lets alice upload into her own folder and serves it to anyone at its public URL', async () => {
    const path = `${SEED.alice}/avatar.png`;
    const up = await alice.storage.from('avatars').upload(path, PNG, { contentType: 'image/png' });
    expect(up.error).toBeNull();
    expect(up.data).toMatchObject({ path });

    // No session at all: the public URL is enough.
    const url = stack.client().storage.from('avatars').getPublicUrl(path).data.publicUrl;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG);

    // She may replace her own picture (upsert goes through the update policy).
    const replacement = Uint8Array.from([...PNG, 1, 2, 3]);
    const again = await alice.storage
      .from('avatars')
      .upload(path, replacement, { contentType: 'image/png', upsert: true });
    expect(again.error).toBeNull();
    const after = await fetch(url);
    expect(new Uint8Array(await after.arrayBuffer())).toEqual(replacement);
  });

  it("refuses alice's upload into bob's folder (RLS, 403)", async () => {
    const path = `${SEED.bob}/avatar-${Date.now()}.png`;
    const up = await alice.storage.from('avatars').upload(path, PNG, { contentType: 'image/png' });
    expect(statusCodeOf(up.error)).toBe('403');
    expect(up.error?.message).toBe('new row violates row-level security policy');
    expect((await bob.storage.from('avatars').exists(path)).data).toBe(false);

    // Nor at the bucket's root, outside any user's folder, nor as an anonymous caller.
    const root = await alice.storage
      .from('avatars')
      .upload(`avatar-${Date.now()}.png`, PNG, { contentType: 'image/png' });
    expect(statusCodeOf(root.error)).toBe('403');
    const anon = await stack
      .client()
      .storage.from('avatars')
      .upload(`${SEED.alice}/anon.png`, PNG, { contentType: 'image/png' });
    expect(anon.error).not.toBeNull();
  });

  it('refuses a 3 MiB picture (413) and a text file (415)', async () => {
    const big = new Uint8Array(3 * 1024 * 1024).fill(1);
    const tooBig = await alice.storage
      .from('avatars')
      .upload(`${SEED.alice}/big.png`, big, { contentType: 'image/png' });
    expect(statusCodeOf(tooBig.error)).toBe('413');
    const text = await alice.storage
      .from('avatars')
      .upload(`${SEED.alice}/note.txt`, 'hello', { contentType: 'text/plain' });
    expect(statusCodeOf(text.error)).toBe('415');
    const listed = await alice.storage.from('avatars').list(SEED.alice);
    expect(listed.data?.map((entry) => entry.name)).not.toEqual(
      expect.arrayContaining(['big.png']),
    );
    expect(listed.data?.map((entry) => entry.name)).not.toEqual(
      expect.arrayContaining(['note.txt']),
    );
  });

  // Issue 14 item 1: the public URL is on the API origin, with no session needed, so a
  // picture must never be served as a document there.
  it('refuses a hostile Content-Type and never serves a public object as a page', async () => {
    const html = '<script>document.title = "pwned"</script>';
    for (const type of ['image/png;,text/html', 'image/png ; x=1, text/html', 'image/svg+xml']) {
      const up = await alice.storage
        .from('avatars')
        .upload(`${SEED.alice}/hostile-${Date.now()}.png`, html, { contentType: type });
      expect([type, statusCodeOf(up.error)]).toEqual([type, '415']);
    }

    const good = `${SEED.alice}/good-${Date.now()}.png`;
    await alice.storage.from('avatars').upload(good, PNG, { contentType: 'image/png' });
    const goodUrl = stack.client().storage.from('avatars').getPublicUrl(good).data.publicUrl;
    const shown = await fetch(goodUrl);
    await shown.arrayBuffer();
    expect(shown.headers.get('content-type')).toBe('image/png');
    expect(shown.headers.get('x-content-type-options')).toBe('nosniff');
    expect(shown.headers.get('content-disposition')).toBeNull();

    // An object already stored with a hostile type (before these rules) goes out as opaque
    // bytes to download, on the public URL and its HEAD alike.
    const old = `${SEED.alice}/old-${Date.now()}.png`;
    await alice.storage.from('avatars').upload(old, html, { contentType: 'image/png' });
    await stack.db.query(
      `update storage.objects set metadata = jsonb_set(metadata, '{mimetype}', $2)
       where bucket_id = 'avatars' and name = $1`,
      [old, JSON.stringify('image/png;,text/html')],
    );
    const oldUrl = stack.client().storage.from('avatars').getPublicUrl(old).data.publicUrl;
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(oldUrl, { method });
      await res.arrayBuffer();
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const missing = await fetch(`${goodUrl}-missing`);
    await missing.arrayBuffer();
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("does not let bob delete alice's picture; alice can", async () => {
    const path = `${SEED.alice}/avatar-${Date.now()}.webp`;
    const up = await alice.storage.from('avatars').upload(path, PNG, { contentType: 'image/webp' });
    expect(up.error).toBeNull();

    const byBob = await bob.storage.from('avatars').remove([path]);
    expect(byBob.data).toEqual([]);
    expect((await alice.storage.from('avatars').exists(path)).data).toBe(true);
    const url = stack.client().storage.from('avatars').getPublicUrl(path).data.publicUrl;
    expect((await fetch(url)).status).toBe(200);

    // Nor overwrite it.
    const overwrite = await bob.storage
      .from('avatars')
      .upload(path, PNG, { contentType: 'image/webp', upsert: true });
    expect(overwrite.error).not.toBeNull();

    const byAlice = await alice.storage.from('avatars').remove([path]);
    expect(byAlice.data?.map((row) => row.name)).toEqual([path]);
    expect((await fetch(url)).status).toBe(400);
  });
});
