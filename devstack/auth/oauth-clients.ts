// The OAuth 2.1 server's client admin as GoTrue answers it when `[auth.oauth_server] enabled`
// (internal/api/oauthserver: handlers.go, service.go, client_auth.go): register, list, read,
// update, soft-delete a client and regenerate its secret. Kept apart from the user admin
// because GoTrue keeps it apart, and because its answers have their own shapes (a client JSON,
// GoTrue's "400: …" double-wrapped validation messages on create). Secrets are 32 random bytes
// shown once; only their SHA-256 is stored, as GoTrue stores it.
import { createHash, randomBytes, randomUUID } from 'node:crypto';

import type { Hono } from 'hono';

import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import { isUuid } from './admin-auth';
import { AuthApiError } from './errors';
import { RateLimiter } from './rate-limit';
import { limitOrThrow } from './route-kit';
import {
  AUTH_METHODS,
  inferType,
  listParam,
  methodList,
  readParams,
  stringParam,
  validateClientName,
  validateGrantTypes,
  validateRedirectUris,
  validateUriField,
  validation,
  type ClientType,
} from './oauth-client-rules';
import { isoTime } from './users';

interface ClientRow {
  id: string;
  client_type: ClientType;
  token_endpoint_auth_method: string;
  redirect_uris: string;
  grant_types: string;
  client_name: string | null;
  client_uri: string | null;
  logo_uri: string | null;
  registration_type: string;
  created_at: Date | string;
  updated_at: Date | string;
  [key: string]: unknown;
}

const COLUMNS = `id::text as id, client_type::text as client_type, token_endpoint_auth_method,
  redirect_uris, grant_types, client_name, client_uri, logo_uri,
  registration_type::text as registration_type, created_at, updated_at`;

/** GoTrue's OAuthServerClientResponse (its field order; empty strings omitted). */
function clientJson(row: ClientRow, secret?: string): Record<string, unknown> {
  const json: Record<string, unknown> = { client_id: row.id };
  if (secret !== undefined) json.client_secret = secret;
  json.client_type = row.client_type;
  const uris = row.redirect_uris === '' ? [] : row.redirect_uris.split(',');
  if (uris.length > 0) json.redirect_uris = uris;
  if (row.token_endpoint_auth_method) {
    json.token_endpoint_auth_method = row.token_endpoint_auth_method;
  }
  const grants = row.grant_types === '' ? [] : row.grant_types.split(',');
  if (grants.length > 0) json.grant_types = grants;
  json.response_types = ['code'];
  if (row.client_name) json.client_name = row.client_name;
  if (row.client_uri) json.client_uri = row.client_uri;
  if (row.logo_uri) json.logo_uri = row.logo_uri;
  if (row.registration_type) json.registration_type = row.registration_type;
  json.created_at = isoTime(row.created_at);
  json.updated_at = isoTime(row.updated_at);
  return json;
}

/** A fresh secret (shown once) and the SHA-256 GoTrue stores in its place. */
function newSecret(): { secret: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: createHash('sha256').update(secret).digest('base64url') };
}

/** GoTrue's LoadOAuthServerClient: a UUID naming a client not deleted, else 400 / 404. */
async function loadClient(db: SqlRunner, rawId: string): Promise<ClientRow> {
  if (!isUuid(rawId)) throw validation('invalid client_id format');
  const { rows } = await db.query<ClientRow>(
    `select ${COLUMNS} from auth.oauth_clients where id::text = $1 and deleted_at is null`,
    [rawId.toLowerCase()],
  );
  const row = rows[0];
  if (!row) throw new AuthApiError(404, 'oauth_client_not_found', 'OAuth client not found');
  return row;
}

