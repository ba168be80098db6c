// The [auth] settings of supabase/config.toml that the devstack honours, read as the Supabase
// CLI reads them (same keys, same defaults), so a local stack is never laxer than the project
// it stands for: disabled sign-ups and anonymous sign-ins stay disabled, password rules and
// rate limits apply. Tests may override single values (startDevstack's `auth` option).
import { parse } from 'smol-toml';

import { isPlainObject } from '../json';

/** GoTrue's `password_requirements` values. */
export const PASSWORD_REQUIREMENTS = [
  '',
  'letters_digits',
  'lower_upper_letters_digits',
  'lower_upper_letters_digits_symbols',
] as const;
export type PasswordRequirements = (typeof PASSWORD_REQUIREMENTS)[number];

/** `[auth.rate_limit]`: requests per window and IP address (GoTrue's limiters). */
export interface AuthRateLimits {
  /** Password sign-ins and email sign-ups per 5 minutes per IP. */
  readonly signInSignUps: number;
  /** Refresh-token grants per 5 minutes per IP. */
  readonly tokenRefresh: number;
  /** Anonymous sign-ins per hour per IP. */
  readonly anonymousUsers: number;
  /**
   * Emails sent per hour, for the whole project (GoTrue's one global bucket). As in GoTrue it
   * applies only while confirmations are on (`enable_confirmations`); 0 refuses every mail.
   */
  readonly emailSent: number;
  /** OTP / magic-link verifications (`/verify`) per 5 minutes per IP. */
  readonly tokenVerifications: number;
}

export interface AuthConfig {
  /** `[auth] enable_signup`: false refuses every sign-up with `signup_disabled`. */
  readonly enableSignup: boolean;
  /** `[auth.email] enable_signup`: false refuses email sign-ups (`email_provider_disabled`). */
  readonly emailSignup: boolean;
  readonly enableAnonymousSignIns: boolean;
  readonly minimumPasswordLength: number;
  readonly passwordRequirements: PasswordRequirements;
  /** `[auth] jwt_expiry` (s). */
  readonly jwtExpirySec: number;
  readonly refreshTokenRotation: boolean;
  /** `[auth] refresh_token_reuse_interval` (s). */
  readonly refreshTokenReuseIntervalSec: number;
  /** `[auth.email] enable_confirmations`: sign-ups wait for a confirmation (no session). */
  readonly enableConfirmations: boolean;
  /** `[auth] site_url`: where mail links lead when a request names no allowed redirect. */
  readonly siteUrl: string;
  /** `[auth] additional_redirect_urls`: other allowed `redirect_to`s (GoTrue's globs). */
  readonly additionalRedirectUrls: readonly string[];
  /** `[auth.email] otp_expiry` (s): how long a mailed link or code stays valid. */
  readonly emailOtpExpirySec: number;
  /** `[auth.email] otp_length`: digits of a mailed code. */
  readonly emailOtpLength: number;
  /** `[auth.email] max_frequency` (s): least time between two mails of a kind to one user. */
  readonly emailMaxFrequencySec: number;
  /** `[auth.email] double_confirm_changes`: an email change mails both addresses. */
  readonly doubleConfirmChanges: boolean;
  /**
   * `[auth.email] secure_password_change`: a password change needs a sign-in within the last
   * 24 hours or the nonce of /reauthenticate (reauthenticate.ts).
   */
  readonly securePasswordChange: boolean;
  /** `[auth.mfa] max_enrolled_factors`: factors (verified or not) a user may hold. */
  readonly mfaMaxEnrolledFactors: number;
  /** `[auth.mfa.totp] enroll_enabled` / `verify_enabled`. */
  readonly mfaTotpEnroll: boolean;
  readonly mfaTotpVerify: boolean;
  /** `[auth.mfa.phone] enroll_enabled` / `verify_enabled` (no SMS provider here: see mfa.ts). */
  readonly mfaPhoneEnroll: boolean;
  readonly mfaPhoneVerify: boolean;
  /** `[auth.mfa.web_authn] enroll_enabled` / `verify_enabled` (mfa-webauthn.ts). */
  readonly mfaWebAuthnEnroll: boolean;
  readonly mfaWebAuthnVerify: boolean;
  /** `[auth.passkey] enabled`: passkey sign-in and management (passkeys.ts). */
  readonly passkeyEnabled: boolean;
  /** `[auth.webauthn] rp_display_name`, `rp_id`, `rp_origins`: the relying party. */
  readonly webauthnRpDisplayName: string;
  readonly webauthnRpId: string;
  readonly webauthnRpOrigins: readonly string[];
  /** `[auth] enable_manual_linking`: /user/identities (identities.ts). */
  readonly enableManualLinking: boolean;
  /** `[auth.oauth_server] enabled`: the OAuth 2.1 server's client admin (oauth-clients.ts). */
  readonly oauthServerEnabled: boolean;
  /** `[auth.oauth_server] allow_dynamic_registration`: POST /oauth/clients/register. */
  readonly oauthDynamicRegistration: boolean;
  readonly rateLimits: AuthRateLimits;
}

