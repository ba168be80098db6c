// PostgREST's query-string grammar (filters, or/and trees, select, order) compiled to SQL.
// Identifiers come only from the catalog (quoted); every value is a bound parameter.
import type { SqlParam } from '../sql-engine';
import { quoteIdent } from '../sql-quote';
import { parseError, pgrstError } from './errors';
import { operationSql, parseOpExpr, takeQuoted } from './operators';

/** A table's columns from the catalog: name → SQL type (format_type, no typmod). */
export type ColumnTypes = ReadonlyMap<string, string>;

/** Collects bound parameters while SQL text is built. */
/** Postgres's wire protocol caps bound parameters at 65535 a statement; stay well below. */
const MAX_PARAMS = 30_000;

export class Params {
  readonly values: SqlParam[] = [];
  add(value: SqlParam): string {
    if (this.values.length >= MAX_PARAMS) {
      throw parseError('failed to parse filter', `more than ${MAX_PARAMS} values`);
    }
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * Splits at top-level commas, respecting parentheses, double quotes and `{…}` (a Postgres
 * array literal in a logic tree, as PostgREST's pLogicSingleVal reads it: `{a,b}` is one value).
 */
export function splitTopLevel(text: string, what = 'logic tree'): string[] {
  const parts: string[] = [];
  let depth = 0;
  let braces = false;
  let quoted = false;
  let current = '';
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charAt(i);
    if (quoted) {
      if (ch === '\\' && i + 1 < text.length) {
        current += ch + text.charAt(i + 1);
        i += 1;
        continue;
      }
      if (ch === '"') quoted = false;
      current += ch;
      continue;
    }
    if (braces) {
      if (ch === '}') braces = false;
      current += ch;
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === '{' && what === 'logic tree') braces = true;
    else if (ch === '(') depth += 1;
    else if (ch === ')') depth -= 1;
    if (depth < 0) throw parseError(`failed to parse ${what}`, `unbalanced ')' in ${text}`);
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  if (quoted || depth !== 0) throw parseError(`failed to parse ${what}`, text);
  parts.push(current);
  return parts;
}

/**
 * A field name at the start of `text`: `"quoted"` (PostgREST's quoted identifier, `\"` and
 * `\\` escaped, any character allowed) or bare up to the first character of `stops`. Returns
 * the name and what follows it, or undefined when there is no name.
 */
export function takeField(text: string, stops: string): { name: string; rest: string } | undefined {
  if (text.startsWith('"')) {
    const quoted = takeQuoted(text); // undefined when unterminated
    return quoted === undefined || quoted.value === ''
      ? undefined
      : { name: quoted.value, rest: quoted.rest };
  }
  let end = 0;
  while (end < text.length && !stops.includes(text.charAt(end))) end += 1;
  return end === 0 ? undefined : { name: text.slice(0, end), rest: text.slice(end) };
}

/** A whole query-string key or select term that is one field name, quoted or bare. */
function fieldName(text: string, what: string): string {
  const field = takeField(text, '');
  if (!field || field.rest !== '') throw parseError(`failed to parse ${what} (${text})`);
  return field.name;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return value;
}

export class ColumnResolver {
  constructor(
    readonly table: string,
    readonly columns: ColumnTypes,
    readonly qualifier = '',
  ) {}

  type(column: string): string {
    const type = this.columns.get(column);
    if (type === undefined) {
      throw pgrstError(400, '42703', `column ${this.table}.${column} does not exist`);
    }
    return type;
  }

  ref(column: string): string {
    this.type(column);
    return this.qualifier + quoteIdent(column);
  }
}

/** One `op.value` (optionally `not.op.value`) applied to a column: operators.ts parses it. */
export function compileLeaf(
  cols: ColumnResolver,
  column: string,
  expr: string,
  params: Params,
  unquoteValues: boolean,
): string {
  const parsed = parseOpExpr(expr);
  const op = parsed.operation;
  // Inside or/and trees a value may be "quoted" (to hold commas and parentheses).
  const operation = unquoteValues && 'value' in op ? { ...op, value: unquote(op.value) } : op;
  return operationSql(cols.ref(column), cols.type(column), { ...parsed, operation }, (v) =>
    params.add(v),
  );
}

/** A logic tree body `(a.eq.1,and(b.gt.2,c.is.null))` joined with `and`/`or`. */
export function compileLogic(
  cols: ColumnResolver,
  op: 'and' | 'or',
  body: string,
  params: Params,
  depth = 0,
  negated = false,
): string {
  if (depth > 10) throw parseError('failed to parse logic tree', 'too deeply nested');
  if (depth === 0 && body === '()') {
    // PostgREST parses `[not.]op` + body, so its column counts the operator too.
    const column = (negated ? 4 : 0) + op.length + 2;
    throw pgrstError(
      400,
      'PGRST100',
      `"failed to parse logic tree (())" (line 1, column ${column})`,
      'unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)',
    );
  }
  if (!body.startsWith('(') || !body.endsWith(')')) {
    throw parseError('failed to parse logic tree (' + body + ')');
  }
  const items = splitTopLevel(body.slice(1, -1));
  const parts = items.map((item) => {
    const text = item.trim();
    const nested = /^(not\.)?(and|or)(\(.*\))$/s.exec(text);
    if (nested) {
      const inner = compileLogic(
        cols,
        nested[2] === 'and' ? 'and' : 'or',
        nested[3] ?? '',
        params,
        depth + 1,
      );
      return nested[1] ? `not ${inner}` : inner;
    }
    const field = takeField(text, '.');
    if (!field?.rest.startsWith('.')) {
      throw parseError('failed to parse logic tree (' + body + ')');
    }
    return compileLeaf(cols, field.name, field.rest.slice(1), params, true);
  });
  if (parts.length === 0) throw parseError('failed to parse logic tree (' + body + ')');
  return `(${parts.join(` ${op} `)})`;
}

/** Query parameters that are not column filters. */
const RESERVED = new Set([
  'select',
  'order',
  'limit',
  'offset',
  'columns',
  'on_conflict',
  'apikey',
]);

/** The WHERE clause (without the keyword) of all filters in the query string, or 'true'. */
export function compileFilters(
  cols: ColumnResolver,
  search: URLSearchParams,
  params: Params,
  skip: ReadonlySet<string> = new Set(),
): string {
  const parts: string[] = [];
  for (const [key, value] of search) {
    if (RESERVED.has(key) || skip.has(key)) continue;
    const logic = /^(not\.)?(and|or)$/.exec(key);
    if (logic) {
      const sql = compileLogic(
        cols,
        logic[2] === 'and' ? 'and' : 'or',
        value,
        params,
        0,
        logic[1] !== undefined,
      );
      parts.push(logic[1] ? `not ${sql}` : sql);
    } else {
      parts.push(compileLeaf(cols, fieldName(key, 'filter'), value, params, false));
    }
  }
  return parts.length === 0 ? 'true' : parts.join(' and ');
}

/** `select=` as a SQL select list (plain columns, `*`, `alias:column`). */
export function compileSelect(cols: ColumnResolver, select: string | null): string {
  if (select === null || select.trim() === '' || select.trim() === '*') return '*';
  const items = splitTopLevel(select, 'select parameter').map((s) => s.trim());
  return items
    .map((item) => {
      if (item === '*') return '*';
      if (/[()!]/.test(item)) {
        throw parseError(
          'failed to parse select parameter (' + select + ')',
          'embedding is not supported by the devstack',
        );
      }
      // `column`, `"column"`, `alias:column`, either part quoted; casts and JSON paths are not
      // supported here (a 400, never a guess).
      const bad = () => parseError('failed to parse select parameter (' + select + ')');
      const first = takeField(item, ':');
      if (!first) throw bad();
      if (first.rest === '') {
        if (!item.startsWith('"') && item.includes('->')) throw bad();
        return cols.ref(first.name);
      }
      if (!first.rest.startsWith(':') || first.rest.startsWith('::')) throw bad();
      const column = takeField(first.rest.slice(1), ':');
      if (!column || column.rest !== '') throw bad();
      if (!first.rest.slice(1).startsWith('"') && column.name.includes('->')) throw bad();
      return `${cols.ref(column.name)} as ${quoteIdent(first.name)}`;
    })
    .join(', ');
}

/** `order=a.asc,b.desc.nullslast` as an ORDER BY list, or ''. */
export function compileOrder(cols: ColumnResolver, order: string | null): string {
  if (order === null || order.trim() === '') return '';
  return splitTopLevel(order, 'order')
    .map((term) => {
      const field = takeField(term.trim(), '.');
      if (!field || (field.rest !== '' && !field.rest.startsWith('.'))) {
        throw parseError('failed to parse order (' + order + ')');
      }
      const mods = field.rest === '' ? [] : field.rest.slice(1).split('.');
      const sql = [cols.ref(field.name)];
      for (const mod of mods) {
        if (mod === 'asc' || mod === 'desc') sql.push(mod);
        else if (mod === 'nullsfirst') sql.push('nulls first');
        else if (mod === 'nullslast') sql.push('nulls last');
        else throw parseError('failed to parse order (' + order + ')');
      }
      return sql.join(' ');
    })
    .join(', ');
}

/** A non-negative integer query parameter, or undefined. */
export function nonNegativeInt(name: string, value: string | null): number | undefined {
  if (value === null) return undefined;
  if (!/^\d{1,15}$/.test(value)) throw parseError(`failed to parse ${name} parameter (${value})`);
  return Number(value);
}
