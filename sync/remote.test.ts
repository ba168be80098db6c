// The Remote's edge, against the installed supabase-js over a scripted fetch (no server): what
// sync_push, sync_pull, auth and storage answer is checked before the engine reads it (a
// malformed answer is a SERVER_ERROR naming where it did not fit), failures are classified by
// their fields, and storage's 403 (a policy's refusal, or a token it could not verify: the
// same answer) is believed only after the session was renewed.
import { describe, expect, it, vi } from 'vitest';

import {
  authTestClient,
  jsonResponse,
  memoryStorage,
  scriptedFetch,
  type ScriptedAnswer,
} from '../tests/support/auth-client';
import { SyncError } from './errors';
import { supabaseRemote } from './remote';
import { storageRequest, type StorageAnswer } from './requests';

const STORAGE_KEY = 'remote-test';
const USER_ID = '0b7d4c57-0000-4000-8000-000000000001';

/** A session as supabase-js stores it (and as the token endpoint answers one). */
function session(refreshToken: string, user: Record<string, unknown> = { id: USER_ID }) {
  const expiresIn = 3600;
  return {
    access_token: `header.${refreshToken}.signature`,
    token_type: 'bearer',
    expires_in: expiresIn,
    expires_at: Math.floor(Date.now() / 1000) + expiresIn,
    refresh_token: refreshToken,
    user: { email: 'alice@example.com', ...user },
  };
}

/** A Remote over a signed-in supabase-js client whose server answers `answers`, in order. */
function remoteAnswering(answers: ScriptedAnswer[], user?: Record<string, unknown>) {
  const storage = memoryStorage();
  storage.setItem(STORAGE_KEY, JSON.stringify(session('refresh-1', user)));
  const { fetch, requests } = scriptedFetch(answers);
  const supabase = authTestClient(storage, fetch, STORAGE_KEY);
  return { remote: supabaseRemote(supabase), requests };
}

/** The SyncError `work` rejects with. */
async function failureOf(work: Promise<unknown>): Promise<SyncError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof SyncError)) throw new Error(`expected a SyncError, got ${String(error)}`);
  return error;
}

const row = (id: string, version: number, extra: Record<string, unknown> = {}) => ({
  id,
  version,
  ...extra,
});

describe("sync_push's answer", () => {
  it('comes through as the engine reads it: refusal facts, and rows with every column', async () => {
    const answer = {
      last_seq: 3,
      results: [
        // An applied result is not compacted by the server: an unseen row is null.
        { seq: 1, status: 'applied', row: null },
        { seq: 2, status: 'applied', row: row('t-2', 4, { title: 'Kept', notes: null }) },
        {
          seq: 3,
          status: 'rejected',
          code: 'P0001',
          message: 'a list must keep at least one owner',
          hint: 'LAST_OWNER',
          column: 'role',
          constraint: 'memberships_role_check',
          replayed: true,
          row: row('m-3', 2, { role: 'owner' }),
        },
      ],
    };
    const { remote, requests } = remoteAnswering([jsonResponse(200, answer)]);
    expect(await remote.push('client-1', [])).toEqual(answer);
    expect(requests.map((r) => r.path)).toEqual(['/rest/v1/rpc/sync_push']);
  });

  it.each([
    ['no answer', null, 'answer'],
    ['no results', { last_seq: 1 }, 'results'],
    ['results not a list', { last_seq: 1, results: {} }, 'results'],
    [
      'a status it does not know',
      { last_seq: 1, results: [{ seq: 1, status: 'ok' }] },
      'results.0.status',
    ],
    ['a seq as text', { last_seq: 1, results: [{ seq: '1', status: 'applied' }] }, 'results.0.seq'],
    [
      'a rule code that is not text',
      { last_seq: 1, results: [{ seq: 1, status: 'rejected', hint: 7 }] },
      'results.0.hint',
    ],
    [
      'a row without an id',
      { last_seq: 1, results: [{ seq: 1, status: 'applied', row: { version: 1 } }] },
      'results.0.row.id',
    ],
    [
      'a row at version 0',
      { last_seq: 1, results: [{ seq: 1, status: 'applied', row: row('t', 0) }] },
      'results.0.row.version',
    ],
  ])('is a SERVER_ERROR when malformed: %s', async (_, answer, where) => {
    const { remote } = remoteAnswering([jsonResponse(200, answer)]);
    const failure = await failureOf(remote.push('client-1', []));
    expect(failure.code).toBe('SERVER_ERROR');
    expect(failure.transient).toBe(true);
    expect(failure.message).toContain(`sync_push answered in an unexpected shape (${where}:`);
  });

  it('is classified by status and PostgREST code when the request fails', async () => {
    const { remote } = remoteAnswering([
      jsonResponse(401, { code: 'PGRST303', message: 'JWT expired', details: null, hint: null }),
      jsonResponse(400, { code: '54000', message: 'a push carries at most 1 MiB' }),
      'network-error',
    ]);
    expect(await failureOf(remote.push('client-1', []))).toMatchObject({
      code: 'AUTH_EXPIRED',
      serverCode: 'PGRST303',
    });
    expect(await failureOf(remote.push('client-1', []))).toMatchObject({
      code: 'SERVER_ERROR',
      serverCode: '54000',
    });
    expect((await failureOf(remote.push('client-1', []))).code).toBe('OFFLINE');
  });
});

