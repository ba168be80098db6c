// Renders a catalog (gen-types-catalog.ts) as the TypeScript that `supabase gen types
// typescript --local` prints: postgres-meta's template, with its sort orders, its type
// mapping and its helper types, formatted by prettier as it formats them (or in a
// repository's own style). Our own code, written after its behaviour; checked once against
// postgres-meta's own typegen test schema, where it differed only in what is left out here:
// the relationships PostgREST infers through views (Outpost's API serves no views).
import { format, type Options } from 'prettier';

import type {
  Catalog,
  CatalogColumn,
  CatalogFunction,
  CatalogFunctionArg,
  CatalogRelationship,
  CatalogTable,
  CatalogType,
} from './gen-types-catalog';
import { helperTypes } from './gen-types-helpers';

export interface RenderOptions {
  /** The schema the helper types (Tables<…>, Enums<…>) default to. */
  readonly defaultSchema: string;
  /** `isOneToOne` on relationships: what the CLI asks for unless PostgREST is v9. */
  readonly detectOneToOne: boolean;
  /** `__InternalSupabase.PostgrestVersion`: the CLI's --linked output has it, --local not. */
  readonly postgrestVersion?: string | undefined;
  /** A comment put above the generated code. */
  readonly header?: string | undefined;
  /**
   * Prettier's options beyond postgres-meta's own (no semicolons): a repository's style, so
   * its format check accepts the file.
   */
  readonly style?: Options | null | undefined;
}

const q = (value: unknown): string => JSON.stringify(value);
const byName = <T extends { name: string }>(a: T, b: T) => a.name.localeCompare(b.name);

/** json, jsonb and text: the types PostgREST accepts as one unnamed argument. */
const UNNAMED_ARG_TYPE_IDS = new Set(['114', '3802', '25']);
const INPUT_MODES = new Set(['in', 'inout', 'variadic']);

const STRING_TYPES = new Set([
  'bytea',
  'bpchar',
  'varchar',
  'date',
  'text',
  'citext',
  'time',
  'timetz',
  'timestamp',
  'timestamptz',
  'uuid',
  'vector',
  'interval',
]);
const NUMBER_TYPES = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric']);

interface Fn {
  readonly fn: CatalogFunction;
  readonly inArgs: CatalogFunctionArg[];
}

