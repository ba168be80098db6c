// Outpost's one fixture helper for rows as a pull stores them: the library's syncedRow over
// Outpost's schema, so a fixture names a table and gives its columns, typed by its row (a
// wrong or missing column is a compile error), and never stamps `_v` or the server's columns
// by hand.
import type { NewRow, Stored, TableName } from '@sync/index';
import { syncedRow } from '@sync/testing';

import type { OutpostDeviceRows } from '../rows';
import { OUTPOST_SCHEMA } from '../tables';

/** A row of `table` as the server's version 1 (unless `fields` says otherwise), synced. */
export function serverRow<T extends TableName<OutpostDeviceRows>>(
  table: T,
  fields: NewRow<OutpostDeviceRows[T]>,
): Stored<OutpostDeviceRows[T]> {
  return syncedRow(OUTPOST_SCHEMA, table, fields);
}