export type AuthConfigOverrides = Partial<Omit<AuthConfig, 'rateLimits'>> & {
  rateLimits?: Partial<AuthRateLimits>;
};

/** The Supabase CLI's defaults for keys config.toml leaves out. */
export const AUTH_DEFAULTS: AuthConfig = {
  enableSignup: true,
  emailSignup: true,
  enableAnonymousSignIns: false,
  minimumPasswordLength: 6,
  passwordRequirements: '',
  jwtExpirySec: 3600,
  refreshTokenRotation: true,
  refreshTokenReuseIntervalSec: 10,
  enableConfirmations: false,
  siteUrl: 'http://127.0.0.1:3000',
  additionalRedirectUrls: [],
  emailOtpExpirySec: 3600,
  emailOtpLength: 6,
  // GoTrue's own default (GOTRUE_SMTP_MAX_FREQUENCY); config.toml may set less, e.g. "1s".
  emailMaxFrequencySec: 60,
  doubleConfirmChanges: true,
  securePasswordChange: false,
  // The CLI's config.toml template: 10 factors, TOTP and phone MFA off until switched on.
  mfaMaxEnrolledFactors: 10,
  mfaTotpEnroll: false,
  mfaTotpVerify: false,
  mfaPhoneEnroll: false,
  mfaPhoneVerify: false,
  // WebAuthn MFA and passkeys are off in the template, with no relying party named.
  mfaWebAuthnEnroll: false,
  mfaWebAuthnVerify: false,
  passkeyEnabled: false,
  webauthnRpDisplayName: '',
  webauthnRpId: '',
  webauthnRpOrigins: [],
  // The CLI's template: manual linking and the OAuth server off.
  enableManualLinking: false,
  oauthServerEnabled: false,
  oauthDynamicRegistration: false,
  rateLimits: {
    signInSignUps: 30,
    tokenRefresh: 150,
    anonymousUsers: 30,
    emailSent: 2,
    tokenVerifications: 30,
  },
};

/**
 * Rate limits for test runs that sign many people in from 127.0.0.1 within seconds (the
 * component tests' shared devstack, the browser tests' `DEVSTACK_TEST_RATE_LIMITS=true`, the
 * integration suites). The real limits are config.toml's, checked in devstack-strict.test.ts.
 */
export const TEST_RATE_LIMITS: Partial<AuthRateLimits> = {
  signInSignUps: 100_000,
  tokenRefresh: 100_000,
  anonymousUsers: 100_000,
  emailSent: 100_000,
  tokenVerifications: 100_000,
};

/** Shortest access-token lifetime supabase-js copes with (it refreshes 90 s before expiry). */
const MIN_JWT_EXPIRY_SEC = 120;
/** Hosted's (and the CLI's) longest access-token lifetime: one week. */
const MAX_JWT_EXPIRY_SEC = 604_800;
/** GoTrue refuses a configured minimum below 6. */
const MIN_PASSWORD_LENGTH_FLOOR = 6;

class ConfigError extends Error {
  constructor(key: string, expected: string, got: unknown) {
    super(`supabase/config.toml: ${key} must be ${expected}, got ${JSON.stringify(got)}`);
  }
}

function bool(table: Record<string, unknown>, key: string, path: string, fallback: boolean) {
  const value = table[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ConfigError(`${path}.${key}`, 'true or false', value);
  return value;
}

function count(table: Record<string, unknown>, key: string, path: string, fallback: number) {
  const raw = table[key];
  if (raw === undefined) return fallback;
  const value = typeof raw === 'bigint' ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new ConfigError(`${path}.${key}`, 'a whole number ≥ 0', raw);
  }
  return value;
}