/** registerOAuthServerClient: params.validate(), then the client with its defaults. */
async function registerClient(
  ctx: DevstackContext,
  body: Record<string, unknown>,
  registrationType: 'manual' | 'dynamic',
) {
  const redirectUris = listParam(body, 'redirect_uris');
  const explicitType = stringParam(body, 'client_type') ?? '';
  const method = stringParam(body, 'token_endpoint_auth_method') ?? '';
  const grantParam = listParam(body, 'grant_types');
  const name = stringParam(body, 'client_name') ?? '';
  const clientUri = stringParam(body, 'client_uri') ?? '';
  const logoUri = stringParam(body, 'logo_uri') ?? '';
  validateRedirectUris(redirectUris, true);
  if (grantParam && grantParam.length > 0) validateGrantTypes(grantParam);
  validateClientName(name);
  validateUriField(clientUri, 'client_uri');
  validateUriField(logoUri, 'logo_uri');
  if (explicitType !== '' && explicitType !== 'public' && explicitType !== 'confidential') {
    throw validation("client_type must be 'public' or 'confidential'");
  }
  if (method !== '' && !(AUTH_METHODS as readonly string[]).includes(method)) {
    throw validation(`token_endpoint_auth_method must be one of: ${methodList}`);
  }
  if (explicitType !== '' && method !== '' && inferType(method) !== explicitType) {
    throw validation(
      `client_type '${explicitType}' is inconsistent with token_endpoint_auth_method ` +
        `'${method}' (expected client_type '${inferType(method)}')`,
    );
  }
  const clientType: ClientType =
    explicitType === '' ? (method === '' ? 'confidential' : inferType(method)) : explicitType;
  const authMethod =
    method !== '' ? method : clientType === 'public' ? 'none' : 'client_secret_basic';
  const grants =
    grantParam && grantParam.length > 0 ? grantParam : ['authorization_code', 'refresh_token'];
  const secret = clientType === 'confidential' ? newSecret() : undefined;
  const at = sqlNow(ctx.clock);
  const { rows } = await ctx.db.query<ClientRow>(
    `insert into auth.oauth_clients (id, client_secret_hash, registration_type, redirect_uris,
       grant_types, client_name, client_uri, logo_uri, created_at, updated_at, client_type,
       token_endpoint_auth_method)
     values ($1::uuid, $2, $11::auth.oauth_registration_type, $3, $4, $5, $6, $7,
       $8::timestamptz, $8::timestamptz, $9::auth.oauth_client_type, $10)
     returning ${COLUMNS}`,
    [
      randomUUID(),
      secret?.hash ?? null,
      (redirectUris ?? []).join(','),
      grants.join(','),
      name || null,
      clientUri || null,
      logoUri || null,
      at,
      clientType,
      authMethod,
      registrationType,
    ],
  );
  const row = rows[0];
  if (!row) throw new AuthApiError(500, 'unexpected_failure', 'Unexpected failure');
  return clientJson(row, secret?.secret);
}

/** OAuthServerClientUpdate: only the fields given; validation errors answered unwrapped. */
async function updateClient(
  ctx: DevstackContext,
  client: ClientRow,
  body: Record<string, unknown>,
) {
  const redirectUris = listParam(body, 'redirect_uris');
  const grants = listParam(body, 'grant_types');
  const name = stringParam(body, 'client_name');
  const clientUri = stringParam(body, 'client_uri');
  const logoUri = stringParam(body, 'logo_uri');
  const method = stringParam(body, 'token_endpoint_auth_method');
  const fields = [redirectUris, grants, name, clientUri, logoUri, method];
  if (fields.every((field) => field === undefined)) {
    throw validation('No fields provided for update');
  }
  if (redirectUris !== undefined) validateRedirectUris(redirectUris, false);
  if (grants !== undefined) validateGrantTypes(grants);
  validateClientName(name);
  validateUriField(clientUri, 'client_uri');
  validateUriField(logoUri, 'logo_uri');
  if (method !== undefined) {
    if (!(AUTH_METHODS as readonly string[]).includes(method)) {
      throw validation(`invalid token_endpoint_auth_method: must be one of ${methodList}`);
    }
    if (inferType(method) !== client.client_type) {
      const valid =
        client.client_type === 'public' ? '[none]' : '[client_secret_basic client_secret_post]';
      throw validation(
        `token_endpoint_auth_method '${method}' is not valid for client_type ` +
          `'${client.client_type}'; valid methods: ${valid}`,
      );
    }
  }
  // An empty string clears a text field (GoTrue's StringPtr("") is nil).
  const { rows } = await ctx.db.query<ClientRow>(
    `update auth.oauth_clients set
       redirect_uris = coalesce($2, redirect_uris), grant_types = coalesce($3, grant_types),
       client_name = case when $4::boolean then nullif($5, '') else client_name end,
       client_uri = case when $6::boolean then nullif($7, '') else client_uri end,
       logo_uri = case when $8::boolean then nullif($9, '') else logo_uri end,
       token_endpoint_auth_method = coalesce($10, token_endpoint_auth_method),
       updated_at = $11::timestamptz
     where id::text = $1 and deleted_at is null
     returning ${COLUMNS}`,
    [
      client.id,
      redirectUris?.join(',') ?? null,
      grants?.join(',') ?? null,
      name !== undefined,
      name ?? null,
      clientUri !== undefined,
      clientUri ?? null,
      logoUri !== undefined,
      logoUri ?? null,
      method ?? null,
      sqlNow(ctx.clock),
    ],
  );
  const row = rows[0];
  if (!row) throw new AuthApiError(404, 'oauth_client_not_found', 'OAuth client not found');
  return clientJson(row);
}

