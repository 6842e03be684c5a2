// The result schemas' metadata keys, column-name lists and row types, all
// derived from the one declaration per table (core/contract/tables.ts): the
// renderer and the CLI read rows typed by them (`ArrowRow`, `Row<Op>`), so a
// renamed column or a changed kind fails `tsc` wherever a screen or a
// formatter reads it.
import {
  CHECKPOINT_TABLE,
  ONTOLOGY_RECEIPT_TABLE,
  RECEIPT_TABLE,
  RESULT_TABLES,
  TOMBSTONE_TABLE,
  WORKSPACE_CONFIGURATION_INFO_TABLE,
  WORKSPACE_ONTOLOGY_INFO_TABLE,
  columnNames,
  type ArrowSchemaName,
  type CellRow,
  type ColumnNames,
  type TableRow,
} from './tables';

export type { ArrowSchemaName };

/** Schema-metadata key naming the result schema of an Arrow result. */
export const RESULT_SCHEMA_KEY = 'graphforge.contract.result_schema';

/** Schema-metadata key carrying the next-page token inside Arrow bytes. */
export const NEXT_PAGE_TOKEN_KEY = 'gf.next_page_token';

/** `checkpoint@1` column names (declared in core/contract/tables.ts). */
export const CHECKPOINT_COLUMNS = columnNames(CHECKPOINT_TABLE);
/** `checkpoint_receipt@1` column names. */
export const RECEIPT_COLUMNS = columnNames(RECEIPT_TABLE);
/** `checkpoint_tombstone@1` column names. */
export const TOMBSTONE_COLUMNS = columnNames(TOMBSTONE_TABLE);
/** `workspace_ontology_info@1` column names. */
export const WORKSPACE_ONTOLOGY_INFO_COLUMNS = columnNames(WORKSPACE_ONTOLOGY_INFO_TABLE);
/** `workspace_configuration_info@1` column names. */
export const WORKSPACE_CONFIGURATION_INFO_COLUMNS = columnNames(WORKSPACE_CONFIGURATION_INFO_TABLE);
/** `ontology_receipt@1` column names. */
export const ONTOLOGY_RECEIPT_COLUMNS = columnNames(ONTOLOGY_RECEIPT_TABLE);

/**
 * Every named Arrow result schema and its columns, in schema order.
 *
 * `view.records` / `view.record` pages are participant tables: their columns
 * are the record family's (core/participants), not a result schema.
 */
export const ARROW_RESULT_SCHEMAS = Object.fromEntries(Object.entries(RESULT_TABLES).map(([name, table]) => [name, columnNames(table)])) as unknown as {
  readonly [S in ArrowSchemaName]: ColumnNames<(typeof RESULT_TABLES)[S]>;
};

/** The column names of a result schema. */
export type ArrowColumn<S extends ArrowSchemaName> = (typeof ARROW_RESULT_SCHEMAS)[S][number];

/**
 * One decoded row of a result schema (`TableRow`): each column's value type
 * (texts, exact numbers), null only where the column is nullable. Reading a
 * column the schema does not declare fails `tsc`.
 */
export type ArrowRow<S extends ArrowSchemaName> = TableRow<S>;

/** A row of a participant table (`view.records`): the family's own columns. */
export type RecordRow = CellRow;