function text(table: Record<string, unknown>, key: string, path: string, fallback: string) {
  const value = table[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'string') throw new ConfigError(`${path}.${key}`, 'a string', value);
  return value;
}

function textList(table: Record<string, unknown>, key: string, path: string) {
  const value = table[key];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new ConfigError(`${path}.${key}`, 'a list of strings', value);
  }
  return value;
}

const DURATION_UNITS_SEC: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1, ms: 0.001 };

/** A Go duration ("1s", "1m30s", "60s") in seconds, as the CLI reads `max_frequency`. */
function durationSec(table: Record<string, unknown>, key: string, path: string, fallback: number) {
  const raw = table[key];
  if (raw === undefined) return fallback;
  const parts = typeof raw === 'string' ? [...raw.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)] : [];
  if (typeof raw !== 'string' || parts.map((p) => p[0]).join('') !== raw || raw === '') {
    throw new ConfigError(`${path}.${key}`, 'a duration like "60s" or "1m"', raw);
  }
  return parts.reduce(
    (sum, [, n, unit]) => sum + Number(n) * (DURATION_UNITS_SEC[unit ?? 's'] ?? 1),
    0,
  );
}

/** Checks a finished config (after overrides) the way the CLI refuses a bad config.toml. */
export function validateAuthConfig(config: AuthConfig): AuthConfig {
  if (config.jwtExpirySec < MIN_JWT_EXPIRY_SEC || config.jwtExpirySec > MAX_JWT_EXPIRY_SEC) {
    throw new ConfigError(
      'auth.jwt_expiry',
      `between ${MIN_JWT_EXPIRY_SEC} and ${MAX_JWT_EXPIRY_SEC}`,
      config.jwtExpirySec,
    );
  }
  if (config.minimumPasswordLength < MIN_PASSWORD_LENGTH_FLOOR) {
    throw new ConfigError(
      'auth.minimum_password_length',
      `at least ${MIN_PASSWORD_LENGTH_FLOOR}`,
      config.minimumPasswordLength,
    );
  }
  if (!PASSWORD_REQUIREMENTS.includes(config.passwordRequirements)) {
    throw new ConfigError(
      'auth.password_requirements',
      PASSWORD_REQUIREMENTS.map((v) => JSON.stringify(v)).join(' | '),
      config.passwordRequirements,
    );
  }
  if (config.emailOtpLength < 6 || config.emailOtpLength > 10) {
    throw new ConfigError('auth.email.otp_length', 'between 6 and 10', config.emailOtpLength);
  }
  if (config.emailOtpExpirySec < 1 || config.emailOtpExpirySec > 86_400) {
    throw new ConfigError('auth.email.otp_expiry', 'between 1 and 86400', config.emailOtpExpirySec);
  }
  return config;
}

