// PostgREST's read planner: a `select=` tree (with embedded resources) plus the query string's
// filters, orders and ranges, turned into ONE SQL statement run as the caller, so RLS applies to
// every embedded row exactly as to the top-level ones (lateral subqueries building JSON, as
// PostgREST's QueryBuilder does). Table reads and rpc results both come through `planRead`.
import type { SqlRunner } from '../sql-engine';
import { quoteIdent } from '../sql-quote';
import type { Catalog } from './catalog';
import { parseError, pgrstError } from './errors';
import {
  ColumnResolver,
  compileLeaf,
  compileLogic,
  nonNegativeInt,
  splitTopLevel,
  takeField,
  type ColumnTypes,
  type Params,
} from './query';
import {
  findNode,
  keyPath,
  nodeSql,
  selName,
  type CompiledField,
  type EmbedInfo,
  type ReadNode,
} from './read-sql';
import { readDbConfig } from './db-config';
import { findRelationship, isToOne, type RelationshipCache } from './relationships';
import {
  outputName,
  parseSelect,
  type FieldSelect,
  type JsonStep,
  type SelectItem,
} from './select-parse';

/**
 * What `planRead` needs. Stable entry point: the rpc path (devstack/rest/rpc.ts) calls it with a
 * function call as `from`; table reads call it with `"schema"."table"`.
 */
export interface PlanReadInput {
  tx: SqlRunner;
  catalog: Catalog;
  /**
   * A FROM item without alias: `"public"."users"` or `"public"."fn"("a" => $1::int)`. Values it
   * binds must already be in `params` (planRead appends after them).
   */
  from: string;
  /**
   * The name the source is known by: its alias in SQL, the `table` in error messages, and the
   * table (or the function's return type) whose relationships embeds follow.
   */
  relation: string;
  /** The source's columns (name → SQL type), as `select`, filters and orders may name them. */
  columns: ColumnTypes;
  /** The whole query string: select, filters, order, limit, offset, embedded params. */
  search: URLSearchParams;
  params: Params;
  /** Query keys that are not filters here (an rpc's GET arguments). */
  skip?: ReadonlySet<string>;
  /** Rows to skip and the most to return at the top level (after Range, limit and max_rows). */
  offset: number;
  limit: number | undefined;
  /** PostgREST's db-max-rows, which also caps every embedded to-many list. */
  maxRows?: number;
}

/** The SQL of a read over `params`. */
export interface PlannedRead {
  /** The page: one row per result row, columns named as the response's JSON keys. */
  sql: string;
  /**
   * Every row the filters (and inner embeds) keep, without the page: what a count counts. It
   * uses only the first `matchParams` of `params.values`.
   */
  matchSql: string;
  matchParams: number;
}

/** The relation a node reads, with what its fields and embeds resolve against. */
interface Source {
  relation: string;
  alias: string;
  fromSql: string;
  columns: ColumnTypes;
}

interface Planner {
  catalog: Catalog;
  rels: RelationshipCache;
  params: Params;
  maxRows: number | undefined;
}

/** What a read without embeds needs: computed fields then go to Postgres as `alias.name`. */
const NO_RELATIONSHIPS: RelationshipCache = {
  schema: 'public',
  byTable: new Map(),
  computedFields: new Map(),
};

/** Parses `select`, resolves every embed, binds every value: PostgREST's ReadPlan tree as SQL. */
export async function planRead(input: PlanReadInput): Promise<PlannedRead> {
  const items = parseSelect(input.search.get('select'));
  const planner: Planner = {
    catalog: input.catalog,
    // Read (or taken from the schema cache) only when something is embedded.
    rels: items.some((i) => i.kind === 'embed')
      ? await input.catalog.relationships()
      : NO_RELATIONSHIPS,
    params: input.params,
    maxRows: input.maxRows,
  };
  if (usesAggregates(items) && !(await readDbConfig(input.tx)).aggregatesEnabled) {
    throw pgrstError(400, 'PGRST123', 'Use of aggregate functions is not allowed');
  }
  const source: Source = {
    relation: input.relation,
    alias: input.relation,
    fromSql: `${input.from} AS ${quoteIdent(input.relation)}`,
    columns: input.columns,
  };
  const root = await buildNode(planner, items, source, undefined, 0);
  applyQuery(planner, root, input.search, input.skip ?? new Set());
  if (input.limit !== undefined) root.limit = input.limit;
  if (input.offset > 0) root.offset = input.offset;
  return {
    sql: nodeSql(root, true),
    matchSql: nodeSql(root, false),
    matchParams: input.params.values.length,
  };
}

function usesAggregates(items: readonly SelectItem[]): boolean {
  return items.some((i) =>
    i.kind === 'field' ? i.aggregate !== undefined : usesAggregates(i.children),
  );
}

