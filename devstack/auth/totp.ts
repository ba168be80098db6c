// Time-based one-time passwords as GoTrue's TOTP factors use them (github.com/pquerna/otp):
// a 20-byte secret in unpadded base32, SHA-1, 6 digits, 30-second steps, one step of skew
// either way (RFC 6238 over RFC 4226's HMAC truncation, with node:crypto's HMAC).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** pquerna/otp's defaults, which GoTrue keeps. */
export const TOTP_PERIOD_SEC = 30;
const TOTP_DIGITS = 6;
const TOTP_SKEW_STEPS = 1;
const SECRET_BYTES = 20;

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** Unpadded (or padded) base32, case-insensitive; undefined if it is not base32. */
export function base32Decode(text: string): Buffer | undefined {
  const clean = text.toUpperCase().replace(/=+$/, '');
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const index = BASE32_ALPHABET.indexOf(ch);
    if (index < 0) return undefined;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** A new secret as GoTrue's totp.Generate makes one. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(SECRET_BYTES));
}

/** The code of `secret` for the 30-second step `counter` (RFC 4226 dynamic truncation). */
export function hotp(secret: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const digest = createHmac('sha1', secret).update(message).digest();
  const offset = (digest[digest.length - 1] ?? 0) & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** TOTP_DIGITS).padStart(TOTP_DIGITS, '0');
}

/** The code an authenticator shows at `nowMs` for a base32 secret. */
export function totpCode(secret: string, nowMs: number): string {
  const key = base32Decode(secret) ?? Buffer.alloc(0);
  return hotp(key, Math.floor(nowMs / 1000 / TOTP_PERIOD_SEC));
}

/** pquerna's ValidateCustom with GoTrue's options: the step at `nowMs` or one either side. */
export function totpValid(secret: string, code: string, nowMs: number): boolean {
  const key = base32Decode(secret);
  if (!key || !/^\d{6}$/.test(code)) return false;
  const step = Math.floor(nowMs / 1000 / TOTP_PERIOD_SEC);
  let valid = false;
  for (let skew = -TOTP_SKEW_STEPS; skew <= TOTP_SKEW_STEPS; skew += 1) {
    // Every step is compared, in constant time, whatever matched before.
    if (timingSafeEqual(Buffer.from(hotp(key, step + skew)), Buffer.from(code))) valid = true;
  }
  return valid;
}

/** Go's url.PathEscape-like escaping of an otpauth label (':' and '@' stay as they are). */
function escapeLabel(text: string): string {
  return encodeURIComponent(text).replace(/%3A/gi, ':').replace(/%40/g, '@');
}

/** Go's url.QueryEscape: encodeURIComponent with spaces as '+' and !'()* escaped. */
function queryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** pquerna's Key.URL(): the otpauth URI authenticator apps read (query keys sorted). */
export function totpUri(issuer: string, account: string, secret: string): string {
  const query = [
    ['algorithm', 'SHA1'],
    ['digits', String(TOTP_DIGITS)],
    ['issuer', issuer],
    ['period', String(TOTP_PERIOD_SEC)],
    ['secret', secret],
  ]
    .map(([key, value]) => `${key}=${queryEscape(value ?? '')}`)
    .join('&');
  return `otpauth://totp/${escapeLabel(`${issuer}:${account}`)}?${query}`;
}

/** GoTrue's default issuer: the host (with port) of the site URL; undefined if malformed. */
export function totpIssuer(siteUrl: string): string | undefined {
  try {
    return new URL(siteUrl).host;
  } catch {
    return undefined;
  }
}
