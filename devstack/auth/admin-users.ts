// GoTrue's admin user endpoints (internal/api/admin.go): GET /admin/users with page/per_page,
// its Link and X-Total-Count headers; POST /admin/users; GET, PUT and DELETE
// /admin/users/:user_id. Each answers with GoTrue's statuses and messages; the routes are
// registered by registerAdminRoutes (admin-routes.ts) behind requireAdmin.
import bcrypt from 'bcryptjs';
import type { Context, Hono } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import { parseJsonText } from '../json';
import { sqlState, type SqlParam } from '../sql-engine';
import {
  adminErrors,
  adminTransaction,
  adminUserJson,
  banDuration,
  boolField,
  loadUser,
  mapField,
  mergeMetadata,
  NIL_UUID,
  requestAud,
  stringField,
  stringPointerField,
  validatePhone,
} from './admin-auth';
import {
  ban,
  confirmEmail,
  customId,
  emailTaken,
  insertIdentity,
  passwordHashFor,
  phoneTaken,
  softDelete,
} from './admin-user-store';
import { authErrors } from './errors';
import { checkPasswordStrength, readJsonBody, validateEmail } from './route-kit';
import { isJsonObject, jsonObject, type JsonObject } from './users';

/** GoTrue's defaultPerPage. */
const DEFAULT_PER_PAGE = 50;

/** Go's strconv.ParseUint, with its error text. */
function parseUint(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new Error(`strconv.ParseUint: parsing "${raw}": invalid syntax`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) {
    throw new Error(`strconv.ParseUint: parsing "${raw}": value out of range`);
  }
  return value;
}

/** GoTrue's sort(): `sort=created_at [asc|desc]`, default created_at desc. */
function sortClause(c: Context): string {
  const values = c.req.queries('sort');
  if (!values || values.length === 0) return 'created_at desc';
  return values
    .map((value) => {
      const space = value.indexOf(' ');
      const field = space < 0 ? value : value.slice(0, space);
      const dir = space < 0 ? undefined : value.slice(space + 1);
      if (field !== 'created_at') {
        throw authErrors.validation(`Bad Sort Parameters: bad field for sort '${field}'`);
      }
      const upper = dir?.toUpperCase();
      if (dir !== undefined && upper !== 'ASC' && upper !== 'DESC') {
        throw authErrors.validation(
          `Bad Sort Parameters: bad direction for sort '${dir}', only 'asc' and 'desc' allowed`,
        );
      }
      return `created_at ${upper === 'ASC' ? 'asc' : 'desc'}`;
    })
    .join(', ');
}