describe("sync_pull's answer", () => {
  const page = {
    rows: [
      { table: 'tasks', row: row('t-1', 3, { title: 'A', deleted_at: null }) },
      { table: 'lists', row: row('l-1', 1, { name: 'L', color: 'blue' }) },
    ],
    cursor: '42/tasks/41/t-1',
    has_more: false,
    schema_version: 1,
  };

  it('comes through with every column of every row', async () => {
    const { remote } = remoteAnswering([jsonResponse(200, page)]);
    expect(await remote.pull(null, 1000)).toEqual(page);
  });

  it.each([
    ['no cursor', { ...page, cursor: null }, 'cursor'],
    ['no has_more', { ...page, has_more: undefined }, 'has_more'],
    ['no schema_version', { ...page, schema_version: '1' }, 'schema_version'],
    ['rows not a list', { ...page, rows: null }, 'rows'],
    ['a row without its table', { ...page, rows: [{ row: row('t', 1) }] }, 'rows.0.table'],
    [
      'a version as text',
      { ...page, rows: [{ table: 't', row: { id: 't', version: '2' } }] },
      'rows.0.row.version',
    ],
    [
      'a fractional version',
      { ...page, rows: [{ table: 't', row: row('t', 1.5) }] },
      'rows.0.row.version',
    ],
  ])('is a SERVER_ERROR when malformed: %s', async (_, answer, where) => {
    const { remote } = remoteAnswering([jsonResponse(200, answer)]);
    const failure = await failureOf(remote.pull(null, 1000));
    expect(failure.code).toBe('SERVER_ERROR');
    expect(failure.message).toContain(`sync_pull answered in an unexpected shape (${where}:`);
  });
});

describe('the session', () => {
  it("gives the user's id, and a SERVER_ERROR for a session whose user id is not text", async () => {
    expect(await remoteAnswering([]).remote.userId()).toBe(USER_ID);
    const failure = await failureOf(remoteAnswering([], { id: 42 }).remote.userId());
    expect(failure).toMatchObject({ code: 'SERVER_ERROR' });
    expect(failure.message).toContain('auth answered in an unexpected shape');
  });

  it("reports a session's changes with its user's id, and none for an id that is not text", async () => {
    /** The ids reported for a stored session of `user` (its INITIAL_SESSION, and any more). */
    const seen = async (user: Record<string, unknown>) => {
      const { remote } = remoteAnswering([], user);
      const ids: (string | null)[] = [];
      const stop = remote.onAuthChange((id) => ids.push(id));
      await vi.waitFor(() => expect(ids.length).toBeGreaterThan(0));
      stop();
      return [...new Set(ids)];
    };
    expect(await seen({ id: USER_ID })).toEqual([USER_ID]);
    expect(await seen({ id: 42 })).toEqual([null]);
  });
});

/** Hosted storage's answer to a token it could not verify and to a policy's refusal alike. */
const accessDenied = (message: string) =>
  jsonResponse(400, { statusCode: '403', code: 'AccessDenied', error: 'Unauthorized', message });
