// What every devstack service does with untrusted JSON: bound its depth before parsing, parse
// it to an outcome the service words in its own errors, and check for a plain object.

/**
 * How deeply a JSON request body (or realtime frame) may nest. Postgres's json parser and
 * V8's JSON.stringify recurse once per level and overflow their stacks somewhere in the tens
 * of thousands (a 500, or worse, a wedged PGlite); no real document comes near this.
 */
export const MAX_JSON_DEPTH = 512;

/** Whether JSON text nests deeper than `max` (a scan of the text: no recursion, no parse). */
export function jsonNestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i += 1; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
    } else if (ch === 0x5b || ch === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (ch === 0x5d || ch === 0x7d) {
      depth -= 1;
    }
  }
  return false;
}

/** The outcome of reading a JSON text: its value, or why not (a service words its own error). */
export type JsonText =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'empty' | 'too-deep' | 'invalid'; message: string };

/** Parses an untrusted JSON text, refusing an empty or over-deep one before JSON.parse runs. */
export function parseJsonText(text: string, max = MAX_JSON_DEPTH): JsonText {
  if (text.trim() === '') return { ok: false, reason: 'empty', message: 'empty body' };
  if (jsonNestsDeeperThan(text, max)) {
    return { ok: false, reason: 'too-deep', message: `JSON nested deeper than ${max} levels` };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return {
      ok: false,
      reason: 'invalid',
      message: error instanceof Error ? error.message : 'invalid JSON',
    };
  }
}

/** A JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
