// Arrow IPC pages → rows typed by the contract's result tables, through the
// contract's one decoder (core/contract/arrow-decode.ts). Participant tables
// (a family's own columns, `view.records`) are shown as text, so their cells
// become the text a screen prints. The renderer never holds more than the
// pages it has fetched; each page is decoded once.
import { decodeResult, decodeTable, type Cell, type DecodedTable } from '../core/contract/arrow-decode';
import type { ARROW_OPERATION_SCHEMAS, ArrowOperation, Row, SchemasOf } from '../core/contract/operations';

/** One row of a participant table as a screen shows it: column name → text (null stays null). */
export type DisplayRow = Readonly<Record<string, string | null>>;

/** A decoded Arrow page: column names, rows and the result schema name. */
export type DecodedPage<R = DisplayRow> = DecodedTable<R>;

/** The rows a screen reads of an operation: typed by its result table, or text rows of a participant table. */
export type ScreenRow<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>> = (typeof ARROW_OPERATION_SCHEMAS)[N] extends 'records' ? DisplayRow : Row<N, S>;

/** A cell as the text a screen shows (null stays null). */
export function cellText(v: Cell): string | null {
  return v === null ? null : String(v);
}

function textRow(row: Readonly<Record<string, Cell>>): DisplayRow {
  const out: Record<string, string | null> = {};
  for (const k in row) out[k] = cellText(row[k]!);
  return out;
}

/**
 * Decodes an operation's Arrow result into rows typed by its result table
 * (`GF_SCHEMA_MISMATCH` for any other columns); a participant table's rows
 * as text.
 */
export function decodeArrow<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>>(bytes: Uint8Array, op: N, schema?: S): DecodedPage<ScreenRow<N, S>> {
  const page = decodeResult(bytes, op, schema);
  if (page.schema !== null) return page as unknown as DecodedPage<ScreenRow<N, S>>;
  return { columns: page.columns, rows: (page.rows as readonly Readonly<Record<string, Cell>>[]).map(textRow), schemaName: page.schemaName } as unknown as DecodedPage<ScreenRow<N, S>>;
}

/** Decodes any table into text rows (column-wise). */
export function tableRows(table: Parameters<typeof decodeTable>[0]): DecodedPage {
  const page = decodeTable(table);
  return { columns: page.columns, rows: page.rows.map(textRow), schemaName: page.schemaName };
}