const uploaded = () => jsonResponse(200, { Id: 'object-1', Key: 'attachments/a/b.png' });
const refreshed = () => jsonResponse(200, session('refresh-2'));
const UPLOAD_PATH = '/storage/v1/object/attachments/a/b.png';
const TOKEN_PATH = '/auth/v1/token?grant_type=refresh_token';
const png = () => new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' });

describe("storage's 403, believed only from a renewed token", () => {
  it('renews the session once and uploads again: an expired token is no refusal', async () => {
    const { remote, requests } = remoteAnswering([
      accessDenied('jwt expired'),
      refreshed(),
      uploaded(),
    ]);
    await remote.upload('attachments', 'a/b.png', png());
    expect(requests.map((r) => r.path)).toEqual([UPLOAD_PATH, TOKEN_PATH, UPLOAD_PATH]);
    // The second upload carried the renewed token.
    expect(requests[2]?.authorization).toBe('Bearer header.refresh-2.signature');
  });

  it('is PERMISSION_DENIED when the renewed token is refused too, whatever the words', async () => {
    const { remote, requests } = remoteAnswering([
      accessDenied('jwt expired'),
      refreshed(),
      accessDenied('jwt expired'),
    ]);
    const failure = await failureOf(remote.upload('attachments', 'a/b.png', png()));
    expect(failure).toMatchObject({ code: 'PERMISSION_DENIED', status: 403 });
    expect(requests.map((r) => r.path)).toEqual([UPLOAD_PATH, TOKEN_PATH, UPLOAD_PATH]);
  });

  it('is AUTH_EXPIRED when the session cannot be renewed', async () => {
    const { remote, requests } = remoteAnswering([
      accessDenied('new row violates row-level security policy'),
      jsonResponse(400, { code: 'refresh_token_not_found', message: 'Invalid Refresh Token' }),
    ]);
    expect(await failureOf(remote.upload('attachments', 'a/b.png', png()))).toMatchObject({
      code: 'AUTH_EXPIRED',
      status: 403,
    });
    expect(requests.map((r) => r.path)).toEqual([UPLOAD_PATH, TOKEN_PATH]);
  });

  it("passes on a renewal's own failure (the network's) and sends nothing more", async () => {
    let sent = 0;
    const refused: StorageAnswer<string> = {
      data: null,
      error: { message: 'jwt expired', status: 400, statusCode: '403' },
    };
    const send = () => {
      sent += 1;
      return Promise.resolve(refused);
    };
    const offline = () => Promise.reject(new SyncError('OFFLINE', 'fetch failed'));
    expect((await failureOf(storageRequest(send, offline))).code).toBe('OFFLINE');
    expect(sent).toBe(1);
  });

  it('gives a signed URL after renewing the session', async () => {
    const { remote, requests } = remoteAnswering([
      accessDenied('"exp" claim timestamp check failed'),
      refreshed(),
      jsonResponse(200, { signedURL: '/object/sign/attachments/a/b.png?token=t' }),
    ]);
    expect(await remote.signedUrl('attachments', 'a/b.png', 60)).toBe(
      'http://auth.test/storage/v1/object/sign/attachments/a/b.png?token=t',
    );
    expect(requests.map((r) => r.path)).toEqual([
      '/storage/v1/object/sign/attachments/a/b.png',
      TOKEN_PATH,
      '/storage/v1/object/sign/attachments/a/b.png',
    ]);
  });

  it('asks no renewal for any other failure', async () => {
    let refreshes = 0;
    const refresh = () => {
      refreshes += 1;
      return Promise.resolve(true);
    };
    const answer = (statusCode: string): StorageAnswer<string> => ({
      data: null,
      error: { message: 'no', status: 400, statusCode },
    });
    for (const [statusCode, code] of [
      ['413', 'FILE_TOO_LARGE'],
      ['415', 'FILE_TYPE'],
      ['401', 'AUTH_EXPIRED'],
      ['404', 'VALIDATION_FAILED'],
      ['503', 'SERVER_ERROR'],
    ] as const) {
      const failure = await failureOf(
        storageRequest(() => Promise.resolve(answer(statusCode)), refresh),
      );
      expect(failure.code).toBe(code);
    }
    expect(refreshes).toBe(0);
    expect(await storageRequest(() => Promise.resolve({ data: 'ok', error: null }), refresh)).toBe(
      'ok',
    );
  });
});

