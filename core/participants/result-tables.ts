// Arrow tables of the contract's declared result tables (core/contract/tables.ts)
// from plain row objects: the one builder behind the checkpoint, workspace and
// graph results, with the same column builders as participant tables (and
// exact 64-bit counts, which no participant kind has).
import { Schema, Uint64, makeData, type Data, type Table } from 'apache-arrow';
import { RESULT_SCHEMA_KEY } from '../contract/results';
import { resultFields } from '../contract/result-schemas';
import { RESULT_TABLES, type ArrowSchemaName, type ColumnDecl } from '../contract/tables';
import { buildColumn, tableOfColumns, type CellValue } from './columns';

function column(c: ColumnDecl, values: readonly CellValue[]): Data {
  if (c.kind === 'uint64') {
    const data = new BigUint64Array(values.map((v) => BigInt(v as number | bigint)));
    return makeData({ type: new Uint64(), length: values.length, nullCount: 0, data });
  }
  const cells = c.kind === 'timestamp_us' ? values.map((v) => (v === null ? null : BigInt(v as number | bigint))) : values;
  return buildColumn({ name: c.name, kind: c.kind, nullable: c.nullable }, cells);
}

/** A row's value of a column: its own property of that name by default (missing or undefined is null). */
const property = (row: object, column: string): CellValue | undefined => (row as Record<string, CellValue | undefined>)[column];

/**
 * A result table of `name` from `rows` in the given order, with the
 * result-schema metadata; `cell` reads a row's value of a column (by
 * default the row's property of that name; undefined is null). Counts and
 * revisions (`uint64`) are never null.
 */
export function resultTable<R extends object>(name: ArrowSchemaName, rows: readonly R[], cell: (row: R, column: string) => CellValue | undefined = property): Table {
  const declared = RESULT_TABLES[name];
  const columns = declared.map((c) => column(c, rows.map((r) => cell(r, c.name) ?? null)));
  return tableOfColumns(new Schema(resultFields(name), new Map([[RESULT_SCHEMA_KEY, name]])), columns, rows.length);
}