/** The generated file's text for `catalog`. */
export async function renderTypes(catalog: Catalog, options: RenderOptions): Promise<string> {
  const schemas = [...catalog.schemas].sort((a, b) => a.localeCompare(b));
  const inSchemas = new Set(schemas);
  const typesById = new Map(catalog.types.map((t) => [t.id, t]));
  const relationTypes = new Map(
    catalog.types.filter((t) => t.typeRelationId !== null).map((t) => [t.id, t]),
  );
  const tablesById = new Map(catalog.tables.map((t) => [t.id, t]));
  const tables = catalog.tables.filter((t) => t.kind === 'r' || t.kind === 'p' || t.kind === 'f');
  const views = catalog.tables.filter((t) => t.kind === 'v' || t.kind === 'm');

  const columnsOf = new Map<string, CatalogColumn[]>();
  for (const t of catalog.tables) columnsOf.set(t.id, []);
  for (const c of catalog.columns) columnsOf.get(c.tableId)?.push(c);
  for (const list of columnsOf.values()) list.sort(byName);
  const columns = (t: CatalogTable) => columnsOf.get(t.id) ?? [];

  const relationships = [...catalog.relationships].sort(
    (a, b) =>
      a.foreignKeyName.localeCompare(b.foreignKeyName) ||
      a.referencedRelation.localeCompare(b.referencedRelation) ||
      q(a.referencedColumns).localeCompare(q(b.referencedColumns)),
  );
  // Only relationships within a schema: PostgREST embeds nothing across schemas.
  const relationshipsOf = (t: CatalogTable) =>
    relationships.filter(
      (r) => r.schema === t.schema && r.relation === t.name && r.referencedSchema === t.schema,
    );

  /** The table or view a function's result is the row of, by name, if any. */
  const returnRelationName = (fn: CatalogFunction): string | null => {
    if (fn.returnTypeRelationId === null) return null;
    const relation = tablesById.get(fn.returnTypeRelationId);
    if (relation) return relation.name;
    return relationTypes.get(fn.returnTypeId)?.name ?? null;
  };

  // The functions PostgREST can call: named arguments, or one unnamed json/jsonb/text (or
  // row) argument, or unnamed ones that all have defaults.
  const fns: Fn[] = [];
  for (const fn of catalog.functions) {
    if (!inSchemas.has(fn.schema)) continue;
    fn.args.sort(byName);
    const inArgs = fn.args.filter((a) => INPUT_MODES.has(a.mode));
    const first = inArgs[0];
    const callable =
      inArgs.length === 0 ||
      !inArgs.some((a) => a.name === '') ||
      inArgs.every((a) => a.name !== '' || (a.hasDefault && UNNAMED_ARG_TYPE_IDS.has(a.typeId))) ||
      (inArgs.length === 1 &&
        first !== undefined &&
        first.name === '' &&
        (UNNAMED_ARG_TYPE_IDS.has(first.typeId) || relationTypes.has(first.typeId)));
    if (callable) fns.push({ fn, inArgs });
  }
  fns.sort((a, b) => a.fn.name.localeCompare(b.fn.name));

  const tsType = (schema: string, pgType: string): string => {
    if (pgType === 'bool') return 'boolean';
    if (NUMBER_TYPES.has(pgType)) return 'number';
    if (STRING_TYPES.has(pgType)) return 'string';
    if (pgType === 'json' || pgType === 'jsonb') return 'Json';
    if (pgType === 'void') return 'undefined';
    if (pgType === 'record') return 'Record<string, unknown>';
    if (pgType.startsWith('_')) return `(${tsType(schema, pgType.slice(1))})[]`;
    const pick = <T extends { schema: string }>(found: T[]) =>
      found.find((t) => t.schema === schema) ?? found[0];
    const anEnum = pick(catalog.types.filter((t) => t.name === pgType && t.enums.length > 0));
    if (anEnum) {
      return inSchemas.has(anEnum.schema)
        ? `Database[${q(anEnum.schema)}]['Enums'][${q(anEnum.name)}]`
        : anEnum.enums.map(q).join('|');
    }
    const composite = pick(
      catalog.types.filter((t) => t.name === pgType && t.attributes.length > 0),
    );
    if (composite) {
      return inSchemas.has(composite.schema)
        ? `Database[${q(composite.schema)}]['CompositeTypes'][${q(composite.name)}]`
        : 'unknown';
    }
    const table = pick(tables.filter((t) => t.name === pgType));
    if (table) {
      return inSchemas.has(table.schema)
        ? `Database[${q(table.schema)}]['Tables'][${q(table.name)}]['Row']`
        : 'unknown';
    }
    // Materialized views' row types are not looked up (postgres-meta passes only views).
    const view = pick(views.filter((t) => t.kind === 'v' && t.name === pgType));
    if (view) {
      return inSchemas.has(view.schema)
        ? `Database[${q(view.schema)}]['Views'][${q(view.name)}]['Row']`
        : 'unknown';
    }
    return 'unknown';
  };
  const typeOfId = (schema: string, id: string) => {
    const type = typesById.get(id);
    return type ? tsType(schema, type.name) : 'unknown';
  };
  // `unknown` already holds null.
  const nullable = (ts: string, isNullable: boolean) =>
    ts === 'unknown' || ts === 'any' || !isNullable ? ts : `${ts} | null`;
  const column = (schema: string, c: CatalogColumn, isNullable: boolean, optional: boolean) =>
    `${q(c.name)}${optional ? '?' : ''}: ${nullable(tsType(schema, c.format), isNullable)}`;

  const fnResult = (schema: string, fn: CatalogFunction): string => {
    const tableArgs = fn.args.filter((a) => a.mode === 'table');
    if (tableArgs.length > 0) {
      return `{\n${tableArgs.map((a) => `${q(a.name)}: ${typeOfId(schema, a.typeId)}`).join(',')} }`;
    }
    const relation = [...tables, ...views].find(
      (t) => t.schema === schema && t.id === fn.returnTypeRelationId,
    );
    if (relation) {
      return `{\n${columns(relation)
        .map((c) => column(schema, c, c.isNullable, false))
        .join(',\n')} }`;
    }
    return typeOfId(schema, fn.returnTypeId);
  };

  const fnReturns = (schema: string, fn: CatalogFunction, result: string): string => {
    const target = returnRelationName(fn);
    const manyRows = fn.rows !== null && fn.rows > 1;
    let setof = '';
    if (target) {
      setof = `SetofOptions: {\nfrom: "*"\nto: ${q(target)}\nisOneToOne: ${!manyRows}\nisSetofReturn: ${fn.isSetReturning} }`;
    }
    const onlyArg = fn.args.length === 1 ? fn.args[0] : undefined;
    const source = onlyArg ? relationTypes.get(onlyArg.typeId) : undefined;
    if (source && target) {
      const setOfTable = fn.isSetReturning && fn.returnTypeRelationId !== null;
      setof = setOfTable
        ? `SetofOptions: {\nfrom: ${q(source.name)}\nto: ${q(target)}\nisOneToOne: ${!manyRows}\nisSetofReturn: true }`
        : `SetofOptions: {\nfrom: ${q(source.name)}\nto: ${q(target)}\nisOneToOne: true\nisSetofReturn: false }`;
    }
    const oneRow = !manyRows && target !== null;
    return `${result}${fn.isSetReturning && !oneRow ? '[]' : ''}\n${setof}`;
  };

  const typeName = (id: string) => typesById.get(id)?.name ?? 'unknown';

  /**
   * Why PostgREST cannot call `fn` among its overloads `group`, if it cannot: one with no
   * arguments beside one whose only, unnamed argument has a default; or one named argument
   * of the same name and different types.
   */
  const conflict = (schema: string, group: Fn[], { fn, inArgs }: Fn): string | null => {
    if (group.length <= 1) return null;
    const others = group.filter((other) => other.fn !== fn);
    const tail =
      'Try renaming the parameters or the function itself in the database so function overloading can be resolved';
    if (inArgs.length === 0) {
      const rival = others.find(
        ({ inArgs: a }) => a.length === 1 && a[0]?.name === '' && a[0].hasDefault,
      );
      if (rival) {
        const name = `${schema}.${fn.name}`;
        return `Could not choose the best candidate function between: ${name}(), ${name}( => ${typeName(rival.fn.returnTypeId)}). ${tail}`;
      }
    }
    const only = inArgs.length === 1 ? inArgs[0] : undefined;
    if (only && only.name !== '') {
      const rivals = others.filter(
        ({ inArgs: a }) =>
          a.length === 1 && a[0]?.name === only.name && a[0].typeId !== only.typeId,
      );
      if (rivals.length > 0) {
        const listed = [{ fn, inArgs }, ...rivals]
          .sort((a, b) => Number(a.inArgs[0]?.typeId ?? 0) - Number(b.inArgs[0]?.typeId ?? 0))
          .map(
            (f) =>
              `${schema}.${fn.name}(${f.inArgs.map((a) => `${a.name} => ${typeName(a.typeId)}`).join(', ')})`,
          )
          .join(', ');
        return `Could not choose the best candidate function between: ${listed}. ${tail}`;
      }
    }
    return null;
  };

  /** A function of one unnamed row argument that returns no row: not in PostgREST's cache. */
  const takesRowOnly = ({ fn, inArgs }: Fn) => {
    const only = inArgs.length === 1 ? inArgs[0] : undefined;
    return (
      only !== undefined &&
      only.name === '' &&
      relationTypes.has(only.typeId) &&
      returnRelationName(fn) === null
    );
  };

  const signatures = (schema: string, group: Fn[]) =>
    group
      .map((f) => {
        const { fn, inArgs } = f;
        const args =
          inArgs.length === 0
            ? 'never'
            : `{ ${inArgs
                .map((a) => `${q(a.name)}${a.hasDefault ? '?' : ''}: ${typeOfId(schema, a.typeId)}`)
                .join(',')} }`;
        const why = conflict(schema, group, f);
        const result =
          why !== null
            ? `{ error: true } & ${q(why)}`
            : takesRowOnly(f)
              ? `{ error: true } & ${q(`the function ${schema}.${fn.name} with parameter or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache`)}`
              : fnResult(schema, fn);
        return `{ Args: ${args}; Returns: ${fnReturns(schema, fn, result)} }`;
      })
      .join(' |\n');

  const relationship = (r: CatalogRelationship) =>
    `{\nforeignKeyName: ${q(r.foreignKeyName)}\ncolumns: ${q(r.columns)}${
      options.detectOneToOne ? `\nisOneToOne: ${r.isOneToOne}` : ''
    }\nreferencedRelation: ${q(r.referencedRelation)}\nreferencedColumns: ${q(r.referencedColumns)} }`;

  const never = '[_ in never]: never';
  const block = (items: string[]) => (items.length === 0 ? never : items.join('\n'));

  const schemaBlock = (schema: string): string => {
    const schemaTables = tables.filter((t) => t.schema === schema).sort(byName);
    const schemaViews = views.filter((t) => t.schema === schema).sort(byName);
    const schemaFns = fns.filter((f) => f.fn.schema === schema);
    const schemaTypes = catalog.types.filter((t) => t.schema === schema);
    const enums = schemaTypes.filter((t) => t.enums.length > 0).sort(byName);
    const composites = schemaTypes.filter((t) => t.attributes.length > 0).sort(byName);
    // Computed fields: a function taking the table's row shows as a column of its Row.
    const computed = (t: CatalogTable) =>
      schemaFns
        .filter(({ fn }) => fn.argumentTypes === t.name)
        .map(({ fn }) => `${q(fn.name)}: ${nullable(fnResult(schema, fn), true)}`);

    const tableBlocks = schemaTables.map((t) => {
      const cols = columns(t);
      const row = [...cols.map((c) => column(schema, c, c.isNullable, false)), ...computed(t)];
      const insert = cols.map((c) =>
        c.identityGeneration === 'ALWAYS'
          ? `${q(c.name)}?: never`
          : column(schema, c, c.isNullable, c.isNullable || c.isIdentity || c.hasDefault),
      );
      const update = cols.map((c) =>
        c.identityGeneration === 'ALWAYS'
          ? `${q(c.name)}?: never`
          : column(schema, c, c.isNullable, true),
      );
      return `${q(t.name)}: {
        Row: {
${row.join('\n')} }
        Insert: {
${insert.join('\n')} }
        Update: {
${update.join('\n')} }
        Relationships: [
${relationshipsOf(t).map(relationship).join(',\n')} ]
      }`;
    });

    const viewBlocks = schemaViews.map((t) => {
      const cols = columns(t);
      const row = [...cols.map((c) => column(schema, c, c.isNullable, false)), ...computed(t)];
      const writable = cols.map((c) =>
        c.isUpdatable ? column(schema, c, true, true) : `${q(c.name)}?: never`,
      );
      const updatable = t.kind === 'v' && t.isUpdatable;
      return `${q(t.name)}: {
        Row: {
${row.join('\n')} }
        ${updatable ? `Insert: {\n${writable.join('\n')} }\nUpdate: {\n${writable.join('\n')} }\n` : ''}Relationships: [
${relationshipsOf(t).map(relationship).join(',\n')} ]
      }`;
    });

    const groups = new Map<string, Fn[]>();
    for (const f of schemaFns) groups.set(f.fn.name, [...(groups.get(f.fn.name) ?? []), f]);
    const fnBlocks = [...groups].map(([name, group]) => {
      group.sort(
        (a, b) =>
          a.fn.argumentTypes.localeCompare(b.fn.argumentTypes) ||
          a.fn.returnType.localeCompare(b.fn.returnType),
      );
      return `${q(name)}:\n${signatures(schema, group)}`;
    });

    const enumBlocks = enums.map((e) => `${q(e.name)}: ${e.enums.map(q).join('|')}`);
    const compositeBlocks = composites.map(
      (c: CatalogType) =>
        `${q(c.name)}: {\n${c.attributes
          .map((a) => `${q(a.name)}: ${nullable(typeOfId(schema, a.typeId), true)}`)
          .join('\n')} }`,
    );

    return `${q(schema)}: {
      Tables: {
${block(tableBlocks)} }
      Views: {
${block(viewBlocks)} }
      Functions: {
${block(fnBlocks)} }
      Enums: {
${block(enumBlocks)} }
      CompositeTypes: {
${block(compositeBlocks)} }
    }`;
  };

  const internal = options.postgrestVersion
    ? `// Allows to automatically instantiate createClient with right options
  // instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)
  __InternalSupabase: {\nPostgrestVersion: ${q(options.postgrestVersion)} }\n`
    : '';

  const constants = schemas.map((schema) => {
    const enums = catalog.types
      .filter((t) => t.schema === schema && t.enums.length > 0)
      .sort(byName)
      .map((e) => `${q(e.name)}: [${e.enums.map(q).join(', ')}]`);
    return `${q(schema)}: {\nEnums: {\n${enums.join(',\n')} } }`;
  });

  const source = `${options.header ?? ''}
export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[]

export type Database = {
  ${internal}${schemas.map(schemaBlock).join('\n')}
}

${helperTypes(options.defaultSchema)}

export const Constants = {
${constants.join(',\n')} } as const
`;
  return format(source, { semi: false, ...options.style, parser: 'typescript' });
}
