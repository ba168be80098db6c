// PostgREST's `select=` grammar (ApiRequest/QueryParams.hs pFieldForest): fields with alias,
// cast, JSON path and aggregate; `*`; embedded resources with alias, hint, `!inner`/`!left`;
// spreads `...rel(...)`. Only parses: names are checked against the schema by the planner.
import { parseError, type PgrstError } from './errors';

export type AggregateFn = 'count' | 'sum' | 'avg' | 'max' | 'min';
const AGGREGATES: readonly string[] = ['count', 'sum', 'avg', 'max', 'min'];

/** One `->key` / `->>0` step of a JSON path. */
export interface JsonStep {
  arrow: '->' | '->>';
  key: string;
  /** A (possibly negative) array index rather than an object key. */
  index: boolean;
}

export interface FieldSelect {
  kind: 'field';
  /** Column (or computed field) name; `*` for all columns (never with a JSON path). */
  name: string;
  json: JsonStep[];
  alias: string | undefined;
  cast: string | undefined;
  aggregate: AggregateFn | undefined;
  aggregateCast: string | undefined;
}

export interface EmbedSelect {
  kind: 'embed';
  /** Table, view, FK constraint, column or computed relationship the embed names. */
  name: string;
  alias: string | undefined;
  hint: string | undefined;
  join: 'inner' | 'left' | undefined;
  spread: boolean;
  children: SelectItem[];
}

export type SelectItem = FieldSelect | EmbedSelect;

/** Characters of a bare identifier (Parsec's letter/digit plus `_`, `$` and space). */
const IDENT_CHAR = /[\p{L}\p{N}_ $]/u;

class Cursor {
  pos = 0;
  constructor(
    readonly text: string,
    readonly fail: (what: string) => PgrstError,
  ) {}
  peek(n = 0): string {
    return this.text.charAt(this.pos + n);
  }
  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }
  eat(s: string): boolean {
    if (!this.startsWith(s)) return false;
    this.pos += s.length;
    return true;
  }
  done(): boolean {
    return this.pos >= this.text.length;
  }
  skipSpaces(): void {
    while (this.peek() === ' ') this.pos += 1;
  }
  unexpected(expecting: string): PgrstError {
    const found = this.done() ? 'end of input' : `"${this.peek()}"`;
    return this.fail(`unexpected ${found} expecting ${expecting}`);
  }
}

/** `"quoted"` with `\` escapes, as PostgREST's pQuotedValue. */
function quoted(cur: Cursor): string | undefined {
  if (cur.peek() !== '"') return undefined;
  cur.pos += 1;
  let out = '';
  while (!cur.done()) {
    const ch = cur.peek();
    if (ch === '\\' && cur.pos + 1 < cur.text.length) {
      out += cur.peek(1);
      cur.pos += 2;
    } else if (ch === '"') {
      cur.pos += 1;
      return out;
    } else {
      out += ch;
      cur.pos += 1;
    }
  }
  throw cur.unexpected('"\\"" closing the quoted name');
}

/** Identifier parts joined by `-` (a dash not starting `->`), trimmed: pFieldName. */
function bareName(cur: Cursor, charOk: (ch: string) => boolean): string | undefined {
  const start = cur.pos;
  for (;;) {
    const partStart = cur.pos;
    while (!cur.done() && charOk(cur.peek())) cur.pos += 1;
    if (cur.pos === partStart) {
      cur.pos = start;
      return undefined;
    }
    if (cur.peek() === '-' && cur.peek(1) !== '>' && charOk(cur.peek(1))) {
      cur.pos += 1;
      continue;
    }
    break;
  }
  const name = cur.text.slice(start, cur.pos).trim();
  return name === '' ? undefined : name;
}

function fieldName(cur: Cursor): string | undefined {
  return quoted(cur) ?? bareName(cur, (ch) => IDENT_CHAR.test(ch));
}

function requireName(cur: Cursor): string {
  const name = fieldName(cur);
  if (name === undefined) throw cur.unexpected('field name (* or [a..z0..9_$])');
  return name;
}

/** An optional `alias:` (a single colon; `::` is a cast). */
function optionalAlias(cur: Cursor): string | undefined {
  const start = cur.pos;
  const name = fieldName(cur);
  if (name !== undefined && cur.peek() === ':' && cur.peek(1) !== ':') {
    cur.pos += 1;
    return name;
  }
  cur.pos = start;
  return undefined;
}

function jsonPath(cur: Cursor): JsonStep[] {
  const steps: JsonStep[] = [];
  for (;;) {
    let arrow: JsonStep['arrow'];
    if (cur.eat('->>')) arrow = '->>';
    else if (cur.eat('->')) arrow = '->';
    else return steps;
    const idx = /^-?\d+/.exec(cur.text.slice(cur.pos));
    const after = idx ? cur.text.slice(cur.pos + idx[0].length) : '';
    if (idx && /^(->|::|\.|,|\)|$)/.test(after)) {
      cur.pos += idx[0].length;
      steps.push({ arrow, key: idx[0], index: true });
      continue;
    }
    const key = quoted(cur) ?? bareName(cur, (ch) => !'(-:.,>)'.includes(ch));
    if (key === undefined) throw cur.unexpected('any non reserved character different from: .,>()');
    steps.push({ arrow, key, index: false });
  }
}

