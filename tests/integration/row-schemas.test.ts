// The sync library's picture of Outpost's tables (src/data/tables.ts, the valibot schemas of
// src/data/schema.ts) against the database the migrations make, read from its catalog as
// `npm run types` reads it for supabase/database.types.ts, on both engines: every column the
// device writes, scopes by or cascades through exists, and a field the schema lets be null is
// a nullable column (and the other way round). src/data/rows.types-test.ts checks the same at
// compile time against the generated type; this one catches what types cannot (the runtime
// lists of column names).
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readCatalog, type Catalog, type CatalogColumn } from '../../scripts/gen-types-catalog';
import { OUTPOST_SCHEMA } from '../../src/data/tables';
import {
  attachmentInput,
  checklistItemInput,
  commentInput,
  listInput,
  profileInput,
  taskInput,
} from '../../src/data/schema';
import { ENGINE_KINDS, freshDatabase, type TestDatabase } from '../support/database';

/** Each synced table's input schema: the fields a user types in. */
const INPUTS: Record<
  string,
  v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>
> = {
  lists: listInput,
  tasks: taskInput,
  comments: commentInput,
  profiles: profileInput,
  attachments: attachmentInput,
  checklist_items: checklistItemInput,
};

/** The columns every synced row has (src/data/rows.ts ServerColumns): all but deleted_at NOT NULL. */
const SERVER_COLUMNS = {
  id: false,
  version: false,
  created_at: false,
  updated_at: false,
  deleted_at: true,
};

describe.each(ENGINE_KINDS)('the sync schema against the migrations on %s', (kind) => {
  let database: TestDatabase;
  let catalog: Catalog;
  beforeAll(async () => {
    database = await freshDatabase(kind, { seed: false });
    catalog = await readCatalog(database.engine, ['public']);
  });
  afterAll(async () => {
    await database.close();
  });

  /** A table's columns by name (the test fails if the table is missing). */
  function columnsOf(table: string): Map<string, CatalogColumn> {
    const found = catalog.tables.find((t) => t.schema === 'public' && t.name === table);
    expect(found, `public.${table}`).toBeDefined();
    return new Map(catalog.columns.filter((c) => c.tableId === found?.id).map((c) => [c.name, c]));
  }
  /** `table.column`'s nullability, or 'missing'. */
  function nullability(table: string, column: string): 'null' | 'not null' | 'missing' {
    const found = columnsOf(table).get(column);
    return found ? (found.isNullable ? 'null' : 'not null') : 'missing';
  }

  it('has every synced table, with the columns the device writes and scopes by', () => {
    for (const table of OUTPOST_SCHEMA.tables) {
      const columns = [...columnsOf(table.name).keys()];
      const wanted = [
        ...table.insertColumns,
        ...table.patchColumns,
        ...(table.scope.kind === 'list' ? [table.scope.column] : []),
      ];
      expect(columns, table.name).toEqual(expect.arrayContaining(wanted));
      for (const [column, isNullable] of Object.entries(SERVER_COLUMNS)) {
        expect(nullability(table.name, column), `${table.name}.${column}`).toBe(
          isNullable ? 'null' : 'not null',
        );
      }
    }
  });

  it("makes nullable exactly the input schemas' nullable fields", () => {
    for (const [table, schema] of Object.entries(INPUTS)) {
      for (const [field, entry] of Object.entries(schema.entries)) {
        // An optional field with a default (tasks.repeat: null) is as nullable as its default.
        const inner =
          entry.type === 'optional'
            ? (entry as v.OptionalSchema<v.GenericSchema, unknown>).wrapped
            : entry;
        const expected = inner.type === 'nullable' ? 'null' : 'not null';
        expect(nullability(table, field), `${table}.${field}`).toBe(expected);
      }
    }
  });

  it('has the access model, owner, file and cascade columns the library names', () => {
    const { access, files, cascades, ownerColumns } = OUTPOST_SCHEMA;
    expect(nullability(access.members, access.memberScope)).toBe('not null');
    expect(nullability(access.members, access.memberUser)).toBe('not null');
    expect(nullability(access.members, access.memberRole ?? 'role')).toBe('not null');
    expect(columnsOf(access.scopes).has('id')).toBe(true);
    if (files) expect(nullability(files.table, files.path)).toBe('not null');
    for (const owner of ownerColumns) {
      const inSomeTable = OUTPOST_SCHEMA.tables.some((t) => columnsOf(t.name).has(owner));
      expect(inSomeTable, owner).toBe(true);
    }
    for (const [parent, children] of Object.entries(cascades)) {
      for (const [child, column] of children ?? []) {
        const foreignKey = catalog.relationships.find(
          (r) =>
            r.relation === child && r.referencedRelation === parent && r.columns.join() === column,
        );
        expect(foreignKey, `${child}.${column} -> ${parent}`).toBeDefined();
      }
    }
  });
});