/** Both register handlers wrap their validation error again: "400: <message>". */
async function register(
  ctx: DevstackContext,
  body: Record<string, unknown>,
  registrationType: 'manual' | 'dynamic',
) {
  try {
    return await registerClient(ctx, body, registrationType);
  } catch (error) {
    if (error instanceof AuthApiError && error.code === 'validation_failed') {
      throw validation(`400: ${error.message}`);
    }
    throw error;
  }
}

/**
 * POST /oauth/clients/register, OAuth 2.1 dynamic client registration: open to any caller
 * with the API key, per-IP limited (GoTrue's default: 10 per 5 minutes), refused with 403
 * unless `allow_dynamic_registration`; with the server off, 404 as every /oauth route.
 */
export function registerOAuthDynamicRoute(app: Hono, ctx: DevstackContext): void {
  const limiter = new RateLimiter(10, 5 * 60 * 1000, () => ctx.clock.now());
  app.post('/oauth/clients/register', async (c) => {
    const config = ctx.settings.auth;
    if (!config.oauthServerEnabled) {
      throw new AuthApiError(404, 'feature_disabled', 'OAuth server is disabled');
    }
    limitOrThrow(limiter, c);
    if (!config.oauthDynamicRegistration) {
      throw new AuthApiError(
        403,
        'oauth_dynamic_client_registration_disabled',
        'Dynamic client registration is not enabled',
      );
    }
    return c.json(await register(ctx, await readParams(c), 'dynamic'), 201);
  });
}

/** Registers /admin/oauth/clients… (the admin check runs before, in admin-routes.ts). */
export function registerOAuthClientRoutes(app: Hono, ctx: DevstackContext): void {
  app.post('/admin/oauth/clients', async (c) => {
    return c.json(await register(ctx, await readParams(c), 'manual'), 201);
  });

  // GoTrue lists every live client, newest first, without pagination (page/per_page ignored);
  // an empty list is omitted from the JSON (`clients,omitempty`).
  app.get('/admin/oauth/clients', async (c) => {
    const { rows } = await ctx.db.query<ClientRow>(
      `select ${COLUMNS} from auth.oauth_clients where deleted_at is null order by created_at desc`,
    );
    return c.json(rows.length > 0 ? { clients: rows.map((row) => clientJson(row)) } : {});
  });

  app.get('/admin/oauth/clients/:client_id', async (c) => {
    return c.json(clientJson(await loadClient(ctx.db, c.req.param('client_id'))));
  });

  app.put('/admin/oauth/clients/:client_id', async (c) => {
    const client = await loadClient(ctx.db, c.req.param('client_id'));
    return c.json(await updateClient(ctx, client, await readParams(c)));
  });

  app.delete('/admin/oauth/clients/:client_id', async (c) => {
    const client = await loadClient(ctx.db, c.req.param('client_id'));
    const at = sqlNow(ctx.clock);
    await ctx.db.query(
      `update auth.oauth_clients set deleted_at = $2::timestamptz, updated_at = $2::timestamptz
       where id::text = $1`,
      [client.id, at],
    );
    return c.body(null, 204);
  });

  app.post('/admin/oauth/clients/:client_id/regenerate_secret', async (c) => {
    const client = await loadClient(ctx.db, c.req.param('client_id'));
    if (client.client_type !== 'confidential') {
      throw validation('Cannot regenerate secret for public client');
    }
    const { secret, hash } = newSecret();
    const { rows } = await ctx.db.query<ClientRow>(
      `update auth.oauth_clients set client_secret_hash = $2, updated_at = $3::timestamptz
       where id::text = $1 returning ${COLUMNS}`,
      [client.id, hash, sqlNow(ctx.clock)],
    );
    const row = rows[0] ?? client;
    return c.json(clientJson(row, secret));
  });
}
