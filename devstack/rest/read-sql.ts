// The SQL of a planned read tree, shaped as PostgREST's QueryBuilder shapes it: each embedded
// resource a LEFT (or INNER) JOIN LATERAL subquery, to-many ones aggregated with json_agg,
// to-one ones turned into an object with row_to_json, spreads lifted into the parent's columns.
// Pure string assembly: every value was bound (and every name checked) while planning. Also
// how query keys find their node (`messages.channels.id`).
import { parseError, pgrstError } from './errors';
import { takeField, type ColumnTypes } from './query';
import { quoteIdent } from '../sql-quote';
import { isToOne, type Relationship } from './relationships';

/** One select-list entry, already compiled. */
export interface CompiledField {
  /** The expression, without its `AS`. */
  expr: string;
  /** The JSON key it appears under. */
  name: string;
  /** True when it is an aggregate (the node then groups by every other entry). */
  aggregate: boolean;
}

export interface ReadNode {
  /** The table (view, or a function's return type) the node reads. */
  relation: string;
  /** The SQL alias its columns are qualified by (unquoted). */
  alias: string;
  /** FROM items: `"public"."messages" AS "messages_1"` (m2m: plus the junction). */
  fromSql: string;
  /** Its columns (name → SQL type), for filters and orders. */
  columns: ColumnTypes;
  fields: CompiledField[];
  children: ReadNode[];
  where: string[];
  order: string[];
  /** Validated non-negative integers, so written into the SQL as they are. */
  limit: number | undefined;
  offset: number | undefined;
  /** How the node hangs from its parent; undefined at the root. */
  embed: EmbedInfo | undefined;
}

export interface EmbedInfo {
  rel: Relationship;
  /** The relation name as written (`messages`, `users!fk`'s `users`). */
  name: string;
  alias: string | undefined;
  /** The lateral subquery's alias (`users_messages_1`), PostgREST's relAggAlias. */
  aggAlias: string;
  join: 'inner' | 'left' | undefined;
  spread: boolean;
  /** Conditions tying the embedded rows to the parent row. */
  joinConds: string[];
}

/** Key in the parent's JSON: the alias, else the name. */
export function selName(embed: EmbedInfo): string {
  return embed.alias ?? embed.name;
}

/** An embed selecting nothing (`messages()`, used only to filter): not in the output. */
function isEmpty(node: ReadNode): boolean {
  return node.fields.length === 0 && node.children.every(isEmpty);
}

/** The JSON keys a node's rows carry (what a spread of it lifts into the parent). */
function outputNames(node: ReadNode): string[] {
  return [...node.fields.map((f) => f.name), ...node.children.flatMap(childOutputNames)];
}

function childOutputNames(child: ReadNode): string[] {
  const embed = child.embed;
  if (!embed) return [];
  if (embed.spread) return outputNames(child);
  return isEmpty(child) ? [] : [selName(embed)];
}

function childSelects(child: ReadNode): { sql: string; group: string }[] {
  const embed = child.embed;
  if (!embed) return [];
  const agg = quoteIdent(embed.aggAlias);
  if (embed.spread) {
    return outputNames(child).map((name) => {
      const sql = `${agg}.${quoteIdent(name)}`;
      return { sql: `${sql} AS ${quoteIdent(name)}`, group: sql };
    });
  }
  if (isEmpty(child)) return [];
  const name = quoteIdent(selName(embed));
  const sql = isToOne(embed.rel)
    ? `row_to_json(${agg}.*)::jsonb AS ${name}`
    : `COALESCE(${agg}.${agg}, '[]') AS ${name}`;
  return [{ sql, group: name }];
}

function childJoin(child: ReadNode): string {
  const embed = child.embed;
  if (!embed) return '';
  const agg = quoteIdent(embed.aggAlias);
  const sub = nodeSql(child, true);
  const kind = embed.join === 'inner' ? 'INNER' : 'LEFT';
  if (isToOne(embed.rel)) return ` ${kind} JOIN LATERAL (${sub}) AS ${agg} ON TRUE`;
  const cond = embed.join === 'inner' ? `${agg} IS NOT NULL` : 'TRUE';
  const spreadCols = embed.spread
    ? outputNames(child).map(
        (name) =>
          `, COALESCE(json_agg(${agg}.${quoteIdent(name)}), '[]')::jsonb AS ${quoteIdent(name)}`,
      )
    : [];
  return ` ${kind} JOIN LATERAL (SELECT json_agg(${agg})::jsonb AS ${agg}${spreadCols.join('')} FROM (${sub}) AS ${agg}) AS ${agg} ON ${cond}`;
}

/** The node's SELECT; `paged` adds its order, limit and offset. */
export function nodeSql(node: ReadNode, paged: boolean): string {
  const children = node.children.map(childSelects);
  const selects = [
    ...node.fields.map((f) => `${f.expr} AS ${quoteIdent(f.name)}`),
    ...children.flat().map((c) => c.sql),
  ];
  let sql = `SELECT ${selects.join(', ')} FROM ${node.fromSql}`;
  sql += node.children.map(childJoin).join('');
  const where = [...(node.embed?.joinConds ?? []), ...node.where];
  if (where.length > 0) sql += ` WHERE ${where.join(' AND ')}`;
  if (node.fields.some((f) => f.aggregate)) {
    const group = [
      ...node.fields.filter((f) => !f.aggregate).map((f) => f.expr),
      ...children.flat().map((c) => c.group),
    ];
    if (group.length > 0) sql += ` GROUP BY ${group.join(', ')}`;
  }
  if (paged) {
    if (node.order.length > 0) sql += ` ORDER BY ${node.order.join(', ')}`;
    if (node.limit !== undefined) sql += ` LIMIT ${String(node.limit)}`;
    if (node.offset !== undefined) sql += ` OFFSET ${String(node.offset)}`;
  }
  return sql;
}

/** A dotted query key split into its names (`messages.channels.id`), quotes respected. */
export function keyPath(key: string): string[] {
  const parts: string[] = [];
  let rest = key;
  for (;;) {
    const field = takeField(rest, '.');
    if (!field) throw parseError(`failed to parse filter (${key})`);
    parts.push(field.name);
    if (field.rest === '') return parts;
    if (!field.rest.startsWith('.')) throw parseError(`failed to parse filter (${key})`);
    rest = field.rest.slice(1);
  }
}

/** The embedded node a key's path names (by alias when it has one), else PGRST108. */
export function findNode(root: ReadNode, path: readonly string[]): ReadNode {
  let node = root;
  for (const name of path) {
    const child = node.children.find((c) => c.embed && selName(c.embed) === name);
    if (!child) {
      const aliased = node.children.find((c) => c.embed?.name === name && c.embed.alias);
      throw pgrstError(
        400,
        'PGRST108',
        `'${name}' is not an embedded resource in this request`,
        aliased ? 'Target names are not allowed in filters if they have an alias' : null,
        aliased?.embed?.alias
          ? `Change '${name}' to '${aliased.embed.alias}' in filters, orders or limits.`
          : `Verify that '${name}' is included in the 'select' query parameter.`,
      );
    }
    node = child;
  }
  return node;
}
