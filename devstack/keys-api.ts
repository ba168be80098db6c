// A project's API keys as the API gateway of a hosted project treats them: opaque strings
// (not JWTs) that name a role. A publishable key (`sb_publishable_…`) stands for `anon`, a
// secret key (`sb_secret_…`) for `service_role`; a secret key is refused from a browser.
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The Supabase CLI's well-known local development keys (public, printed by `supabase
 * start`): the same values here, so a developer's habits and tools carry over. Not secrets.
 */
export const LOCAL_PUBLISHABLE_KEY = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';
export const LOCAL_SECRET_KEY = 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz';

export type ApiKeyKind = 'publishable' | 'secret';
export type KeyRole = 'anon' | 'service_role';

export interface ApiKey {
  readonly kind: ApiKeyKind;
  readonly role: KeyRole;
}

/** What the gateway answers a secret key sent by a browser (401). */
export const SECRET_KEY_IN_BROWSER = 'Forbidden use of secret API key in browser';

const PREFIX: Record<ApiKeyKind, string> = {
  publishable: 'sb_publishable_',
  secret: 'sb_secret_',
};

/** Whether a string has the shape of a new-style key (`sb_…`), known or not. */
export function looksLikeApiKey(value: string): boolean {
  return value.startsWith('sb_');
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * The project's publishable and secret keys. Lookups compare digests in constant time, so how
 * long a wrong key takes to refuse says nothing about how much of it was right.
 */
export class ApiKeySet {
  private readonly entries: { digest: Buffer; key: ApiKey }[] = [];

  constructor(publishable: readonly string[], secret: readonly string[]) {
    for (const [kind, values] of [
      ['publishable', publishable],
      ['secret', secret],
    ] as const) {
      for (const value of values) {
        if (!value.startsWith(PREFIX[kind]) || value.length < PREFIX[kind].length + 16) {
          throw new Error(
            `a ${kind} key must look like ${PREFIX[kind]}… (got ${value.slice(0, 16)}…)`,
          );
        }
        this.entries.push({
          digest: digest(value),
          key: { kind, role: kind === 'publishable' ? 'anon' : 'service_role' },
        });
      }
    }
  }

  /** The key this string is, or undefined. Every entry is compared (no early exit). */
  find(value: string): ApiKey | undefined {
    const candidate = digest(value);
    let found: ApiKey | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, candidate)) found ??= entry.key;
    }
    return found;
  }
}

/**
 * Whether a request comes from a browser, as the gateway decides it: by the User-Agent
 * header. Every browser's begins with "Mozilla/"; servers, curl, Node and Deno send their
 * own names (or none).
 */
export function isBrowserUserAgent(userAgent: string | undefined | null): boolean {
  return typeof userAgent === 'string' && /^Mozilla\/\d/.test(userAgent.trim());
}
