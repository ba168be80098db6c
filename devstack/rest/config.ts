// The [api] settings of supabase/config.toml that the REST service honours: `max_rows`, the
// cap PostgREST puts on every read (tables and set-returning functions), whatever `limit` asks.
import { parse } from 'smol-toml';

import { isPlainObject } from '../json';

/** PostgREST's `db-max-rows` when config.toml sets none: the Supabase CLI's default. */
export const DEFAULT_MAX_ROWS = 1000;

export interface ApiConfig {
  readonly maxRows: number;
}

export function parseApiConfig(tomlText: string): ApiConfig {
  const toml = parse(tomlText);
  const api = isPlainObject(toml.api) ? toml.api : {};
  const raw = api.max_rows ?? DEFAULT_MAX_ROWS;
  const maxRows = typeof raw === 'bigint' ? Number(raw) : raw;
  if (typeof maxRows !== 'number' || !Number.isInteger(maxRows) || maxRows < 1) {
    throw new Error(
      `supabase/config.toml: api.max_rows must be a whole number ≥ 1, got ${JSON.stringify(raw)}`,
    );
  }
  return { maxRows };
}
