// What the functions service reads from supabase/config.toml, as the Supabase CLI does:
// `[functions.<name>] verify_jwt` (default true) and `[auth] site_url` (for links in mail and
// invites). Parsed with smol-toml, a spec-complete TOML parser.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parse } from 'smol-toml';

import { isPlainObject } from '../json';
import { REPO_ROOT } from '../schema-files';

export interface FunctionsConfig {
  /** Whether the gateway must verify the caller's JWT before the function runs. */
  verifyJwt(name: string): boolean;
  /** The app's public URL (auth.site_url). */
  readonly siteUrl: string;
}

export function readFunctionsConfig(
  path = join(REPO_ROOT, 'supabase', 'config.toml'),
): FunctionsConfig {
  const toml = parse(readFileSync(path, 'utf8'));
  const functions = isPlainObject(toml.functions) ? toml.functions : {};
  const auth = isPlainObject(toml.auth) ? toml.auth : {};
  return {
    verifyJwt(name) {
      const section = functions[name];
      return !(isPlainObject(section) && section.verify_jwt === false);
    },
    // DEVSTACK_SITE_URL wins: `npm start` and the browser tests serve the app on a port of
    // their choosing, and invite links must point there.
    siteUrl:
      process.env.DEVSTACK_SITE_URL ??
      (typeof auth.site_url === 'string' ? auth.site_url : 'http://localhost:4173'),
  };
}