/** GoTrue's addPaginationHeaders: the path as GoTrue sees it, query keys sorted (Go's Encode). */
function paginationLinks(c: Context, page: number, perPage: number, total: number): string {
  const pages = perPage === 0 ? 0 : Math.ceil(total / perPage);
  const url = new URL(c.req.url);
  const params = new URLSearchParams(url.search);
  const path = url.pathname.replace(/^\/auth\/v1(?=\/)/, '');
  const link = (p: number) => {
    params.set('page', String(p));
    const sorted = [...params.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `<${path}?${new URLSearchParams(sorted).toString()}>`;
  };
  let header = '';
  if (pages > page) header += `${link(page + 1)}; rel="next", `;
  header += `${link(pages)}; rel="last"`;
  return header;
}

/** GoTrue's AdminUserParams: the fields that creating and updating a user read alike. */
function userParams(body: Parameters<typeof stringField>[0]) {
  return {
    rawEmail: stringField(body, 'email'),
    rawPhone: stringField(body, 'phone'),
    role: stringField(body, 'role'),
    emailConfirm: boolField(body, 'email_confirm'),
    phoneConfirm: boolField(body, 'phone_confirm'),
    userMetadata: mapField(body, 'user_metadata'),
    appMetadata: mapField(body, 'app_metadata'),
  };
}

export function registerAdminUserRoutes(app: Hono, ctx: DevstackContext): void {
  const now = () => sqlNow(ctx.clock);

  app.get('/admin/users', async (c) => {
    const aud = requestAud(c);
    const order = sortClause(c);
    let page = 1;
    let perPage = DEFAULT_PER_PAGE;
    try {
      const rawPage = c.req.query('page') ?? '';
      const rawPerPage = c.req.query('per_page') ?? '';
      if (rawPage !== '') page = parseUint(rawPage);
      if (rawPerPage !== '') perPage = parseUint(rawPerPage);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw authErrors.validation(`Bad Pagination Parameters: ${detail}`);
    }
    // pop's paginator: page < 1 reads as 1, per_page < 1 as 20.
    const offsetPage = Math.max(page, 1);
    const limit = perPage < 1 ? 20 : perPage;
    const filter = c.req.query('filter') ?? '';
    const where = `instance_id = '${NIL_UUID}' and aud = $1
      and ($2::text = '' or email like '%' || $2::text || '%'
        or raw_user_meta_data->>'full_name' ilike '%' || $2::text || '%')`;
    const { rows: counted } = await ctx.db.query<{ total: number }>(
      `select count(*)::int as total from auth.users where ${where}`,
      [aud, filter],
    );
    const total = counted[0]?.total ?? 0;
    const { rows } = await ctx.db.query<{ id: string }>(
      `select id::text as id from auth.users where ${where} order by ${order}, id
       limit $3 offset $4`,
      [aud, filter, limit, (offsetPage - 1) * limit],
    );
    const users: JsonObject[] = [];
    for (const { id } of rows) {
      // GoTrue lists users without loading their relations: identities null, no factors.
      const json = await adminUserJson(ctx.db, await loadUser(ctx.db, id));
      delete json.factors;
      users.push({ ...json, identities: null });
    }
    c.header('Link', paginationLinks(c, page, perPage, total));
    c.header('X-Total-Count', String(total));
    return c.json({ users, aud });
  });

  app.post('/admin/users', async (c) => {
    const body = await readJsonBody(c);
    const aud = stringField(body, 'aud') || requestAud(c);
    const { rawEmail, rawPhone, role, emailConfirm, phoneConfirm, userMetadata, appMetadata } =
      userParams(body);
    if (rawEmail === '' && rawPhone === '') {
      throw authErrors.validation('Cannot create a user without either an email or phone');
    }
    const providers: string[] = [];
    let email: string | null = null;
    if (rawEmail !== '') {
      email = validateEmail(rawEmail);
      if (await emailTaken(ctx.db, email, aud)) throw adminErrors.emailExists();
      providers.push('email');
    }
    let phone: string | null = null;
    if (rawPhone !== '') {
      phone = validatePhone(rawPhone);
      if (await phoneTaken(ctx.db, phone, aud)) throw adminErrors.phoneExists();
      providers.push('phone');
    }
    const hash = await passwordHashFor(ctx, body);
    const id = customId(body);
    const banMs = banDuration(body);

    const at = now();
    // A taken id (or an address taken by a racing request): GoTrue's transaction fails.
    const created = await adminTransaction(
      ctx.db,
      'Database error creating new user',
      async (tx) => {
        const app = mergeMetadata(
          { provider: providers[0] ?? 'email', providers },
          appMetadata ?? {},
        );
        const { rows } = await tx.query<{ id: string }>(
          `insert into auth.users (instance_id, id, aud, role, email, phone, encrypted_password,
             raw_app_meta_data, raw_user_meta_data, created_at, updated_at, confirmation_token,
             recovery_token, email_change_token_new, email_change, is_anonymous)
           values ($1, coalesce($2::uuid, gen_random_uuid()), $3, $4, $5, $6, $7, $8::jsonb,
             $9::jsonb, $10::timestamptz, $10::timestamptz, '', '', '', '', false)
           returning id::text as id`,
          [
            NIL_UUID,
            id ?? null,
            aud,
            (role || 'authenticated').trim(),
            email,
            phone,
            hash,
            JSON.stringify(app),
            JSON.stringify(userMetadata ?? {}),
            at,
          ],
        );
        const userId = rows[0]?.id ?? '';
        const claims = { sub: userId, email_verified: false, phone_verified: false };
        if (email) await insertIdentity(tx, userId, 'email', { ...claims, email }, at);
        if (phone) await insertIdentity(tx, userId, 'phone', { ...claims, phone }, at);
        const user = await loadUser(tx, userId);
        if (emailConfirm) await confirmEmail(tx, user, at);
        if (phoneConfirm) {
          await tx.query(
            `update auth.users set phone_confirmed_at = $2::timestamptz, confirmation_token = ''
             where id::text = $1`,
            [userId, at],
          );
        }
        if (banMs !== undefined) await ban(ctx, tx, userId, banMs, at);
        return adminUserJson(tx, await loadUser(tx, userId));
      },
    );
    return c.json(created);
  });

  app.get('/admin/users/:user_id', async (c) => {
    const user = await loadUser(ctx.db, c.req.param('user_id'));
    return c.json(await adminUserJson(ctx.db, user));
  });

  app.put('/admin/users/:user_id', async (c) => {
    const user = await loadUser(ctx.db, c.req.param('user_id'));
    const body = await readJsonBody(c);
    const { rawEmail, rawPhone, role, emailConfirm, phoneConfirm, userMetadata, appMetadata } =
      userParams(body);
    const email = rawEmail === '' ? undefined : validateEmail(rawEmail);
    const phone = rawPhone === '' ? undefined : validatePhone(rawPhone);
    const banMs = banDuration(body);
    const password = stringPointerField(body, 'password');
    let hash: string | undefined;
    if (password !== undefined) {
      checkPasswordStrength(ctx.settings.auth, password);
      hash = await bcrypt.hash(password, ctx.settings.passwordHashCost);
    }

    const at = now();
    // GoTrue checks no duplicate here: the unique index refuses a taken address.
    const updated = await adminTransaction(ctx.db, 'Error updating user', async (tx) => {
      const id = user.id;
      const touch = async (sql: string, params: SqlParam[]) => {
        await tx.query(sql, [id, ...params]);
      };
      if (role !== '') {
        await touch(
          `update auth.users set role = $2, updated_at = $3::timestamptz where id::text = $1`,
          [role.trim(), at],
        );
      }
      if (emailConfirm) await confirmEmail(tx, user, at);
      if (phoneConfirm) {
        await touch(
          `update auth.users set phone_confirmed_at = $2::timestamptz, confirmation_token = '', updated_at = $2::timestamptz where id::text = $1`,
          [at],
        );
      }
      if (hash !== undefined) {
        // User.UpdatePassword: pending tokens are cleared and every session ends.
        await touch(
          `update auth.users set encrypted_password = $2, confirmation_token = '',
               confirmation_sent_at = null, recovery_token = '', recovery_sent_at = null,
               email_change_token_current = '', email_change_token_new = '',
               email_change_sent_at = null, phone_change_token = '', phone_change_sent_at = null,
               reauthentication_token = '', reauthentication_sent_at = null,
               updated_at = $3::timestamptz
             where id::text = $1`,
          [hash, at],
        );
        await touch(`delete from auth.sessions where user_id::text = $1`, []);
      }
      for (const [provider, value, confirmed] of [
        ['email', email, emailConfirm],
        ['phone', phone, phoneConfirm],
      ] as const) {
        if (value === undefined) continue;
        const patch = { [provider]: value, [`${provider}_verified`]: confirmed };
        const changed = await tx.query(
          `update auth.identities set identity_data = identity_data || $2::jsonb,
               updated_at = $3::timestamptz where user_id::text = $1 and provider = $4`,
          [id, JSON.stringify(patch), at, provider],
        );
        if (changed.affected === 0) {
          const other = provider === 'email' ? 'phone_verified' : 'email_verified';
          await insertIdentity(tx, id, provider, { sub: id, ...patch, [other]: false }, at);
        }
        await touch(
          `update auth.users set ${provider} = $2, updated_at = $3::timestamptz,
               is_anonymous = is_anonymous and not $4 where id::text = $1`,
          [value, at, confirmed],
        );
      }
      if (appMetadata) {
        const current = jsonObject((await loadUser(tx, id)).raw_app_meta_data);
        await touch(
          `update auth.users set raw_app_meta_data = $2::jsonb, updated_at = $3::timestamptz where id::text = $1`,
          [JSON.stringify(mergeMetadata(current, appMetadata)), at],
        );
      }
      if (userMetadata) {
        const current = jsonObject((await loadUser(tx, id)).raw_user_meta_data);
        await touch(
          `update auth.users set raw_user_meta_data = $2::jsonb, updated_at = $3::timestamptz where id::text = $1`,
          [JSON.stringify(mergeMetadata(current, userMetadata)), at],
        );
      }
      if (banMs !== undefined) await ban(ctx, tx, id, banMs, at);
      return adminUserJson(tx, await loadUser(tx, id));
    });
    return c.json(updated);
  });

  app.delete('/admin/users/:user_id', async (c) => {
    const user = await loadUser(ctx.db, c.req.param('user_id'));
    const text = await c.req.text();
    let soft = false;
    if (text.length > 0) {
      const parsed = parseJsonText(text);
      if (!parsed.ok) {
        // A blank body is no JSON either, worded as JSON.parse words it.
        throw authErrors.badJson(
          parsed.reason === 'empty' ? 'Unexpected end of JSON input' : parsed.message,
        );
      }
      if (parsed.value !== null) {
        if (!isJsonObject(parsed.value)) throw authErrors.badJson('expected a JSON object');
        soft = boolField(parsed.value, 'should_soft_delete');
      }
    }
    await ctx.db.transaction(async (tx) => {
      if (!soft) {
        try {
          await tx.query(`delete from auth.users where id::text = $1`, [user.id]);
        } catch (error) {
          // A row of the app's own tables still referencing the user refuses the delete.
          if (sqlState(error) === '23503')
            throw adminErrors.internal('Database error deleting user');
          throw error;
        }
        return;
      }
      if (user.deleted_at) return; // soft-deleted already
      await softDelete(tx, user, now());
    });
    return c.json({});
  });
}
