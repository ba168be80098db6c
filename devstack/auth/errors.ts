// Auth errors as GoTrue sends them: the 2024-01-01 shape `{code, message}` (with the
// `X-Supabase-Api-Version` response header) when the request asks for that API version,
// else the old `{code: status, error_code, msg}` shape. supabase-js reads both.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export const API_VERSION_HEADER = 'X-Supabase-Api-Version';
/** The only API version GoTrue knows besides the original one. */
const API_VERSION_2024 = '2024-01-01';

export class AuthApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    /** GoTrue's `weak_password.reasons` (only for `weak_password`). */
    readonly weakPasswordReasons?: readonly string[],
  ) {
    super(message);
    this.name = 'AuthApiError';
  }
}

export function isAuthApiError(error: unknown): error is AuthApiError {
  return error instanceof AuthApiError;
}

/** The API version to answer with: 2024-01-01 when the request names it or a later date. */
export function requestApiVersion(c: Context): string | undefined {
  const requested = c.req.header(API_VERSION_HEADER)?.trim();
  if (!requested || !/^\d{4}-\d{2}-\d{2}$/.test(requested)) return undefined;
  return requested >= API_VERSION_2024 ? API_VERSION_2024 : undefined;
}

export function errorResponse(c: Context, error: AuthApiError): Response {
  const version = requestApiVersion(c);
  const weak = error.weakPasswordReasons
    ? { weak_password: { reasons: [...error.weakPasswordReasons] } }
    : {};
  if (version) {
    c.header(API_VERSION_HEADER, version);
    return c.json({ code: error.code, message: error.message, ...weak }, error.status);
  }
  return c.json(
    { code: error.status, error_code: error.code, msg: error.message, ...weak },
    error.status,
  );
}

// The errors the auth routes use, with GoTrue's codes and messages.
export const authErrors = {
  badJson: (detail: string) =>
    new AuthApiError(400, 'bad_json', `Could not parse request body as JSON: ${detail}`),
  validation: (message: string) => new AuthApiError(400, 'validation_failed', message),
  invalidCredentials: () =>
    new AuthApiError(400, 'invalid_credentials', 'Invalid login credentials'),
  signupDisabled: () =>
    new AuthApiError(422, 'signup_disabled', 'Signups not allowed for this instance'),
  emailSignupDisabled: () =>
    new AuthApiError(400, 'email_provider_disabled', 'Email signups are disabled'),
  anonymousDisabled: () =>
    new AuthApiError(422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled'),
  overRequestRateLimit: () =>
    new AuthApiError(429, 'over_request_rate_limit', 'Request rate limit reached'),
  passwordTooLong: () =>
    new AuthApiError(422, 'validation_failed', 'Password cannot be longer than 72 characters'),
  samePassword: () =>
    new AuthApiError(
      422,
      'same_password',
      'New password should be different from the old password.',
    ),
  userExists: () => new AuthApiError(422, 'user_already_exists', 'User already registered'),
  emailExists: () =>
    new AuthApiError(
      422,
      'email_exists',
      'A user with this email address has already been registered',
    ),
  refreshNotFound: () =>
    new AuthApiError(
      400,
      'refresh_token_not_found',
      'Invalid Refresh Token: Refresh Token Not Found',
    ),
  refreshAlreadyUsed: () =>
    new AuthApiError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used'),
  noAuthorization: () =>
    new AuthApiError(401, 'no_authorization', 'This endpoint requires a valid Bearer token'),
  badJwt: (detail: string) =>
    new AuthApiError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${detail}`),
  missingSub: () => new AuthApiError(403, 'bad_jwt', 'invalid claim: missing sub claim'),
  userNotFound: () =>
    new AuthApiError(403, 'user_not_found', 'User from sub claim in JWT does not exist'),
  sessionNotFound: () =>
    new AuthApiError(
      403,
      'session_not_found',
      'Session from session_id claim in JWT does not exist',
    ),
  unsupportedGrant: () => new AuthApiError(400, 'unsupported_grant_type', 'unsupported_grant_type'),
  notFound: () => new AuthApiError(404, 'not_found', 'Not found'),
} as const;