function resolver(source: Source): ColumnResolver {
  return new ColumnResolver(source.alias, source.columns, `${quoteIdent(source.alias)}.`);
}

/** A column (or computed field) with an optional JSON path, as SQL. */
function fieldExpr(
  planner: Planner,
  source: Source,
  name: string,
  json: readonly JsonStep[],
): string {
  const q = quoteIdent(source.alias);
  let expr: string;
  let type: string;
  const computed = planner.rels.computedFields.get(source.relation)?.get(name);
  if (!source.columns.has(name) && computed !== undefined) {
    expr = `${quoteIdent(planner.catalog.schema)}.${quoteIdent(name)}(${q})`;
    type = computed;
  } else if (source.columns.has(name)) {
    const cols = resolver(source);
    expr = cols.ref(name);
    type = cols.type(name);
  } else {
    // As PostgREST, the name goes to Postgres as `alias.name`: a function of the row there
    // (`messages(count)` counts the embedded rows: count(messages_1)), else Postgres's own
    // 42703 "column messages_1.name does not exist".
    expr = `${q}.${quoteIdent(name)}`;
    type = 'unknown';
  }
  if (json.length === 0) return expr;
  if (type !== 'json' && type !== 'jsonb') expr = `to_jsonb(${expr})`;
  for (const step of json) {
    expr += `${step.arrow}${planner.params.add(step.key)}::${step.index ? 'int' : 'text'}`;
  }
  return expr;
}

function compileField(planner: Planner, source: Source, f: FieldSelect): CompiledField[] {
  if (f.name === '*') {
    if (f.aggregate === 'count') {
      const expr = f.aggregateCast ? `CAST(COUNT(*) AS ${f.aggregateCast})` : 'COUNT(*)';
      return [{ expr, name: outputName(f), aggregate: true }];
    }
    return [...source.columns.keys()].map((col) => ({
      expr: `${quoteIdent(source.alias)}.${quoteIdent(col)}`,
      name: col,
      aggregate: false,
    }));
  }
  let expr = fieldExpr(planner, source, f.name, f.json);
  if (f.cast !== undefined) expr = `CAST(${expr} AS ${f.cast})`;
  if (f.aggregate !== undefined) {
    expr = `${f.aggregate.toUpperCase()}(${expr})`;
    if (f.aggregateCast !== undefined) expr = `CAST(${expr} AS ${f.aggregateCast})`;
  }
  return [{ expr, name: outputName(f), aggregate: f.aggregate !== undefined }];
}

async function buildNode(
  planner: Planner,
  items: readonly SelectItem[],
  source: Source,
  embed: EmbedInfo | undefined,
  depth: number,
): Promise<ReadNode> {
  const node: ReadNode = {
    relation: source.relation,
    alias: source.alias,
    fromSql: source.fromSql,
    columns: source.columns,
    fields: [],
    children: [],
    where: [],
    order: [],
    limit: embed ? planner.maxRows : undefined,
    offset: undefined,
    embed,
  };
  for (const item of items) {
    if (item.kind === 'field') {
      node.fields.push(...compileField(planner, source, item));
      continue;
    }
    const rel = findRelationship(planner.rels, source.relation, item.name, item.hint);
    const childDepth = depth + 1;
    const table = await planner.catalog.table(rel.foreignTable);
    if (!table) throw pgrstError(400, 'PGRST200', `Could not find the table '${rel.foreignTable}'`);
    const alias = `${rel.foreignTable}_${childDepth}`;
    const a = quoteIdent(alias);
    const p = quoteIdent(source.alias);
    // Relationships stay within the request's schema (relationships.ts).
    const ns = `${quoteIdent(planner.catalog.schema)}.`;
    let fromSql = `${ns}${quoteIdent(rel.foreignTable)} AS ${a}`;
    let joinConds: string[] = [];
    if (rel.kind === 'fk') {
      joinConds = rel.columns.map(([pc, cc]) => `${a}.${quoteIdent(cc)} = ${p}.${quoteIdent(pc)}`);
    } else if (rel.kind === 'm2m') {
      const j = quoteIdent(rel.junction);
      fromSql += `, ${ns}${j}`;
      joinConds = [
        ...rel.targetColumns.map(([jc, cc]) => `${a}.${quoteIdent(cc)} = ${j}.${quoteIdent(jc)}`),
        ...rel.sourceColumns.map(([jc, pc]) => `${j}.${quoteIdent(jc)} = ${p}.${quoteIdent(pc)}`),
      ];
    } else {
      fromSql = `${ns}${quoteIdent(rel.fn)}(${p}) AS ${a}`;
    }
    const info: EmbedInfo = {
      rel,
      name: item.name,
      alias: item.alias,
      aggAlias: `${rel.table}_${item.alias ?? item.name}_${childDepth}`,
      join: item.join,
      spread: item.spread,
      joinConds,
    };
    const childSource: Source = {
      relation: rel.foreignTable,
      alias,
      fromSql,
      columns: table.columns,
    };
    node.children.push(await buildNode(planner, item.children, childSource, info, childDepth));
  }
  return node;
}

