// PostgREST's content negotiation and response shaping: which media type an `Accept` header
// picks (JSON, the singular object, nulls stripped, CSV, GeoJSON, the explain plan when the
// server enables it), the SQL aggregate that turns a statement's rows into that body, the
// Content-Type it answers with, and CSV request bodies. As PostgREST's MediaType and Negotiate
// modules and its SqlFragment aggregates do.
import { pgrstError } from './errors';

export type PlanFormat = 'text' | 'json';
export type PlanOption = 'analyze' | 'verbose' | 'settings' | 'buffers' | 'wal';

export type Media =
  | { kind: 'json' }
  | { kind: 'array-stripped' }
  | { kind: 'object'; stripped: boolean }
  | { kind: 'csv' }
  | { kind: 'geojson' }
  | { kind: 'plan'; format: PlanFormat; for: Media; options: PlanOption[] };

/** What an Accept item names: a media type we answer, or another one (kept for the 406). */
type Decoded = Media | { kind: 'any' } | { kind: 'other'; mime: string };

const PLAN_OPTIONS: readonly PlanOption[] = ['analyze', 'verbose', 'settings', 'buffers', 'wal'];

/** `type/subtype; k=v; k="v"` → lower-cased type and subtype, parameters (names lower-cased). */
function tokenize(text: string): { type: string; params: Map<string, string> } {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (ch === ';' && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  const params = new Map<string, string>();
  for (const part of parts.slice(1)) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const value = part.slice(eq + 1).trim();
    params.set(
      part.slice(0, eq).trim().toLowerCase(),
      value.startsWith('"') && value.endsWith('"') && value.length >= 2
        ? value.slice(1, -1)
        : value,
    );
  }
  return { type: (parts[0] ?? '').trim().toLowerCase(), params };
}

function decode(text: string): Decoded {
  const { type, params } = tokenize(text);
  const stripped = params.get('nulls') === 'stripped';
  const plan = (format: PlanFormat): Decoded => {
    const target = decode(params.get('for') ?? 'application/json');
    const options = (params.get('options') ?? '').split('|');
    return {
      kind: 'plan',
      format,
      // PostgREST explains the statement of the media type named in `for` (JSON by default).
      for:
        target.kind === 'any' || target.kind === 'other' || target.kind === 'plan'
          ? { kind: 'json' }
          : target,
      options: PLAN_OPTIONS.filter((o) => options.includes(o)),
    };
  };
  switch (type) {
    case 'application/json':
      return { kind: 'json' };
    case 'application/geo+json':
      return { kind: 'geojson' };
    case 'text/csv':
      return { kind: 'csv' };
    case 'application/vnd.pgrst.plan':
    case 'application/vnd.pgrst.plan+text':
      return plan('text');
    case 'application/vnd.pgrst.plan+json':
      return plan('json');
    case 'application/vnd.pgrst.object+json':
    case 'application/vnd.pgrst.object':
      return { kind: 'object', stripped };
    case 'application/vnd.pgrst.array+json':
    case 'application/vnd.pgrst.array':
      return stripped ? { kind: 'array-stripped' } : { kind: 'json' };
    case '*/*':
      return { kind: 'any' };
    default:
      return { kind: 'other', mime: text.trim() };
  }
}

/** The media type's name as PostgREST writes it (in Content-Type and in the 406 message). */
export function mimeOf(media: Decoded): string {
  switch (media.kind) {
    case 'json':
      return 'application/json';
    case 'array-stripped':
      return 'application/vnd.pgrst.array+json;nulls=stripped';
    case 'object':
      return `application/vnd.pgrst.object+json${media.stripped ? ';nulls=stripped' : ''}`;
    case 'csv':
      return 'text/csv';
    case 'geojson':
      return 'application/geo+json';
    case 'plan':
      return (
        `application/vnd.pgrst.plan+${media.format}; for="${mimeOf(media.for)}"` +
        (media.options.length > 0 ? `; options=${media.options.join('|')}` : '')
      );
    case 'any':
      return '*/*';
    case 'other':
      return media.mime;
  }
}

export function contentType(media: Media): string {
  return `${mimeOf(media)}; charset=utf-8`;
}

/** The items of an Accept header, most preferred first (by `q`, then as written). */
function acceptItems(header: string | undefined): string[] {
  if (header === undefined) return ['*/*'];
  const items = header
    .split(',')
    .map((text, index) => {
      const q = /;\s*q=([0-9.]+)/i.exec(text);
      return { text: text.replace(/;\s*q=[0-9.]+/i, '').trim(), q: q ? Number(q[1]) : 1, index };
    })
    .filter((item) => item.text !== '' && item.q > 0);
  items.sort((a, b) => b.q - a.q || a.index - b.index);
  return items.map((item) => item.text);
}

