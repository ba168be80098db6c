// GoTrue's admin API as hosted answers it, on both engines: who may call it (401/403 with
// GoTrue's codes), user listing with its paging headers, creating, reading, updating, banning
// and deleting users, a user's MFA factors, generate_link for every link kind (links that
// /verify accepts), and /invite through the devstack's mailbox. Each test states the status,
// the headers that matter and the body (the original error shape: {code, error_code, msg}).
import { createHash } from 'node:crypto';

import bcrypt from 'bcryptjs';
import { beforeEach, describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { TestClock } from '../support/devstack';
import {
  authCall,
  devstackPerEngine,
  gotrueError as error,
  uniqueEmail as freshEmail,
  type Reply,
} from './support';

const uniqueEmail = (tag = 'admin') => freshEmail(tag);

const sha224 = (text: string) => createHash('sha224').update(text).digest('hex');
const UNKNOWN_ID = '83fd9e20-7a80-46e4-bf29-a86e3d6bbf66';

describe.each(ENGINE_KINDS)('GoTrue admin API (%s)', (kind) => {
  const clock = new TestClock();
  const stack = devstackPerEngine(kind, {
    clock,
    auth: { enableConfirmations: false, doubleConfirmChanges: true },
  });
  beforeEach(() => clock.advance(1_000));

  /** A request to /auth/v1 as the secret key (the service_role), unless `token` says else. */
  function call(
    method: string,
    path: string,
    init: { body?: unknown; token?: string | null; apikey?: string } = {},
  ): Promise<Reply> {
    return authCall(stack, method, path, {
      apikey: init.apikey ?? stack.secretKey,
      token: init.token === undefined ? stack.secretKey : init.token,
      body: init.body,
    });
  }

  async function createUser(body: Record<string, unknown>): Promise<Reply['body']> {
    const reply = await call('POST', '/admin/users', { body });
    expect(reply.status).toBe(200);
    return reply.body;
  }

  describe('who may call it', () => {
    it('takes the secret key and JWTs of the admin roles, refuses everyone else', async () => {
      expect((await call('GET', '/admin/users?per_page=1')).status).toBe(200);
      const serviceRole = await stack.keys.sign({ role: 'service_role' }, 60);
      expect((await call('GET', '/admin/users?per_page=1', { token: serviceRole })).status).toBe(
        200,
      );
      // The harness's admin JWT: role supabase_admin, a sub that is no user, no session.
      const supabaseAdmin = await stack.keys.sign({ role: 'supabase_admin', sub: '1234' }, 60);
      expect((await call('GET', '/admin/users?per_page=1', { token: supabaseAdmin })).status).toBe(
        200,
      );

      const noBearer = await call('GET', '/admin/users', { token: null });
      expect(noBearer).toMatchObject({
        status: 401,
        body: error(401, 'no_authorization', 'This endpoint requires a valid Bearer token'),
      });
      const publishable = await call('GET', '/admin/users', {
        apikey: stack.publishableKey,
        token: stack.publishableKey,
      });
      expect(publishable).toMatchObject({
        status: 403,
        body: error(403, 'not_admin', 'User not allowed'),
      });
      const garbage = await call('POST', '/invite', { token: 'not-a-jwt', body: {} });
      expect(garbage.status).toBe(403);
      expect(garbage.body).toMatchObject({ code: 403, error_code: 'bad_jwt' });

      const email = uniqueEmail();
      await createUser({ email, password: 'user-password', email_confirm: true });
      const signIn = await call('POST', '/token?grant_type=password', {
        apikey: stack.publishableKey,
        token: stack.publishableKey,
        body: { email, password: 'user-password' },
      });
      const userToken = String(signIn.body.access_token);
      for (const [method, path] of [
        ['GET', '/admin/users'],
        ['POST', '/admin/generate_link'],
        ['POST', '/invite'],
      ] as const) {
        const reply = await call(method, path, {
          apikey: stack.publishableKey,
          token: userToken,
          body: method === 'POST' ? { email } : undefined,
        });
        expect(reply).toMatchObject({
          status: 403,
          body: error(403, 'not_admin', 'User not allowed'),
        });
      }
    });

    it('answers the OAuth server and custom providers as switched off', async () => {
      expect(await call('GET', '/admin/oauth/clients')).toMatchObject({
        status: 404,
        body: error(404, 'feature_disabled', 'OAuth server is disabled'),
      });
      expect(await call('POST', '/admin/custom-providers', { body: {} })).toMatchObject({
        status: 404,
        body: error(404, 'feature_disabled', 'Custom OAuth providers are disabled'),
      });
      // Behind the admin check, as in GoTrue's router.
      const anon = await call('GET', '/admin/oauth/clients', {
        apikey: stack.publishableKey,
        token: stack.publishableKey,
      });
      expect(anon.status).toBe(403);
    });

    it('answers in the 2024-01-01 shape when asked', async () => {
      const response = await fetch(`${stack.url}/auth/v1/admin/users/${UNKNOWN_ID}`, {
        headers: {
          apikey: stack.secretKey,
          Authorization: `Bearer ${stack.secretKey}`,
          'X-Supabase-Api-Version': '2024-01-01',
        },
      });
      expect(response.status).toBe(404);
      expect(response.headers.get('x-supabase-api-version')).toBe('2024-01-01');
      expect(await response.json()).toEqual({ code: 'user_not_found', message: 'User not found' });
    });
  });

  describe('creating users', () => {
    it('creates a user as GoTrue does: providers, metadata merge, role, confirmation', async () => {
      const email = uniqueEmail();
      const id = '5e7c0000-0000-4000-8000-00000000a001';
      const user = await createUser({
        id,
        email: email.toUpperCase(),
        phone: '+1 555 0100 001',
        password: 'x',
        email_confirm: true,
        role: 'authenticated',
        user_metadata: { name: 'Ada' },
        app_metadata: { provider: 'custom', plan: 'pro' },
      });
      expect(user).toMatchObject({
        id,
        aud: 'authenticated',
        role: 'authenticated',
        email,
        phone: '15550100001',
        app_metadata: { provider: 'custom', providers: ['email', 'phone'], plan: 'pro' },
        user_metadata: { name: 'Ada', email_verified: true },
        is_anonymous: false,
      });
      expect(typeof user.email_confirmed_at).toBe('string');
      expect(user).not.toHaveProperty('phone_confirmed_at');
      const identities = user.identities as { provider: string; identity_data: unknown }[];
      expect(identities.map((i) => i.provider).sort()).toEqual(['email', 'phone']);
      expect(identities.find((i) => i.provider === 'email')?.identity_data).toEqual({
        sub: id,
        email,
        email_verified: false,
        phone_verified: false,
      });
      // Admin-created passwords skip the strength rules; the user signs in with it.
      const signIn = await call('POST', '/token?grant_type=password', {
        apikey: stack.publishableKey,
        token: stack.publishableKey,
        body: { email, password: 'x' },
      });
      expect(signIn.status).toBe(200);
    });

    it('takes a bcrypt password_hash, and bans from the start', async () => {
      const email = uniqueEmail();
      const hash = bcrypt.hashSync('hashed-secret', 4);
      const user = await createUser({ email, password_hash: hash, ban_duration: '1h30m' });
      expect(user.banned_until).toBe(new Date(clock.now() + 90 * 60_000).toISOString());
      expect(user).not.toHaveProperty('email_confirmed_at');
      const row = await stack.db.query<{ encrypted_password: string }>(
        `select encrypted_password from auth.users where id::text = $1`,
        [String(user.id)],
      );
      expect(row.rows[0]?.encrypted_password).toBe(hash);
    });

    it.each([
      [{}, 400, 'validation_failed', 'Cannot create a user without either an email or phone'],
      [
        { email: 'xx:;x@x.x' },
        400,
        'validation_failed',
        'Unable to validate email address: invalid format',
      ],
      [
        { phone: '12-ab' },
        400,
        'validation_failed',
        'Invalid phone number format (E.164 required)',
      ],
      [
        { email: 'both@example.com', password: 'a', password_hash: '$2a$10$x' },
        400,
        'validation_failed',
        'Only a password or a password hash should be provided',
      ],
      [
        { email: 'badid@example.com', id: 'not-a-uuid' },
        400,
        'validation_failed',
        'ID must conform to the uuid v4 format',
      ],
      [
        { email: 'nilid@example.com', id: '00000000-0000-0000-0000-000000000000' },
        400,
        'validation_failed',
        'ID cannot be a nil uuid',
      ],
      [
        { email: 'ban@example.com', ban_duration: '1d' },
        400,
        'validation_failed',
        'invalid format for ban duration: time: unknown unit "d" in duration "1d"',
      ],
      [
        { email: 'long@example.com', password: 'p'.repeat(73) },
        400,
        'validation_failed',
        'bcrypt: password length exceeds 72 bytes',
      ],
    ])('refuses %j with %i %s', async (body, status, code, msg) => {
      const reply = await call('POST', '/admin/users', { body });
      expect(reply).toMatchObject({ status, body: error(status, code, msg) });
    });

    it('refuses a wrong JSON type, a taken address and a taken phone', async () => {
      const typed = await call('POST', '/admin/users', { body: { email: 42 } });
      expect(typed.status).toBe(400);
      expect(typed.body).toMatchObject({ code: 400, error_code: 'bad_json' });

      const email = uniqueEmail();
      await createUser({ email, phone: '15550100002' });
      const again = await call('POST', '/admin/users', { body: { email: email.toUpperCase() } });
      expect(again).toMatchObject({
        status: 422,
        body: error(
          422,
          'email_exists',
          'A user with this email address has already been registered',
        ),
      });
      const phone = await call('POST', '/admin/users', {
        body: { email: uniqueEmail(), phone: '+15550100002' },
      });
      expect(phone).toMatchObject({
        status: 422,
        body: error(422, 'phone_exists', 'Phone number already registered by another user'),
      });
    });
  });

  describe('listing users', () => {
    it('pages with Link and X-Total-Count, newest first, {users, aud}', async () => {
      const tag = `page${Date.now().toString(36)}`;
      const emails: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const email = uniqueEmail(tag);
        emails.push(email);
        await createUser({ email });
        clock.advance(1_000);
      }
      const first = await call('GET', `/admin/users?per_page=1&filter=${tag}`);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-total-count')).toBe('3');
      expect(first.headers.get('link')).toBe(
        `</admin/users?filter=${tag}&page=2&per_page=1>; rel="next", ` +
          `</admin/users?filter=${tag}&page=3&per_page=1>; rel="last"`,
      );
      expect(first.body.aud).toBe('authenticated');
      const emailsOf = (reply: Reply) =>
        (reply.body.users as { email: string }[]).map((u) => u.email);
      expect(emailsOf(first)).toEqual([emails[2]]);
      // Listed users come without their relations, as GoTrue loads none for a list.
      expect(first.body.users).toEqual([expect.objectContaining({ identities: null })]);

      const last = await call('GET', `/admin/users?page=3&per_page=1&filter=${tag}`);
      expect(emailsOf(last)).toEqual([emails[0]]);
      expect(last.headers.get('link')).toBe(
        `</admin/users?filter=${tag}&page=3&per_page=1>; rel="last"`,
      );
      const oldestFirst = await call('GET', `/admin/users?filter=${tag}&sort=created_at%20asc`);
      expect(emailsOf(oldestFirst)).toEqual(emails);
    });

    it('refuses bad paging and sorting', async () => {
      const page = await call('GET', '/admin/users?page=-1&per_page=10');
      expect(page).toMatchObject({
        status: 400,
        body: error(
          400,
          'validation_failed',
          'Bad Pagination Parameters: strconv.ParseUint: parsing "-1": invalid syntax',
        ),
      });
      const sort = await call('GET', '/admin/users?sort=email');
      expect(sort).toMatchObject({
        status: 400,
        body: error(400, 'validation_failed', "Bad Sort Parameters: bad field for sort 'email'"),
      });
    });
  });

  describe('one user', () => {
    it('answers 404 for a malformed or unknown id on every user route', async () => {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const bad = await call(method, '/admin/users/not-a-uuid', {
          body: method === 'PUT' ? {} : undefined,
        });
        expect(bad).toMatchObject({
          status: 404,
          body: error(404, 'validation_failed', 'user_id must be an UUID'),
        });
        const unknown = await call(method, `/admin/users/${UNKNOWN_ID}`, {
          body: method === 'PUT' ? {} : undefined,
        });
        expect(unknown).toMatchObject({
          status: 404,
          body: error(404, 'user_not_found', 'User not found'),
        });
      }
      const factors = await call('GET', `/admin/users/${UNKNOWN_ID}/factors`);
      expect(factors.status).toBe(404);
    });

    it('updates metadata by merging, confirms, changes role, email and password', async () => {
      const email = uniqueEmail();
      const created = await createUser({
        email,
        password: 'first-password',
        user_metadata: { a: 1, b: 2 },
        app_metadata: { roles: ['x'] },
      });
      const id = String(created.id);
      const newEmail = uniqueEmail();
      const reply = await call('PUT', `/admin/users/${id}`, {
        body: {
          email: newEmail,
          email_confirm: true,
          role: 'editor',
          password: 'second-password',
          user_metadata: { a: null, c: 3 },
          app_metadata: { roles: ['admin', 'publisher'], provider: null },
        },
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({
        id,
        email: newEmail,
        role: 'editor',
        user_metadata: { b: 2, c: 3, email_verified: true },
        app_metadata: { providers: ['email'], roles: ['admin', 'publisher'] },
      });
      expect(reply.body.app_metadata).not.toHaveProperty('provider');
      expect(typeof reply.body.email_confirmed_at).toBe('string');

      const got = await call('GET', `/admin/users/${id}`);
      expect(got.body).toEqual(reply.body);

      const weak = await call('PUT', `/admin/users/${id}`, { body: { password: '123' } });
      expect(weak.status).toBe(422);
      expect(weak.body).toMatchObject({ code: 422, error_code: 'weak_password' });
    });

    it('bans and lifts a ban: sign-in and tokens refused while it holds', async () => {
      const email = uniqueEmail();
      const created = await createUser({ email, password: 'banned-password', email_confirm: true });
      const id = String(created.id);
      const signIn = () =>
        call('POST', '/token?grant_type=password', {
          apikey: stack.publishableKey,
          token: stack.publishableKey,
          body: { email, password: 'banned-password' },
        });
      const session = await signIn();
      const accessToken = String(session.body.access_token);

      const banned = await call('PUT', `/admin/users/${id}`, { body: { ban_duration: '24h' } });
      expect(banned.body.banned_until).toBe(new Date(clock.now() + 86_400_000).toISOString());
      expect(await signIn()).toMatchObject({
        status: 400,
        body: error(400, 'user_banned', 'User is banned'),
      });
      const me = await call('GET', '/user', { apikey: stack.publishableKey, token: accessToken });
      expect(me).toMatchObject({ status: 403, body: error(403, 'user_banned', 'User is banned') });

      const lifted = await call('PUT', `/admin/users/${id}`, { body: { ban_duration: 'none' } });
      expect(lifted.body).not.toHaveProperty('banned_until');
      expect((await signIn()).status).toBe(200);
    });

    it('deletes for good, or softly (obfuscated, sessions gone)', async () => {
      const hard = await createUser({ email: uniqueEmail() });
      const gone = await call('DELETE', `/admin/users/${String(hard.id)}`);
      expect(gone).toMatchObject({ status: 200, body: {} });
      expect((await call('GET', `/admin/users/${String(hard.id)}`)).status).toBe(404);

      const email = uniqueEmail();
      const soft = await createUser({ email, user_metadata: { name: 'x' } });
      const id = String(soft.id);
      const deleted = await call('DELETE', `/admin/users/${id}`, {
        body: { should_soft_delete: true },
      });
      expect(deleted).toMatchObject({ status: 200, body: {} });
      const after = await call('GET', `/admin/users/${id}`);
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject({
        id,
        user_metadata: {},
        app_metadata: {},
        email: createHash('sha256')
          .update(id + email)
          .digest('base64url'),
      });
      expect(typeof after.body.deleted_at).toBe('string');
      // The address is free again.
      await createUser({ email });
    });
  });

  describe('factors', () => {
    it('lists, renames and deletes a user’s factors', async () => {
      const user = await createUser({ email: uniqueEmail() });
      const id = String(user.id);
      expect(await call('GET', `/admin/users/${id}/factors`)).toMatchObject({
        status: 200,
        body: [],
      });
      const factorId = '5e7c0000-0000-4000-8000-0000000fac01';
      await stack.db.query(
        `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status,
           created_at, updated_at, secret)
         values ($1::uuid, $2::uuid, 'phone app', 'totp', 'verified', now(), now(), 'S')`,
        [factorId, id],
      );
      const listed = await call('GET', `/admin/users/${id}/factors`);
      expect(listed.body).toEqual([
        expect.objectContaining({
          id: factorId,
          friendly_name: 'phone app',
          factor_type: 'totp',
          status: 'verified',
        }),
      ]);
      const renamed = await call('PUT', `/admin/users/${id}/factors/${factorId}`, {
        body: { friendly_name: 'new name' },
      });
      expect(renamed.body).toMatchObject({ id: factorId, friendly_name: 'new name' });
      expect((await call('GET', `/admin/users/${id}`)).body.factors).toHaveLength(1);

      expect(await call('DELETE', `/admin/users/${id}/factors/not-a-uuid`)).toMatchObject({
        status: 404,
        body: error(404, 'validation_failed', 'factor_id must be an UUID'),
      });
      expect(await call('DELETE', `/admin/users/${id}/factors/${UNKNOWN_ID}`)).toMatchObject({
        status: 404,
        body: error(404, 'mfa_factor_not_found', 'Factor not found'),
      });
      const removed = await call('DELETE', `/admin/users/${id}/factors/${factorId}`);
      expect(removed.body).toMatchObject({ id: factorId, friendly_name: 'new name' });
      expect((await call('GET', `/admin/users/${id}/factors`)).body).toEqual([]);
    });
  });

  describe('generate_link', () => {
    const redirectTo = 'http://localhost:9999/welcome';

    /** Opens a link as a browser would: the session (or error) in the redirect's fragment. */
    async function open(link: string): Promise<URLSearchParams> {
      const response = await fetch(link, { redirect: 'manual' });
      expect(response.status).toBe(303);
      return new URLSearchParams((response.headers.get('location') ?? '').split('#')[1] ?? '');
    }

    it('makes a signup link: the user, the link and its token, which /verify accepts', async () => {
      const email = uniqueEmail();
      const reply = await call('POST', '/admin/generate_link', {
        body: {
          type: 'signup',
          email,
          password: 'signup-password',
          data: { status: 'alpha' },
          redirect_to: redirectTo,
        },
      });
      expect(reply.status).toBe(200);
      const otp = String(reply.body.email_otp);
      expect(otp).toMatch(/^\d{6}$/);
      expect(reply.body).toMatchObject({
        email,
        user_metadata: { status: 'alpha' },
        hashed_token: sha224(email + otp),
        verification_type: 'signup',
        redirect_to: redirectTo,
      });
      expect(reply.body).not.toHaveProperty('email_confirmed_at');
      expect(reply.body.action_link).toBe(
        `${stack.url}/auth/v1/verify?token=${sha224(email + otp)}&type=signup` +
          `&redirect_to=${redirectTo}`,
      );
      const fragment = await open(String(reply.body.action_link));
      expect(fragment.get('type')).toBe('signup');
      expect(fragment.get('access_token')).toBeTruthy();

      const again = await call('POST', '/admin/generate_link', {
        body: { type: 'signup', email, password: 'signup-password' },
      });
      expect(again).toMatchObject({
        status: 422,
        body: error(
          422,
          'email_exists',
          'A user with this email address has already been registered',
        ),
      });
    });

    it('makes invite, magiclink and recovery links that sign in', async () => {
      const invited = uniqueEmail();
      const invite = await call('POST', '/admin/generate_link', {
        body: { type: 'invite', email: invited },
      });
      expect(invite.body).toMatchObject({ email: invited, verification_type: 'invite' });
      expect(typeof invite.body.invited_at).toBe('string');
      expect((await open(String(invite.body.action_link))).get('type')).toBe('invite');

      for (const type of ['magiclink', 'recovery']) {
        clock.advance(61_000);
        const reply = await call('POST', '/admin/generate_link', {
          body: { type, email: invited },
        });
        expect(reply.body.verification_type).toBe(type);
        expect(String(reply.body.action_link)).toContain(`&type=${type}&`);
        expect((await open(String(reply.body.action_link))).get('access_token')).toBeTruthy();
      }

      // A magic link for an unknown address signs it up instead.
      const stranger = uniqueEmail();
      const magic = await call('POST', '/admin/generate_link', {
        body: { type: 'magiclink', email: stranger },
      });
      expect(magic.body).toMatchObject({ email: stranger, verification_type: 'signup' });
    });

    it('makes email change links for the current and the new address', async () => {
      const email = uniqueEmail();
      await createUser({ email, email_confirm: true });
      const newEmail = uniqueEmail();
      const current = await call('POST', '/admin/generate_link', {
        body: { type: 'email_change_current', email, new_email: newEmail },
      });
      expect(current.body).toMatchObject({ email, new_email: newEmail });
      expect(String(current.body.action_link)).toContain(
        `token=${sha224(email + String(current.body.email_otp))}&type=email_change&`,
      );
      const next = await call('POST', '/admin/generate_link', {
        body: { type: 'email_change_new', email, new_email: newEmail },
      });
      // The link carries the new address's token; hashed_token is of the current address.
      expect(next.body.hashed_token).toBe(sha224(email + String(next.body.email_otp)));
      expect(String(next.body.action_link)).toContain(
        `token=${sha224(newEmail + String(next.body.email_otp))}&type=email_change&`,
      );

      const taken = uniqueEmail();
      await createUser({ email: taken });
      const dup = await call('POST', '/admin/generate_link', {
        body: { type: 'email_change_new', email, new_email: taken },
      });
      expect(dup.status).toBe(422);
      expect(dup.body).toMatchObject({ error_code: 'email_exists' });
    });

    it.each([
      [{ type: 'signup' }, 400, 'validation_failed', 'An email address is required'],
      [
        { type: 'signup', email: 'xx:;x@x.x', password: 'password123' },
        400,
        'validation_failed',
        'Unable to validate email address: invalid format',
      ],
      [
        { type: 'signup', email: 'nopass@example.com' },
        400,
        'validation_failed',
        'Signup requires a valid password',
      ],
      [
        { type: 'recovery', email: 'nobody-here@example.com' },
        404,
        'user_not_found',
        'User with this email not found',
      ],
      [
        { type: 'email_change_new', email: 'nobody-here@example.com', new_email: 'a@b.co' },
        404,
        'user_not_found',
        'User with this email not found',
      ],
      [
        { type: 'teleport', email: 'teleport@example.com' },
        400,
        'validation_failed',
        'Invalid email action link type requested: teleport',
      ],
    ])('refuses %j with %i %s', async (body, status, code, msg) => {
      const reply = await call('POST', '/admin/generate_link', { body });
      expect(reply).toMatchObject({ status, body: error(status, code, msg) });
    });
  });

  describe('invite', () => {
    it('creates an invited user and mails a link that /verify accepts', async () => {
      const email = uniqueEmail();
      const reply = await call('POST', '/invite?redirect_to=http%3A%2F%2Flocalhost%3A9999%2Fin', {
        body: { email, data: { team: 'blue' } },
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({
        email,
        user_metadata: { team: 'blue' },
        app_metadata: { provider: 'email', providers: ['email'] },
      });
      expect(typeof reply.body.invited_at).toBe('string');
      expect(reply.body).not.toHaveProperty('email_confirmed_at');

      const viewer = `${stack.url}/_devstack/mail/api/v1`;
      const search = await fetch(`${viewer}/search?query=${encodeURIComponent(`to:${email}`)}`);
      const { messages } = (await search.json()) as { messages: { ID: string; Subject: string }[] };
      expect(messages.map((m) => m.Subject)).toEqual(["You've been invited"]);
      const mail = (await (await fetch(`${viewer}/message/${messages[0]?.ID ?? ''}`)).json()) as {
        HTML: string;
      };
      const link = (/href="([^"]*)"/.exec(mail.HTML)?.[1] ?? '').replace(/&amp;/g, '&');
      // GoTrue escapes redirect_to only when it holds &, = or #.
      expect(link).toContain('&type=invite&redirect_to=http://localhost:9999/in');
      const response = await fetch(link, { redirect: 'manual' });
      const location = response.headers.get('location') ?? '';
      expect(location.startsWith('http://localhost:9999/in#access_token=')).toBe(true);

      const confirmed = await call('POST', '/invite', { body: { email } });
      expect(confirmed).toMatchObject({
        status: 422,
        body: error(
          422,
          'email_exists',
          'A user with this email address has already been registered',
        ),
      });
      const invalid = await call('POST', '/invite', { body: { email: 'xx:;x@x.x' } });
      expect(invalid).toMatchObject({
        status: 400,
        body: error(400, 'validation_failed', 'Unable to validate email address: invalid format'),
      });
    });
  });
});
