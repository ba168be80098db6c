// PostgREST's filter operators: the `[not.]op[(any|all)|(lang)].value` grammar of one filter
// (pOpExpr in PostgREST's QueryParams.hs) and the SQL each operator becomes (pgFmtFilter).
// Its own file so query.ts keeps the tree (or/and, select, order) and this keeps the leaves.
import { pgrstError, type PgrstError } from './errors';

/** Operators taking one value, with the SQL operator each becomes. */
const SIMPLE_OPS: readonly (readonly [string, string])[] = [
  ['neq', '<>'],
  ['cs', '@>'],
  ['cd', '<@'],
  ['ov', '&&'],
  ['sl', '<<'],
  ['sr', '>>'],
  ['nxr', '&<'],
  ['nxl', '&>'],
  ['adj', '-|-'],
];

/** Operators that take `(any)`/`(all)` over a Postgres array literal; order as PostgREST tries. */
const QUANT_OPS: readonly (readonly [string, string])[] = [
  ['eq', '='],
  ['gte', '>='],
  ['gt', '>'],
  ['lte', '<='],
  ['lt', '<'],
  ['like', 'like'],
  ['ilike', 'ilike'],
  ['match', '~'],
  ['imatch', '~*'],
];

const FTS_OPS: readonly (readonly [string, string])[] = [
  ['fts', 'to_tsquery'],
  ['plfts', 'plainto_tsquery'],
  ['phfts', 'phraseto_tsquery'],
  ['wfts', 'websearch_to_tsquery'],
];

const IS_VALUES: readonly (readonly [string, string])[] = [
  ['null', 'null'],
  ['not_null', 'not null'],
  ['true', 'true'],
  ['false', 'false'],
  ['unknown', 'unknown'],
];

export type Operation =
  | { kind: 'simple'; sql: string; value: string }
  | { kind: 'quant'; op: string; sql: string; quant: 'any' | 'all' | undefined; value: string }
  | { kind: 'is'; sql: string }
  | { kind: 'isdistinct'; value: string }
  | { kind: 'in'; values: string[] }
  | { kind: 'fts'; fn: string; lang: string | undefined; value: string };

export interface OpExpr {
  negate: boolean;
  operation: Operation;
}

/**
 * PostgREST's parse failure, in the words of its parser (Parsec): the message names what
 * failed to parse and where (1-based column), the details what was found and expected.
 */
export function filterParseError(
  what: string,
  input: string,
  column: number,
  found: string,
  expecting: string,
): PgrstError {
  const unexpected = found === '' ? 'end of input' : JSON.stringify(found.charAt(0));
  return pgrstError(
    400,
    'PGRST100',
    `"failed to parse ${what} (${input})" (line 1, column ${column})`,
    `unexpected ${unexpected} expecting ${expecting}`,
  );
}

/** A `"quoted"` value at the start of `text` (`\x` escapes x), or undefined. */
export function takeQuoted(text: string): { value: string; rest: string } | undefined {
  if (!text.startsWith('"')) return undefined;
  let value = '';
  for (let i = 1; i < text.length; i += 1) {
    const ch = text.charAt(i);
    if (ch === '\\' && i + 1 < text.length) {
      value += text.charAt(i + 1);
      i += 1;
    } else if (ch === '"') {
      return { value, rest: text.slice(i + 1) };
    } else {
      value += ch;
    }
  }
  return undefined;
}

/** `in.(a,"b,c", d)`: PostgREST's pListVal. Text after the closing parenthesis is ignored. */
function parseList(expr: string, start: number): string[] {
  let i = start;
  const skipSpaces = () => {
    while (expr.charAt(i) === ' ' || expr.charAt(i) === '\t') i += 1;
  };
  skipSpaces();
  if (expr.charAt(i) !== '(') {
    throw filterParseError('filter', expr, i + 1, expr.slice(i), '"("');
  }
  i += 1;
  const values: string[] = [];
  for (;;) {
    const quoted = takeQuoted(expr.slice(i));
    const after = quoted ? expr.length - quoted.rest.length : -1;
    if (quoted && (after >= expr.length || ',)'.includes(expr.charAt(after)))) {
      values.push(quoted.value);
      i = after;
    } else {
      let end = i;
      while (end < expr.length && !',)'.includes(expr.charAt(end))) end += 1;
      values.push(expr.slice(i, end));
      i = end;
    }
    if (expr.charAt(i) === ',') {
      i += 1;
      continue;
    }
    break;
  }
  skipSpaces();
  if (expr.charAt(i) !== ')') {
    throw filterParseError('filter', expr, i + 1, expr.slice(i), '"," or ")"');
  }
  return values;
}

/** The first entry of `table` whose name `text` starts with, tried in order. */
function prefixed(table: readonly (readonly [string, string])[], text: string) {
  return table.find(([name]) => text.startsWith(name));
}