describe('the cleanup nudge', () => {
  it("is classified by the function's status, or the failed fetch", async () => {
    const { remote } = remoteAnswering([
      jsonResponse(503, { error: { code: 'SERVER_ERROR', message: 'down' } }),
      jsonResponse(401, { code: 'UNAUTHORIZED_INVALID_JWT', message: 'JWT expired' }),
      'network-error',
    ]);
    expect((await failureOf(remote.cleanupDeletedFiles())).code).toBe('SERVER_ERROR');
    expect((await failureOf(remote.cleanupDeletedFiles())).code).toBe('AUTH_EXPIRED');
    expect((await failureOf(remote.cleanupDeletedFiles())).code).toBe('OFFLINE');
  });
});

describe('a client still loading (SupabaseSource: the promise of it)', () => {
  /** A Remote over the promise of a signed-in client, and the way to make the client come. */
  function remoteBeforeClient(answers: ScriptedAnswer[]) {
    const storage = memoryStorage();
    storage.setItem(STORAGE_KEY, JSON.stringify(session('refresh-1')));
    const { fetch, requests } = scriptedFetch(answers);
    let resolve: (client: ReturnType<typeof authTestClient>) => void = () => undefined;
    const loading = new Promise<ReturnType<typeof authTestClient>>((settle) => (resolve = settle));
    const load = () => resolve(authTestClient(storage, fetch, STORAGE_KEY));
    return { remote: supabaseRemote(loading), requests, load };
  }

  it('sends a request once the client has come, and answers it as usual', async () => {
    const page = { rows: [], cursor: '7', has_more: false, schema_version: 1 };
    const { remote, requests, load } = remoteBeforeClient([jsonResponse(200, page)]);
    let answered = false;
    const pulled = remote.pull(null, 1000).then((answer) => {
      answered = true;
      return answer;
    });
    await Promise.resolve();
    expect(requests).toHaveLength(0);
    expect(answered).toBe(false);
    load();
    expect(await pulled).toEqual(page);
    expect(requests).toHaveLength(1);
  });

  it('follows the session from when the client comes, and never once left before', async () => {
    const early = remoteBeforeClient([]);
    const ids: (string | null)[] = [];
    early.remote.onAuthChange((id) => ids.push(id));
    const left = remoteBeforeClient([]);
    const leftIds: (string | null)[] = [];
    left.remote.onAuthChange((id) => leftIds.push(id))();
    early.load();
    left.load();
    await vi.waitFor(() => expect(ids).toContain(USER_ID));
    // The one that left before the client came was never subscribed (its userId() still works).
    expect(await left.remote.userId()).toBe(USER_ID);
    expect(leftIds).toEqual([]);
  });
});

describe('a renewal of the realtime token (refreshRealtimeAuth)', () => {
  /** The client and Remote of remoteAnswering, with the client's realtime token in view. */
  function realtimeAnswering(answers: ScriptedAnswer[]) {
    const storage = memoryStorage();
    storage.setItem(STORAGE_KEY, JSON.stringify(session('refresh-1')));
    const { fetch, requests } = scriptedFetch(answers);
    const supabase = authTestClient(storage, fetch, STORAGE_KEY);
    return { supabase, remote: supabaseRemote(supabase), requests };
  }

  it('renews the session and hands the new access token to realtime', async () => {
    const { supabase, remote, requests } = realtimeAnswering([refreshed()]);
    await supabase.realtime.setAuth();
    expect(supabase.realtime.accessTokenValue).toBe('header.refresh-1.signature');
    await remote.refreshRealtimeAuth?.();
    expect(requests.map((r) => r.path)).toEqual([TOKEN_PATH]);
    // realtime-js sends this on every joined channel as `access_token` (it sends only a change).
    expect(supabase.realtime.accessTokenValue).toBe('header.refresh-2.signature');
  });

  it('hands realtime nothing when the session cannot be renewed', async () => {
    const { supabase, remote } = realtimeAnswering([
      jsonResponse(400, { code: 'refresh_token_not_found', message: 'Invalid Refresh Token' }),
    ]);
    await supabase.realtime.setAuth();
    const setAuth = vi.spyOn(supabase.realtime, 'setAuth');
    await remote.refreshRealtimeAuth?.();
    expect(setAuth).not.toHaveBeenCalled();
  });
});
