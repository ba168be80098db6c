// The environment a function's worker starts with: what hosted Supabase hands every edge
// function ("Environment Variables" › default secrets). The new keys come as JSON
// dictionaries from a key's name to the key (`default` first), the signing keys' public
// halves as SUPABASE_JWKS; the legacy SUPABASE_ANON_KEY / SUPABASE_SERVICE_ROLE_KEY only
// while the project still has legacy keys, so no function can lean on them unseen.

/** The keys a function may be handed, as the devstack's key model holds them. */
export interface FunctionKeys {
  /** Publishable keys, the default one first. */
  readonly publishableKeys: readonly string[];
  /** Secret keys, the default one first. */
  readonly secretKeys: readonly string[];
  /** The legacy JWT keys, only while legacy keys are on. */
  readonly legacy?: { readonly anonKey: string; readonly serviceRoleKey: string } | undefined;
  /** The JWKS as /auth/v1/.well-known/jwks.json serves it now. */
  readonly jwks: { readonly keys: readonly unknown[] };
}

/** A key dictionary as hosted sets it: `{"default": "<first>", "key_2": "<second>", …}`. */
function dictionary(keys: readonly string[]): string {
  return JSON.stringify(
    Object.fromEntries(
      keys.map((key, index) => [index === 0 ? 'default' : `key_${index + 1}`, key]),
    ),
  );
}

export function functionEnv(
  url: string,
  siteUrl: string,
  keys: FunctionKeys,
): Record<string, string> {
  const env: Record<string, string> = { SUPABASE_URL: url, SITE_URL: siteUrl };
  if (keys.publishableKeys.length > 0) {
    env.SUPABASE_PUBLISHABLE_KEYS = dictionary(keys.publishableKeys);
  }
  if (keys.secretKeys.length > 0) env.SUPABASE_SECRET_KEYS = dictionary(keys.secretKeys);
  if (keys.jwks.keys.length > 0) env.SUPABASE_JWKS = JSON.stringify(keys.jwks);
  if (keys.legacy) {
    env.SUPABASE_ANON_KEY = keys.legacy.anonKey;
    env.SUPABASE_SERVICE_ROLE_KEY = keys.legacy.serviceRoleKey;
  }
  return env;
}