function nodeSource(node: ReadNode): Source {
  return {
    relation: node.relation,
    alias: node.alias,
    fromSql: node.fromSql,
    columns: node.columns,
  };
}

/** Query keys of the top level that are not filters. */
const ROOT_RESERVED = new Set(['select', 'columns', 'on_conflict', 'apikey', 'limit', 'offset']);

/** Filters, `or`/`and`, orders, limits and offsets, at the top level and on embeds. */
function applyQuery(
  planner: Planner,
  root: ReadNode,
  search: URLSearchParams,
  skip: ReadonlySet<string>,
): void {
  for (const [key, value] of search) {
    if (ROOT_RESERVED.has(key) || skip.has(key)) continue;
    const path = keyPath(key);
    const last = path.pop() ?? '';
    let negate = false;
    if ((last === 'or' || last === 'and') && path[path.length - 1] === 'not') {
      path.pop();
      negate = true;
    }
    const node = findNode(root, path);
    const cols = resolver(nodeSource(node));
    if (path.length > 0 && (last === 'limit' || last === 'offset')) {
      const n = nonNegativeInt(last, value);
      // db-max-rows caps embedded lists too (PostgREST's restrictRange on every node).
      if (last === 'offset') node.offset = n;
      else if (n !== undefined) node.limit = Math.min(n, planner.maxRows ?? n);
    } else if (last === 'order') {
      node.order = compileOrderTerms(planner, node, value);
    } else if (last === 'or' || last === 'and') {
      const sql = compileLogic(cols, last, value, planner.params);
      node.where.push(negate ? `not ${sql}` : sql);
    } else {
      // `messages=is.null` / `not.is.null` (PostgREST 12): whether the embed found rows. Any
      // other operator on that name is an ordinary column filter, as in addNullEmbedFilters.
      const embedded = node.children.find((c) => c.embed && selName(c.embed) === last);
      const isNull = /^(not\.)?is\.null$/i.exec(value);
      if (embedded?.embed && isNull) {
        const agg = quoteIdent(embedded.embed.aggAlias);
        node.where.push(isNull[1] ? `${agg} IS NOT NULL` : `${agg} IS NULL`);
      } else {
        node.where.push(compileLeaf(cols, last, value, planner.params, false));
      }
    }
  }
}

/** `order=a.desc.nullslast,author(name).asc,data->k` for one node. */
function compileOrderTerms(planner: Planner, node: ReadNode, value: string): string[] {
  const bad = () => parseError(`failed to parse order (${value})`);
  if (value.trim() === '') return [];
  return splitTopLevel(value, 'order').map((raw) => {
    const term = raw.trim();
    const first = takeField(term, '.(-');
    if (!first) throw bad();
    let expr: string;
    let rest = first.rest;
    if (rest.startsWith('(')) {
      const close = rest.indexOf(')');
      if (close < 0) throw bad();
      const inner = takeField(rest.slice(1, close), '');
      if (!inner || inner.rest !== '') throw bad();
      rest = rest.slice(close + 1);
      const child = findNode(node, [first.name]);
      if (!child.embed || !isToOne(child.embed.rel)) {
        throw pgrstError(
          400,
          'PGRST118',
          `A related order on '${first.name}' is not possible`,
          `'${node.relation}' and '${first.name}' do not form a many-to-one or one-to-one relationship`,
        );
      }
      expr = `${quoteIdent(child.embed.aggAlias)}.${quoteIdent(inner.name)}`;
    } else {
      // The name runs up to the first `.` or `->` (a `-` alone belongs to the name).
      let name = first.name;
      while (rest.startsWith('-') && !rest.startsWith('->')) {
        const more = takeField(rest.slice(1), '.(-');
        name += '-' + (more?.name ?? '');
        rest = more?.rest ?? '';
      }
      const json: JsonStep[] = [];
      for (let m = /^(->>?)([^.>-]+)/.exec(rest); m; m = /^(->>?)([^.>-]+)/.exec(rest)) {
        const key = m[2] ?? '';
        json.push({ arrow: m[1] === '->>' ? '->>' : '->', key, index: /^-?\d+$/.test(key) });
        rest = rest.slice(m[0].length);
      }
      expr = fieldExpr(planner, nodeSource(node), name, json);
    }
    const sql = [expr];
    if (rest !== '' && !rest.startsWith('.')) throw bad();
    for (const mod of rest === '' ? [] : rest.slice(1).split('.')) {
      if (mod === 'asc' || mod === 'desc') sql.push(mod);
      else if (mod === 'nullsfirst') sql.push('nulls first');
      else if (mod === 'nullslast') sql.push('nulls last');
      else throw bad();
    }
    return sql.join(' ');
  });
}
