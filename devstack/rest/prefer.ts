// PostgREST's `Prefer` header: which preferences it knows, which it refuses under
// `handling=strict` (PGRST122), and the `Preference-Applied` header it answers with, per kind
// of request, as PostgREST's Preferences and Response modules do.
import { pgrstError, type PgrstError } from './errors';

export type ReturnPref = 'representation' | 'minimal' | 'headers-only';
export type CountPref = 'exact' | 'planned' | 'estimated';
export type ResolutionPref = 'merge-duplicates' | 'ignore-duplicates';

export interface Prefer {
  return: ReturnPref | undefined;
  count: CountPref | undefined;
  resolution: ResolutionPref | undefined;
  missing: 'default' | 'null' | undefined;
  handling: 'strict' | 'lenient' | undefined;
  /** Only set when the server lets a request choose how its transaction ends (db-tx-end). */
  tx: 'commit' | 'rollback' | undefined;
  timezone: string | undefined;
  maxAffected: number | undefined;
  /** Preferences PostgREST does not know, in the order given (PGRST122 under strict). */
  invalid: string[];
}

/** Every `key=value` PostgREST accepts verbatim; timezone= and max-affected= take a value. */
const KNOWN: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['resolution', new Set(['merge-duplicates', 'ignore-duplicates'])],
  ['return', new Set(['representation', 'minimal', 'headers-only'])],
  ['count', new Set(['exact', 'planned', 'estimated'])],
  ['tx', new Set(['commit', 'rollback'])],
  ['missing', new Set(['default', 'null'])],
  ['handling', new Set(['strict', 'lenient'])],
]);

/**
 * Reads every Prefer header (several headers and comma lists both count). The first value a
 * key takes wins, as in PostgREST. `txOverride`: whether db-tx-end ends in `-allow-override`;
 * otherwise `tx=` is accepted but ignored (and not reported as applied).
 */
export function parsePrefer(header: string | undefined, txOverride = false): Prefer {
  const prefer: Prefer = {
    return: undefined,
    count: undefined,
    resolution: undefined,
    missing: undefined,
    handling: undefined,
    tx: undefined,
    timezone: undefined,
    maxAffected: undefined,
    invalid: [],
  };
  const items = (header ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const set = (key: string, value: string): void => {
    switch (key) {
      case 'return':
        prefer.return ??= value as ReturnPref;
        break;
      case 'count':
        prefer.count ??= value as CountPref;
        break;
      case 'resolution':
        prefer.resolution ??= value as ResolutionPref;
        break;
      case 'missing':
        prefer.missing ??= value === 'default' ? 'default' : 'null';
        break;
      case 'handling':
        prefer.handling ??= value === 'strict' ? 'strict' : 'lenient';
        break;
      case 'tx':
        if (txOverride) prefer.tx ??= value === 'rollback' ? 'rollback' : 'commit';
        break;
    }
  };
  for (const item of items) {
    const eq = item.indexOf('=');
    const key = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? '' : item.slice(eq + 1);
    if (key === 'timezone' && eq >= 0) {
      prefer.timezone ??= value;
    } else if (key === 'max-affected' && eq >= 0) {
      // PostgREST reads it as a (signed) whole number; anything else is ignored, not refused.
      if (prefer.maxAffected === undefined && /^-?\d{1,18}$/.test(value)) {
        prefer.maxAffected = Number(value);
      }
    } else if (KNOWN.get(key)?.has(value)) {
      set(key, value);
    } else {
      prefer.invalid.push(item);
    }
  }
  return prefer;
}

/** PGRST122 when `handling=strict` meets a preference PostgREST does not know. */
export function checkStrict(prefer: Prefer): void {
  if (prefer.handling === 'strict' && prefer.invalid.length > 0) {
    throw pgrstError(
      400,
      'PGRST122',
      'Invalid preferences given with handling=strict',
      `Invalid preferences: ${prefer.invalid.join(', ')}`,
    );
  }
}

/** PGRST124: under `handling=strict`, a write or call changed more rows than `max-affected`. */
export function maxAffectedError(prefer: Prefer, affected: number): PgrstError | undefined {
  if (prefer.handling !== 'strict' || prefer.maxAffected === undefined) return undefined;
  if (affected <= prefer.maxAffected) return undefined;
  return pgrstError(
    400,
    'PGRST124',
    'Query result exceeds max-affected preference constraint',
    `The query affects ${affected} rows`,
  );
}

export type RequestKind = 'read' | 'insert' | 'update' | 'delete' | 'rpc';

/**
 * The `Preference-Applied` value for a request of `kind`, or undefined when nothing applies.
 * `resolutionApplies`: an insert into a table with a primary key or with `on_conflict`.
 */
export function preferenceApplied(
  prefer: Prefer,
  kind: RequestKind,
  resolutionApplies = false,
): string | undefined {
  const write = kind === 'insert' || kind === 'update' || kind === 'delete';
  const values = [
    kind === 'insert' && resolutionApplies && prefer.resolution
      ? `resolution=${prefer.resolution}`
      : undefined,
    (kind === 'insert' || kind === 'update') && prefer.missing
      ? `missing=${prefer.missing}`
      : undefined,
    write && prefer.return ? `return=${prefer.return}` : undefined,
    prefer.count ? `count=${prefer.count}` : undefined,
    prefer.tx ? `tx=${prefer.tx}` : undefined,
    prefer.handling ? `handling=${prefer.handling}` : undefined,
    prefer.timezone !== undefined ? `timezone=${prefer.timezone}` : undefined,
    (kind === 'update' || kind === 'delete' || kind === 'rpc') &&
    prefer.handling === 'strict' &&
    prefer.maxAffected !== undefined
      ? `max-affected=${prefer.maxAffected}`
      : undefined,
  ].filter((v): v is string => v !== undefined);
  return values.length === 0 ? undefined : values.join(', ');
}

/** Adds `Preference-Applied` to `headers` when anything applies. */
export function withPreferenceApplied(
  headers: Record<string, string>,
  prefer: Prefer,
  kind: RequestKind,
  resolutionApplies = false,
): Record<string, string> {
  const applied = preferenceApplied(prefer, kind, resolutionApplies);
  return applied === undefined ? headers : { ...headers, 'Preference-Applied': applied };
}
