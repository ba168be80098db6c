// Which function an rpc request names, as PostgREST's findProc decides: the overloads it could
// call, the one whose parameters the argument names fit, else PGRST203 (several fit) or
// PGRST202 (none) with what was searched for and the closest name or parameters as a hint.
import type { SqlRunner } from '../sql-engine';
import { functionNames, type FunctionInfo } from './catalog';
import { pgrstError } from './errors';
import { closest } from './fuzzy';
import type { RpcRequest } from './rpc';

/** Body media types a function may take whole, with the type of its one unnamed parameter. */
export const RAW_BODY_TYPES: ReadonlyMap<string, string> = new Map([
  ['text/plain', 'text'],
  ['text/xml', 'xml'],
  ['application/octet-stream', 'bytea'],
]);
export function matchesParams(
  fn: FunctionInfo,
  keys: ReadonlySet<string>,
  rawBody: boolean,
): boolean {
  if (fn.args.length === 0) return keys.size === 0 && !rawBody;
  const required = fn.args.slice(0, fn.args.length - fn.defaults).map((a) => a.name);
  const optional = new Set(fn.args.slice(fn.args.length - fn.defaults).map((a) => a.name));
  const rest = [...keys].filter((k) => !optional.has(k));
  return rest.length === required.length && required.every((name) => keys.has(name));
}

/** PostgREST drops from its schema cache a function it could not call by name. */
export function callable(fn: FunctionInfo): boolean {
  const unnamed = fn.args.filter((a) => a.name === '');
  if (unnamed.length === 0) return true;
  return (
    unnamed.length === 1 &&
    ['bytea', 'json', 'jsonb', 'text', 'xml'].includes(fn.args[0]?.type ?? '')
  );
}

/**
 * PostgREST's order of overloads (its Routine Ord instance): fewer parameters first, then the
 * parameters compared one by one, by name and then by type.
 */
export function overloadOrder(a: FunctionInfo, b: FunctionInfo): number {
  if (a.args.length !== b.args.length) return a.args.length - b.args.length;
  const text = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  for (let i = 0; i < a.args.length; i += 1) {
    const x = a.args[i];
    const y = b.args[i];
    if (!x || !y) break;
    const byName = text(x.name, y.name);
    if (byName !== 0) return byName;
    const byType = text(x.type, y.type);
    if (byType !== 0) return byType;
  }
  return 0;
}

function paramsText(keys: readonly string[]): string {
  return `(${[...keys].sort().join(', ')})`;
}

/** findProc: the one overload the argument names choose, else PGRST203 or PGRST202. */
export async function resolve(
  tx: SqlRunner,
  schema: string,
  candidates: readonly FunctionInfo[],
  req: Pick<RpcRequest, 'name' | 'method' | 'mediaType'>,
  keys: ReadonlySet<string>,
): Promise<FunctionInfo> {
  const isPost = req.method === 'POST';
  const isJson = isPost && req.mediaType === 'application/json';
  const rawType = isPost ? RAW_BODY_TYPES.get(req.mediaType) : undefined;
  const fallbackType = (type: string) =>
    rawType !== undefined ? type === rawType : isJson && (type === 'json' || type === 'jsonb');
  const matches = candidates.filter((fn) => matchesParams(fn, keys, rawType !== undefined));
  const fallbacks = candidates.filter(
    (fn) =>
      !matches.includes(fn) &&
      isPost &&
      fn.args.length === 1 &&
      fn.args[0]?.name === '' &&
      fallbackType(fn.args[0].type),
  );
  const chosen = matches.length > 0 ? matches : fallbacks;
  const [first] = chosen;
  if (first && chosen.length === 1) return first;
  if (chosen.length > 1) {
    const list = chosen
      .map(
        (fn) => `${schema}.${fn.name}(${fn.args.map((a) => `${a.name} => ${a.type}`).join(', ')})`,
      )
      .join(', ');
    throw pgrstError(
      300,
      'PGRST203',
      `Could not choose the best candidate function between: ${list}`,
      null,
      'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    );
  }
  const sorted = [...keys].sort();
  const func = `${schema}.${req.name}`;
  const withParams = sorted.length === 0 ? ' without parameters' : paramsText(sorted);
  const searched =
    sorted.length === 0
      ? ' without parameters'
      : ` with parameter${sorted.length > 1 ? 's' : ''} ${sorted.join(', ')}`;
  let hint: string | null = null;
  if (rawType === undefined) {
    if (candidates.length === 0) {
      const names = (await functionNames(tx, schema)).filter((n) => n !== req.name);
      const near = closest(names, req.name, 0.75);
      if (near !== undefined) hint = `Perhaps you meant to call the function ${schema}.${near}`;
    } else {
      const lists = candidates.map((fn) => paramsText(fn.args.map((a) => a.name)));
      const near = closest(lists, paramsText(sorted), 0.33);
      if (near !== undefined) hint = `Perhaps you meant to call the function ${func}${near}`;
    }
  }
  const details =
    rawType !== undefined
      ? ` with a single unnamed ${rawType} parameter`
      : isJson
        ? `${searched} or with a single unnamed json/jsonb parameter`
        : searched;
  throw pgrstError(
    404,
    'PGRST202',
    `Could not find the function ${func}${rawType !== undefined ? '' : withParams} in the schema cache`,
    `Searched for the function ${func}${details}, but no matches were found in the schema cache.`,
    hint,
  );
}
