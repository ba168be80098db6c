// postgres_changes filters (`list_id=eq.<uuid>`, `status=in.(todo,doing)`, comma = AND,
// `not.` negates) parsed once at join and evaluated in Node against the row the subscriber
// was allowed to read, typed by the column's Postgres type as the Realtime server does.

export const FILTER_OPERATORS = [
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'like',
  'ilike',
  'is',
  'match',
  'imatch',
  'isdistinct',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

function isOperator(value: string): value is FilterOperator {
  return (FILTER_OPERATORS as readonly string[]).includes(value);
}

export interface Condition {
  column: string;
  op: FilterOperator;
  negate: boolean;
  /** One value, or the list of an `in`. */
  values: string[];
  /** Compiled pattern for like/ilike/match/imatch. */
  pattern?: RegExp;
}

export type ParsedFilter = { ok: true; conditions: Condition[] } | { ok: false; message: string };

/** Splits on `sep` outside double quotes and parentheses. */
function splitTopLevel(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (quoted) {
      current += ch;
      if (ch === '\\' && i + 1 < text.length) current += text.charAt(++i);
      else if (ch === '"') quoted = false;
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === sep && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

/** A PostgREST-style scalar: `"a,b"` with backslash escapes, or the text as is. */
function unquote(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) {
    return trimmed.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return value;
}

function likePattern(value: string, flags: string): RegExp {
  const source = [...value]
    .map((ch) => {
      if (ch === '%' || ch === '*') return '.*';
      if (ch === '_') return '.';
      return ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`, `s${flags}`);
}

function parseCondition(text: string): Condition | string {
  const eq = text.indexOf('=');
  if (eq <= 0) return `invalid filter "${text}": expected column=operator.value`;
  const column = text.slice(0, eq).trim();
  let rest = text.slice(eq + 1);
  let negate = false;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const dot = rest.indexOf('.');
  const opText = dot < 0 ? rest : rest.slice(0, dot);
  if (!isOperator(opText)) return `invalid filter "${text}": unknown operator "${opText}"`;
  const raw = dot < 0 ? '' : rest.slice(dot + 1);
  const condition: Condition = { column, op: opText, negate, values: [unquote(raw)] };
  if (opText === 'in') {
    const list = raw.trim();
    if (!list.startsWith('(') || !list.endsWith(')')) {
      return `invalid filter "${text}": in needs a list like (a,b)`;
    }
    condition.values = splitTopLevel(list.slice(1, -1), ',').map(unquote);
  } else if (opText === 'is') {
    const value = raw.toLowerCase();
    if (!['null', 'true', 'false', 'unknown'].includes(value)) {
      return `invalid filter "${text}": is takes null, true, false or unknown`;
    }
    condition.values = [value];
  } else if (opText === 'like' || opText === 'ilike') {
    condition.pattern = likePattern(condition.values[0] ?? '', opText === 'ilike' ? 'i' : '');
  } else if (opText === 'match' || opText === 'imatch') {
    try {
      condition.pattern = new RegExp(condition.values[0] ?? '', opText === 'imatch' ? 'i' : '');
    } catch {
      return `invalid filter "${text}": bad regular expression`;
    }
  }
  return condition;
}

/** Parses a binding's filter; an absent or empty filter has no conditions. */
export function parseFilter(filter: string | undefined): ParsedFilter {
  if (filter === undefined || filter.trim() === '') return { ok: true, conditions: [] };
  const conditions: Condition[] = [];
  for (const part of splitTopLevel(filter, ',')) {
    const parsed = parseCondition(part);
    if (typeof parsed === 'string') return { ok: false, message: parsed };
    conditions.push(parsed);
  }
  return { ok: true, conditions };
}

const NUMERIC_TYPES = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'oid']);
const TIME_TYPES = new Set(['timestamp', 'timestamptz']);

/** Compares a row value with a filter value by column type: <0, 0, >0, or null if unknown. */
function compare(type: string, rowValue: unknown, filterValue: string): number | null {
  if (rowValue === null || rowValue === undefined) return null;
  if (NUMERIC_TYPES.has(type)) {
    const a = typeof rowValue === 'number' ? rowValue : Number(rowValue);
    const b = Number(filterValue);
    if (Number.isNaN(a) || Number.isNaN(b) || filterValue.trim() === '') return null;
    return a === b ? 0 : a < b ? -1 : 1;
  }
  if (type === 'bool') {
    const b = ['true', 't', 'yes', 'on', '1'].includes(filterValue.toLowerCase())
      ? true
      : ['false', 'f', 'no', 'off', '0'].includes(filterValue.toLowerCase())
        ? false
        : null;
    if (b === null || typeof rowValue !== 'boolean') return null;
    return Number(rowValue) - Number(b);
  }
  if (TIME_TYPES.has(type) && typeof rowValue === 'string') {
    const a = Date.parse(rowValue);
    const b = Date.parse(filterValue);
    if (!Number.isNaN(a) && !Number.isNaN(b)) return a === b ? 0 : a < b ? -1 : 1;
  }
  let a = typeof rowValue === 'string' ? rowValue : JSON.stringify(rowValue);
  let b = filterValue;
  if (type === 'uuid') {
    a = a.toLowerCase();
    b = b.toLowerCase();
  }
  return a === b ? 0 : a < b ? -1 : 1;
}

function testCondition(condition: Condition, type: string, rowValue: unknown): boolean {
  const value = condition.values[0] ?? '';
  const isNull = rowValue === null || rowValue === undefined;
  let result: boolean;
  switch (condition.op) {
    case 'is':
      result =
        value === 'null' || value === 'unknown'
          ? isNull
          : !isNull && rowValue === (value === 'true');
      break;
    case 'isdistinct':
      result = isNull ? true : compare(type, rowValue, value) !== 0;
      break;
    case 'in':
      result = condition.values.some((v) => compare(type, rowValue, v) === 0);
      break;
    case 'like':
    case 'ilike':
    case 'match':
    case 'imatch':
      result =
        !isNull &&
        (condition.pattern?.test(
          typeof rowValue === 'string' ? rowValue : JSON.stringify(rowValue),
        ) ??
          false);
      break;
    default: {
      const order = compare(type, rowValue, value);
      if (order === null) return false; // SQL: a comparison with NULL is never true
      result =
        condition.op === 'eq'
          ? order === 0
          : condition.op === 'neq'
            ? order !== 0
            : condition.op === 'lt'
              ? order < 0
              : condition.op === 'lte'
                ? order <= 0
                : condition.op === 'gt'
                  ? order > 0
                  : order >= 0;
    }
  }
  return condition.negate ? !result : result;
}

/**
 * True when `row` passes every condition. A condition on a column the row does not carry
 * (a DELETE's old record holds only the key) does not pass.
 */
export function rowMatches(
  conditions: readonly Condition[],
  row: Record<string, unknown>,
  columnTypes: ReadonlyMap<string, string>,
): boolean {
  return conditions.every((condition) => {
    if (!Object.hasOwn(row, condition.column)) return false;
    return testCondition(
      condition,
      columnTypes.get(condition.column) ?? 'text',
      row[condition.column],
    );
  });
}
