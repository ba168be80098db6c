// What GoTrue says about sign-in methods the devstack does not run: /settings (which providers
// are on), and OAuth (/authorize), OpenID id tokens (/token?grant_type=id_token), Web3
// (grant_type=web3) and SAML SSO (/sso…) answered as a project with them all disabled answers
// (internal/api/settings.go, external.go, token_oidc.go, web3.go, middleware.go).
import { decodeJwt } from 'jose';
import type { Context, Hono } from 'hono';

import type { DevstackContext } from '../context';
import { AuthApiError, authErrors } from './errors';
import type { JsonObject } from './users';

/** The OAuth providers GoTrue knows (its Provider switch), all disabled here. */
const OAUTH_PROVIDERS = new Set([
  'apple',
  'azure',
  'bitbucket',
  'discord',
  'facebook',
  'figma',
  'fly',
  'github',
  'gitlab',
  'google',
  'kakao',
  'keycloak',
  'linkedin',
  'linkedin_oidc',
  'notion',
  'snapchat',
  'spotify',
  'slack',
  'slack_oidc',
  'twitch',
  'twitter',
  'x',
  'vercel_marketplace',
  'workos',
  'zoom',
]);

/** The issuers GoTrue's id_token grant knows by provider name (token_oidc.go). */
const FIXED_ISSUERS: Readonly<Record<string, string>> = {
  google: 'https://accounts.google.com',
  facebook: 'https://www.facebook.com',
  kakao: 'https://kauth.kakao.com',
  snapchat: 'https://accounts.snapchat.com/accounts/oauth2/token',
  vercel_marketplace: 'https://marketplace.vercel.com',
  keycloak: '',
};
const APPLE_ISSUERS = new Set(['https://appleid.apple.com', 'https://account.apple.com']);
const AZURE_ISSUER = /^https:\/\/login\.microsoftonline\.com\/[^/]+\/v2\.0\/?$/;

/** GoTrue's OAuthError: `{error, error_description}` with status 400. */
class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

function disabledIssuer(issuer: string): AuthApiError {
  return new AuthApiError(
    400,
    'provider_disabled',
    `Provider (issuer ${JSON.stringify(issuer)}) is not enabled`,
  );
}

function tokenIssuer(idToken: string): string | undefined {
  try {
    const iss = decodeJwt(idToken).iss;
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

/** GoTrue's IdTokenGrant up to its provider check, which every provider fails here. */
function idTokenGrant(body: JsonObject): never {
  const text = (key: string) => (typeof body[key] === 'string' ? body[key] : '');
  const idToken = text('id_token');
  const provider = text('provider');
  const issuer = text('issuer');
  if (idToken === '') throw new OAuthError('invalid request', 'id_token required');
  if (provider === '' && (text('client_id') === '' || issuer === '')) {
    throw new OAuthError('invalid request', 'provider or client_id and issuer required');
  }
  if (provider === 'apple' || APPLE_ISSUERS.has(issuer)) {
    const detected = tokenIssuer(idToken);
    if (detected === undefined) {
      throw authErrors.validation('Unable to detect issuer in ID token for Apple provider');
    }
    if (!APPLE_ISSUERS.has(detected)) {
      throw authErrors.validation('Detected ID token issuer is not an Apple ID token issuer');
    }
    if (issuer !== '' && issuer !== detected) {
      throw authErrors.validation('Provided issuer does not match ID token issuer');
    }
    throw disabledIssuer(detected);
  }
  const fixed = Object.entries(FIXED_ISSUERS).find(
    ([name, known]) => provider === name || (known !== '' && issuer === known),
  );
  if (fixed) throw disabledIssuer(fixed[1]);
  if (provider === 'azure' || AZURE_ISSUER.test(issuer)) {
    const detected = tokenIssuer(idToken);
    if (detected === undefined) {
      throw authErrors.validation('Unable to detect issuer in ID token for Azure provider');
    }
    if (!AZURE_ISSUER.test(detected)) {
      throw authErrors.validation('Detected ID token issuer is not an Azure ID token issuer');
    }
    if (issuer !== '' && issuer !== detected) {
      throw authErrors.validation('Provided issuer does not match ID token issuer');
    }
    throw disabledIssuer(detected);
  }
  if (provider.startsWith('custom:')) {
    throw authErrors.validation('Custom OAuth providers are disabled');
  }
  // No allowed custom issuers are configured.
  throw authErrors.validation(`Custom OIDC provider ${JSON.stringify(provider)} not allowed`);
}

/**
 * /token grants for sign-in methods that are off here; undefined for a grant this module
 * does not own (token.ts then answers unsupported_grant_type).
 */
export function disabledGrant(grantType: string | undefined, body: JsonObject): undefined {
  if (grantType === 'id_token') idTokenGrant(body);
  if (grantType === 'web3') {
    throw new AuthApiError(422, 'web3_provider_disabled', 'Web3 provider is disabled');
  }
  return undefined;
}

/** OAuthError bodies as GoTrue sends them; other errors go on to routes.ts's handler. */
export function oauthErrorResponse(c: Context, error: unknown): Response | undefined {
  if (!(error instanceof OAuthError)) return undefined;
  return c.json({ error: error.error, error_description: error.description }, 400);
}

function settingsJson(ctx: DevstackContext): JsonObject {
  const config = ctx.settings.auth;
  const off = (names: string[]) => Object.fromEntries(names.map((name) => [name, false]));
  return {
    external: {
      anonymous_users: config.enableAnonymousSignIns,
      ...off(['apple', 'azure', 'bitbucket', 'discord', 'facebook', 'snapchat', 'figma', 'fly']),
      ...off(['github', 'gitlab', 'google', 'keycloak', 'kakao', 'linkedin', 'linkedin_oidc']),
      ...off(['notion', 'spotify', 'slack', 'slack_oidc', 'workos', 'twitch', 'twitter']),
      email: config.emailSignup,
      phone: false,
      zoom: false,
    },
    disable_signup: !config.enableSignup,
    mailer_autoconfirm: !config.enableConfirmations,
    phone_autoconfirm: false,
    sms_provider: '',
    saml_enabled: false,
    saml_private_key_next_configured: false,
    passkeys_enabled: false,
  };
}

/**
 * GoTrue's Provider() lookup with every third-party provider off: /authorize and identity
 * linking (identities.ts) both end here.
 */
export function refuseProvider(rawName: string): never {
  const name = rawName.toLowerCase();
  if (name.startsWith('custom:')) {
    throw authErrors.validation('Unsupported provider: custom OAuth providers are disabled');
  }
  if (OAUTH_PROVIDERS.has(name)) {
    throw authErrors.validation('Unsupported provider: provider is not enabled');
  }
  throw authErrors.validation(`Unsupported provider: Provider ${name} could not be found`);
}

/** /authorize (open, as the CLI's gateway leaves it: a browser navigates there). */
export function registerOpenProviderRoutes(app: Hono): void {
  app.get('/authorize', (c) => refuseProvider(c.req.query('provider') ?? ''));
}

/** /settings and /sso… (behind the API-key check). */
export function registerProviderRoutes(app: Hono, ctx: DevstackContext): void {
  app.get('/settings', (c) => c.json(settingsJson(ctx)));
  const samlDisabled = () => {
    throw new AuthApiError(404, 'saml_provider_disabled', 'SAML 2.0 is disabled');
  };
  app.all('/sso', samlDisabled);
  app.all('/sso/*', samlDisabled);
}