/** One filter's `[not.]op.value`, parsed as PostgREST's pOpExpr does. */
export function parseOpExpr(expr: string): OpExpr {
  let pos = 0;
  let negate = false;
  if (expr.startsWith('not.')) {
    negate = true;
    pos = 4;
  }
  const text = expr.slice(pos);
  const operatorError = () =>
    filterParseError(
      'filter',
      expr,
      pos + 1,
      text,
      negate ? 'operator (eq, gt, ...)' : '"not" or operator (eq, gt, ...)',
    );
  if (text.startsWith('in.'))
    return { negate, operation: { kind: 'in', values: parseList(expr, pos + 3) } };
  if (text.startsWith('is.')) {
    const valueText = text.slice(3).toLowerCase();
    // Longest keyword first: `not_null` is not `null`; text after a keyword is ignored.
    const found = [...IS_VALUES]
      .sort((a, b) => b[0].length - a[0].length)
      .find(([name]) => valueText.startsWith(name));
    if (!found) {
      throw filterParseError(
        'filter',
        expr,
        pos + 4,
        text.slice(3),
        'isVal: (null, not_null, true, false, unknown)',
      );
    }
    return { negate, operation: { kind: 'is', sql: found[1] } };
  }
  if (text.startsWith('isdistinct.')) {
    return { negate, operation: { kind: 'isdistinct', value: text.slice('isdistinct.'.length) } };
  }
  const fts = prefixed(FTS_OPS, text);
  if (fts) {
    const after = text.slice(fts[0].length);
    const lang = /^\(([A-Za-z0-9_$]+)\)\./.exec(after);
    if (lang) {
      const value = after.slice(lang[0].length);
      return { negate, operation: { kind: 'fts', fn: fts[1], lang: lang[1], value } };
    }
    if (after.startsWith('.')) {
      return {
        negate,
        operation: { kind: 'fts', fn: fts[1], lang: undefined, value: after.slice(1) },
      };
    }
  }
  const simple = prefixed(SIMPLE_OPS, text);
  if (simple && text.startsWith(`${simple[0]}.`)) {
    return {
      negate,
      operation: { kind: 'simple', sql: simple[1], value: text.slice(simple[0].length + 1) },
    };
  }
  const quant = QUANT_OPS.find(([name]) => /^[a-z]+/.exec(text)?.[0] === name);
  if (quant) {
    const after = text.slice(quant[0].length);
    const q = /^\((any|all)\)\./.exec(after);
    if (q) {
      const value = after.slice(q[0].length);
      const which = q[1] === 'any' ? 'any' : 'all';
      return {
        negate,
        operation: { kind: 'quant', op: quant[0], sql: quant[1], quant: which, value },
      };
    }
    if (after.startsWith('.')) {
      return {
        negate,
        operation: {
          kind: 'quant',
          op: quant[0],
          sql: quant[1],
          quant: undefined,
          value: after.slice(1),
        },
      };
    }
    const col = pos + quant[0].length + 1;
    throw filterParseError('filter', expr, col, after, '"(" or delimiter (.)');
  }
  throw operatorError();
}

/** A list as a Postgres array literal, every element quoted (PostgREST's pgBuildArrayLiteral). */
export function pgArrayLiteral(values: readonly string[]): string {
  const quoted = values.map(
    (v) => `"${v.replace(/\0/g, '').replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
  );
  return `{${quoted.join(',')}}`;
}

/**
 * The SQL of a parsed filter on `ref` (a column of SQL `type`); `bind` adds a parameter and
 * returns its placeholder. Values are cast to the column's type, as PostgREST's unknown
 * literals resolve; like/ilike/match compare text, so a non-text column is refused as there.
 */
export function operationSql(
  ref: string,
  type: string,
  expr: OpExpr,
  bind: (value: string) => string,
): string {
  const op = expr.operation;
  let sql: string;
  switch (op.kind) {
    case 'simple':
      sql = `${ref} ${op.sql} ${bind(op.value)}::${type}`;
      break;
    case 'quant': {
      const textual = op.op === 'like' || op.op === 'ilike';
      const value = textual ? op.value.replace(/\*/g, '%') : op.value;
      const valueType = textual || op.op === 'match' || op.op === 'imatch' ? 'text' : type;
      sql =
        op.quant === undefined
          ? `${ref} ${op.sql} ${bind(value)}::${valueType}`
          : `${ref} ${op.sql} ${op.quant}(${bind(value)}::${valueType}[])`;
      break;
    }
    case 'is':
      sql = `${ref} is ${op.sql}`;
      break;
    case 'isdistinct':
      sql = `${ref} is distinct from ${bind(op.value)}::${type}`;
      break;
    case 'in':
      sql =
        op.values.length === 1 && op.values[0] === ''
          ? 'false'
          : `${ref} = any(${bind(pgArrayLiteral(op.values))}::${type}[])`;
      break;
    case 'fts': {
      const lang = op.lang === undefined ? '' : `${bind(op.lang)}::regconfig, `;
      // A tsvector column is searched as it is; any other goes through to_tsvector first.
      const vector = type === 'tsvector' ? ref : `to_tsvector(${lang}${ref})`;
      sql = `${vector} @@ ${op.fn}(${lang}${bind(op.value)}::text)`;
      break;
    }
  }
  return expr.negate ? `not (${sql})` : sql;
}
