// Where the devstack's keys come from: config.toml's `[auth] signing_keys_path` (a JSON array
// of private JWKs, as `supabase gen signing-key --algorithm ES256` writes them, read by the CLI
// the same way) and whether the legacy keys are on (DEVSTACK_LEGACY_KEYS=true; off by default,
// as on a project that has moved to publishable/secret keys and switched the legacy ones off).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

import type { JWK } from 'jose';
import { parse } from 'smol-toml';

import { createKeys, type Keys, type KeysOptions } from './keys';
import { parseSigningKeysFile } from './keys-signing';
import { REPO_ROOT } from './schema-files';

/**
 * The signing keys config.toml names, resolved against the config file's folder (as the
 * CLI resolves paths in config.toml). supabase/signing_keys.json is a committed, well-known
 * local development key, public like the CLI's demo keys: never a production key.
 */
export function loadSigningKeys(configText: string, configPath: string): JWK[] {
  const config: unknown = parse(configText);
  const auth =
    typeof config === 'object' && config !== null && 'auth' in config ? config.auth : undefined;
  const path =
    typeof auth === 'object' && auth !== null && 'signing_keys_path' in auth
      ? auth.signing_keys_path
      : undefined;
  if (typeof path !== 'string' || path === '') {
    throw new Error(
      `${configPath}: [auth] signing_keys_path must name a signing-keys file (supabase gen signing-key --algorithm ES256)`,
    );
  }
  const file = resolve(dirname(configPath), path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`${configPath}: [auth] signing_keys_path: cannot read ${file}`);
  }
  return parseSigningKeysFile(text, file);
}

/** DEVSTACK_LEGACY_KEYS: "true" turns the legacy keys and HS256 on; unset or "false", off. */
export function legacyKeysFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.DEVSTACK_LEGACY_KEYS;
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new Error(`DEVSTACK_LEGACY_KEYS must be true or false, got ${JSON.stringify(value)}`);
}

/**
 * The project's key model as config.toml describes it, outside a running devstack (tests that
 * mount one service in process, tools): the same signing keys and API keys a devstack has.
 */
export async function createProjectKeys(
  options: Omit<KeysOptions, 'signingKeys'> & { configPath?: string } = {},
): Promise<Keys> {
  const configPath = options.configPath ?? join(REPO_ROOT, 'supabase', 'config.toml');
  const signingKeys = loadSigningKeys(readFileSync(configPath, 'utf8'), configPath);
  return createKeys({ ...options, signingKeys });
}