/** The auth settings of a config.toml text. */
export function parseAuthConfig(tomlText: string): AuthConfig {
  const toml = parse(tomlText);
  const auth = isPlainObject(toml.auth) ? toml.auth : {};
  const email = isPlainObject(auth.email) ? auth.email : {};
  const limits = isPlainObject(auth.rate_limit) ? auth.rate_limit : {};
  const mfa = isPlainObject(auth.mfa) ? auth.mfa : {};
  const totp = isPlainObject(mfa.totp) ? mfa.totp : {};
  const phoneMfa = isPlainObject(mfa.phone) ? mfa.phone : {};
  const webAuthnMfa = isPlainObject(mfa.web_authn) ? mfa.web_authn : {};
  const passkey = isPlainObject(auth.passkey) ? auth.passkey : {};
  const webauthn = isPlainObject(auth.webauthn) ? auth.webauthn : {};
  const oauthServer = isPlainObject(auth.oauth_server) ? auth.oauth_server : {};
  const d = AUTH_DEFAULTS;
  const requirements = auth.password_requirements ?? d.passwordRequirements;
  if (typeof requirements !== 'string') {
    throw new ConfigError('auth.password_requirements', 'a string', requirements);
  }
  return validateAuthConfig({
    enableSignup: bool(auth, 'enable_signup', 'auth', d.enableSignup),
    emailSignup: bool(email, 'enable_signup', 'auth.email', d.emailSignup),
    enableAnonymousSignIns: bool(
      auth,
      'enable_anonymous_sign_ins',
      'auth',
      d.enableAnonymousSignIns,
    ),
    minimumPasswordLength: count(auth, 'minimum_password_length', 'auth', d.minimumPasswordLength),
    passwordRequirements: requirements as PasswordRequirements,
    jwtExpirySec: count(auth, 'jwt_expiry', 'auth', d.jwtExpirySec),
    refreshTokenRotation: bool(
      auth,
      'enable_refresh_token_rotation',
      'auth',
      d.refreshTokenRotation,
    ),
    refreshTokenReuseIntervalSec: count(
      auth,
      'refresh_token_reuse_interval',
      'auth',
      d.refreshTokenReuseIntervalSec,
    ),
    enableConfirmations: bool(email, 'enable_confirmations', 'auth.email', d.enableConfirmations),
    siteUrl: text(auth, 'site_url', 'auth', d.siteUrl),
    additionalRedirectUrls: textList(auth, 'additional_redirect_urls', 'auth'),
    emailOtpExpirySec: count(email, 'otp_expiry', 'auth.email', d.emailOtpExpirySec),
    emailOtpLength: count(email, 'otp_length', 'auth.email', d.emailOtpLength),
    emailMaxFrequencySec: durationSec(email, 'max_frequency', 'auth.email', d.emailMaxFrequencySec),
    doubleConfirmChanges: bool(
      email,
      'double_confirm_changes',
      'auth.email',
      d.doubleConfirmChanges,
    ),
    securePasswordChange: bool(
      email,
      'secure_password_change',
      'auth.email',
      d.securePasswordChange,
    ),
    mfaMaxEnrolledFactors: count(mfa, 'max_enrolled_factors', 'auth.mfa', d.mfaMaxEnrolledFactors),
    mfaTotpEnroll: bool(totp, 'enroll_enabled', 'auth.mfa.totp', d.mfaTotpEnroll),
    mfaTotpVerify: bool(totp, 'verify_enabled', 'auth.mfa.totp', d.mfaTotpVerify),
    mfaPhoneEnroll: bool(phoneMfa, 'enroll_enabled', 'auth.mfa.phone', d.mfaPhoneEnroll),
    mfaPhoneVerify: bool(phoneMfa, 'verify_enabled', 'auth.mfa.phone', d.mfaPhoneVerify),
    mfaWebAuthnEnroll: bool(webAuthnMfa, 'enroll_enabled', 'auth.mfa.web_authn', false),
    mfaWebAuthnVerify: bool(webAuthnMfa, 'verify_enabled', 'auth.mfa.web_authn', false),
    passkeyEnabled: bool(passkey, 'enabled', 'auth.passkey', d.passkeyEnabled),
    webauthnRpDisplayName: text(webauthn, 'rp_display_name', 'auth.webauthn', ''),
    webauthnRpId: text(webauthn, 'rp_id', 'auth.webauthn', ''),
    webauthnRpOrigins: textList(webauthn, 'rp_origins', 'auth.webauthn'),
    enableManualLinking: bool(auth, 'enable_manual_linking', 'auth', d.enableManualLinking),
    oauthServerEnabled: bool(oauthServer, 'enabled', 'auth.oauth_server', d.oauthServerEnabled),
    oauthDynamicRegistration: bool(
      oauthServer,
      'allow_dynamic_registration',
      'auth.oauth_server',
      d.oauthDynamicRegistration,
    ),
    rateLimits: {
      signInSignUps: count(
        limits,
        'sign_in_sign_ups',
        'auth.rate_limit',
        d.rateLimits.signInSignUps,
      ),
      tokenRefresh: count(limits, 'token_refresh', 'auth.rate_limit', d.rateLimits.tokenRefresh),
      anonymousUsers: count(
        limits,
        'anonymous_users',
        'auth.rate_limit',
        d.rateLimits.anonymousUsers,
      ),
      emailSent: count(limits, 'email_sent', 'auth.rate_limit', d.rateLimits.emailSent),
      tokenVerifications: count(
        limits,
        'token_verifications',
        'auth.rate_limit',
        d.rateLimits.tokenVerifications,
      ),
    },
  });
}

/** `base` with test overrides applied (then validated again). */
export function withAuthOverrides(
  base: AuthConfig,
  overrides: AuthConfigOverrides = {},
): AuthConfig {
  const { rateLimits, ...rest } = overrides;
  const defined = Object.fromEntries(
    Object.entries(rest).filter(([, value]) => value !== undefined),
  ) as Partial<AuthConfig>;
  return validateAuthConfig({
    ...base,
    ...defined,
    rateLimits: { ...base.rateLimits, ...rateLimits },
  });
}