/**
 * The media type PostgREST answers a table read, a write or an rpc with, or its 406 (PGRST107)
 * naming every type asked for. `planEnabled`: db-plan-enabled, off on Supabase unless the
 * database turns it on (`alter role authenticator set pgrst.db_plan_enabled to 'true'`).
 */
export function negotiate(acceptHeader: string | undefined, planEnabled: boolean): Media {
  const decoded = acceptItems(acceptHeader).map(decode);
  for (const media of decoded) {
    if (media.kind === 'any') return { kind: 'json' };
    if (media.kind === 'other') continue;
    if (media.kind === 'plan' && !planEnabled) continue;
    return media;
  }
  throw pgrstError(
    406,
    'PGRST107',
    `None of these media types are available: ${decoded.map(mimeOf).join(', ')}`,
  );
}

export function isSingular(media: Media): boolean {
  return media.kind === 'object' || (media.kind === 'plan' && media.for.kind === 'object');
}

/**
 * The SQL expression (text) that aggregates the rows of subquery alias `alias` into the body
 * of `media`. CSV: a header of the first row's keys, then each row in Postgres's record text
 * form (PostgREST's asCsvF); GeoJSON calls PostGIS's ST_AsGeoJSON, so without PostGIS the
 * database answers 42883 as it does behind PostgREST.
 */
export function bodySql(media: Media, alias: string, rowsSql: string): string {
  switch (media.kind) {
    case 'json':
    case 'plan':
      return `coalesce(json_agg(${alias}), '[]')::text`;
    case 'array-stripped':
      return `coalesce(json_strip_nulls(json_agg(${alias})), '[]')::text`;
    case 'object':
      return media.stripped
        ? `coalesce(json_strip_nulls(json_agg(${alias})->0), 'null')::text`
        : `coalesce(json_agg(${alias})->0, 'null')::text`;
    case 'geojson':
      return `json_build_object('type', 'FeatureCollection', 'features', coalesce(json_agg(ST_AsGeoJSON(${alias})::json), '[]'))::text`;
    case 'csv':
      return (
        `(select coalesce(string_agg(_k.k, ','), '') from (select json_object_keys(_h.r) as k from (select row_to_json(_h0) as r from (${rowsSql}) _h0 limit 1) _h) _k)` +
        ` || E'\\n' || coalesce(string_agg(substring(${alias}::text, 2, length(${alias}::text) - 2), E'\\n'), '')`
      );
  }
}

/** Request body media types PostgREST reads for tables: JSON (and its vendored forms), CSV. */
export type BodyKind = 'json' | 'csv';

export function bodyKind(contentTypeHeader: string | undefined): BodyKind {
  if (contentTypeHeader === undefined || contentTypeHeader.trim() === '') return 'json';
  const { type } = tokenize(contentTypeHeader);
  if (
    type === 'application/json' ||
    type === 'application/vnd.pgrst.object+json' ||
    type === 'application/vnd.pgrst.object' ||
    type === 'application/vnd.pgrst.array+json' ||
    type === 'application/vnd.pgrst.array'
  ) {
    return 'json';
  }
  if (type === 'text/csv') return 'csv';
  throw pgrstError(
    415,
    'PGRST107',
    `The request's Content-Type is not acceptable: ${contentTypeHeader}`,
  );
}

/**
 * A CSV body (RFC 4180: a header row of column names, quoted fields with "" for a quote) as
 * JSON rows. An unquoted `NULL` is SQL null, as PostgREST reads it; every other field is text
 * for Postgres to cast.
 */
export function csvRows(text: string): Record<string, string | null>[] {
  const records: (string | null)[][] = [];
  let record: (string | null)[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  let i = 0;
  const endField = () => {
    record.push(!wasQuoted && field === 'NULL' ? null : field);
    field = '';
    wasQuoted = false;
  };
  const endRecord = () => {
    endField();
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
  };
  while (i < text.length) {
    const ch = text.charAt(i);
    if (quoted) {
      if (ch === '"' && text.charAt(i + 1) === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (ch === '"') quoted = false;
      else field += ch;
      i += 1;
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
      wasQuoted = true;
    } else if (ch === ',') {
      endField();
    } else if (ch === '\n' || ch === '\r') {
      endRecord();
      if (ch === '\r' && text.charAt(i + 1) === '\n') i += 1;
    } else {
      field += ch;
    }
    i += 1;
  }
  if (quoted) throw pgrstError(400, 'PGRST102', 'Empty or invalid csv');
  if (field !== '' || record.length > 0) endRecord();
  const [header, ...body] = records;
  if (!header || header.some((name) => name === null)) {
    throw pgrstError(400, 'PGRST102', 'Empty or invalid csv');
  }
  return body.map((values) => {
    if (values.length !== header.length) {
      throw pgrstError(400, 'PGRST102', 'Empty or invalid csv');
    }
    const row: Record<string, string | null> = {};
    header.forEach((name, index) => {
      row[name ?? ''] = values[index] ?? null;
    });
    return row;
  });
}