function castName(cur: Cursor): string | undefined {
  if (!cur.eat('::')) return undefined;
  const start = cur.pos;
  while (!cur.done() && IDENT_CHAR.test(cur.peek())) cur.pos += 1;
  const cast = cur.text.slice(start, cur.pos).trim();
  if (cast === '') throw cur.unexpected('letter or digit');
  return cast;
}

function endOfItem(cur: Cursor): void {
  cur.skipSpaces();
  if (!cur.done() && cur.peek() !== ',' && cur.peek() !== ')') {
    throw cur.unexpected('"->>", "->", "::", ".", ")", "," or end of input');
  }
}

/** `!hint`, `!inner`, `!left`: at most two, one hint and one join type. */
function embedParams(cur: Cursor): { hint: string | undefined; join: EmbedSelect['join'] } {
  let hint: string | undefined;
  let join: EmbedSelect['join'];
  for (let i = 0; i < 2 && cur.eat('!'); i += 1) {
    const name = requireName(cur);
    if ((name === 'inner' || name === 'left') && join === undefined) join = name;
    else if (hint === undefined) hint = name;
    else throw cur.unexpected('"("');
  }
  return { hint, join };
}

function item(cur: Cursor, depth: number): SelectItem {
  cur.skipSpaces();
  if (cur.eat('...')) {
    const name = requireName(cur);
    const { hint, join } = embedParams(cur);
    if (cur.peek() !== '(') throw cur.unexpected('"("');
    return {
      kind: 'embed',
      name,
      alias: undefined,
      hint,
      join,
      spread: true,
      children: forest(cur, depth + 1),
    };
  }
  if (cur.peek() === '*') {
    cur.pos += 1;
    endOfItem(cur);
    return field('*', [], undefined, undefined, undefined, undefined);
  }
  const alias = optionalAlias(cur);
  if (cur.eat('count()')) {
    const aggregateCast = castName(cur);
    endOfItem(cur);
    return field('*', [], alias, undefined, 'count', aggregateCast);
  }
  const name = requireName(cur);
  if (name !== 'count' && (cur.peek() === '(' || cur.peek() === '!')) {
    const { hint, join } = embedParams(cur);
    if (cur.peek() !== '(') throw cur.unexpected('"("');
    return {
      kind: 'embed',
      name,
      alias,
      hint,
      join,
      spread: false,
      children: forest(cur, depth + 1),
    };
  }
  const json = jsonPath(cur);
  const cast = castName(cur);
  let aggregate: AggregateFn | undefined;
  const agg = /^\.(count|sum|avg|max|min)\(\)/.exec(cur.text.slice(cur.pos));
  if (agg && AGGREGATES.includes(agg[1] ?? '')) {
    cur.pos += agg[0].length;
    aggregate = agg[1] as AggregateFn;
  }
  const aggregateCast = aggregate === undefined ? undefined : castName(cur);
  endOfItem(cur);
  return field(name, json, alias, cast, aggregate, aggregateCast);
}

function field(
  name: string,
  json: JsonStep[],
  alias: string | undefined,
  cast: string | undefined,
  aggregate: AggregateFn | undefined,
  aggregateCast: string | undefined,
): FieldSelect {
  return { kind: 'field', name, json, alias, cast, aggregate, aggregateCast };
}

/** Guards the recursion: a select nested this deep is refused rather than followed. */
const MAX_EMBED_DEPTH = 32;

/** `(item, item, …)` at the cursor; an empty list is allowed (an embed used only to filter). */
function forest(cur: Cursor, depth: number): SelectItem[] {
  if (depth > MAX_EMBED_DEPTH) throw cur.fail('embedded resources nested too deeply');
  cur.pos += 1; // '('
  const items: SelectItem[] = [];
  cur.skipSpaces();
  if (cur.eat(')')) return items;
  for (;;) {
    items.push(item(cur, depth));
    cur.skipSpaces();
    if (cur.eat(')')) return items;
    if (!cur.eat(',')) throw cur.unexpected('"," or ")"');
  }
}

/** Parses a whole `select=` value (undefined or empty: `*`). */
export function parseSelect(text: string | null): SelectItem[] {
  if (text === null || text.trim() === '') {
    return [field('*', [], undefined, undefined, undefined, undefined)];
  }
  const fail = (details: string) =>
    parseError(`failed to parse select parameter (${text})`, details);
  const cur = new Cursor(text, fail);
  const items: SelectItem[] = [];
  for (;;) {
    items.push(item(cur, 0));
    cur.skipSpaces();
    if (cur.done()) return items;
    if (!cur.eat(',')) throw cur.unexpected('"," or end of input');
  }
}

/** The JSON key PostgREST gives a field without alias (a path's last key, an aggregate's name). */
export function outputName(f: FieldSelect): string {
  if (f.alias !== undefined) return f.alias;
  if (f.aggregate !== undefined) return f.aggregate;
  const last = f.json[f.json.length - 1];
  if (last === undefined) return f.name;
  if (!last.index) return last.key;
  const key = [...f.json].reverse().find((s) => !s.index);
  return key ? key.key : f.name;
}
