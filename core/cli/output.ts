// The one output formatter of the `gf` CLI: a readable table on a terminal,
// `--json`, `--csv`, or `--arrow` (IPC stream to stdout, next-page token in
// the schema metadata). Text forms: UUIDs lowercase canonical, digests
// lowercase hex, timestamps ISO-8601 UTC with microseconds.
import { DataType, tableFromIPC, type Table, type Vector } from 'apache-arrow';
import { ARROW_OPERATION_SCHEMAS, type ArrowOperation, type ArrowResult, type SchemasOf } from '../contract/operations';
import { ARROW_RESULT_SCHEMAS, type ArrowColumn, type ArrowSchemaName } from '../contract/results';
import { hexText, timestampMicros, uuidText } from '../contract/arrow-text';
import { microsIso } from '../contract/time';
import { GfError } from '../errors';
import { arrowResult } from '../api/arrow-result';
import type { CliIo } from './io';
import { escapeCell } from './escape';

export { OUTPUT_FORMATS, withOutputOptions, chooseFormat, formatOf, type OutputFormat, type OutputFlags } from './output-options';
import type { OutputFormat } from './output-options';

/** A text cell (JSON-safe). */
export type TextCell = string | number | boolean | null;

const hex = hexText;

/** Lowercase canonical UUID text of 16 bytes (the contract's one spelling). */
export { uuidText };

/** ISO-8601 UTC with exactly six fractional digits, from integer microseconds (the contract's one formatter). */
export { microsIso };

/** Cells of one column as text values (exact: timestamps read from the raw 64-bit data). */
function columnCells(vector: Vector): TextCell[] {
  const type = vector.type as DataType;
  const out: TextCell[] = [];
  for (const data of vector.data) {
    for (let j = 0; j < data.length; j++) {
      if (!data.getValid(j)) {
        out.push(null);
        continue;
      }
      if (DataType.isTimestamp(type)) {
        const raw = (data.values as BigInt64Array)[j] as bigint; // `values` starts at this chunk's first element
        out.push(microsIso(timestampMicros(raw, type.unit)));
        continue;
      }
      const v: unknown = vector.get(out.length);
      if (DataType.isFixedSizeBinary(type) && v instanceof Uint8Array) out.push(type.byteWidth === 16 ? uuidText(v) : hex(v));
      else if (typeof v === 'bigint') out.push(v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v.toString());
      else if (v instanceof Uint8Array) out.push(hex(v));
      else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out.push(v);
      else out.push(v === null || v === undefined ? null : JSON.stringify(v));
    }
  }
  return out;
}

/** Rows with exactly the schema's field names, in schema order. */
export function rowsOf(table: Table): Record<string, TextCell>[] {
  const names = table.schema.fields.map((f) => f.name);
  const cols = names.map((_, i) => columnCells(table.getChildAt(i) as Vector));
  return Array.from({ length: table.numRows }, (_, r) => Object.fromEntries(names.map((n, i) => [n, (cols[i] as TextCell[])[r] ?? null])));
}

export { escapeCell, escapeControl, escapingIo } from './escape';

function csvCell(v: TextCell): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function tableText(names: readonly string[], rows: readonly Record<string, TextCell>[]): string {
  const cells = rows.map((r) => names.map((n) => (r[n] === null ? '—' : escapeCell(String(r[n])))));
  const widths = names.map((n, i) => Math.max(n.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: readonly string[]) => c.map((s, i) => s.padEnd(widths[i] as number)).join('  ').trimEnd();
  return [line(names), line(widths.map((w) => '─'.repeat(w))), ...cells.map(line)].join('\n') + '\n';
}

/**
 * Prints one result table in the chosen format.
 *
 * `--arrow` writes the IPC stream (token in the schema metadata); `--json`
 * prints `{ "rows", "next_page_token" }`; CSV and the table print rows on
 * stdout and the next-page hint on stderr.
 */
export function writeTableResult(io: CliIo, format: OutputFormat, table: Table, nextPageToken: string | null): void {
  if (format === 'arrow') {
    io.stdout(arrowResult(table, nextPageToken).bytes);
    return;
  }
  const rows = rowsOf(table);
  if (format === 'json') {
    io.stdout(`${JSON.stringify({ rows, next_page_token: nextPageToken })}\n`);
    return;
  }
  const names = table.schema.fields.map((f) => f.name);
  if (format === 'csv') io.stdout([names.join(','), ...rows.map((r) => names.map((n) => csvCell(r[n] ?? null)).join(','))].join('\n') + '\n');
  else io.stdout(tableText(names, rows));
  if (nextPageToken !== null) io.stderr(`next page: --after ${nextPageToken}\n`);
}

// ------------------------------------------------------ typed contract results

/** A result row of a declared schema, as text cells: reading an undeclared column fails `tsc`. */
export type SchemaCells<S extends ArrowSchemaName> = { readonly [C in ArrowColumn<S>]: TextCell };

/** The cells of one row of an Arrow operation's result (participant tables: the family's own columns). */
export type CellsOf<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>> = (typeof ARROW_OPERATION_SCHEMAS)[N] extends 'records'
  ? Readonly<Record<string, TextCell>>
  : S extends ArrowSchemaName
    ? SchemaCells<S>
    : never;

/** A decoded Arrow result: its schema name (when declared), column names and typed rows. */
export interface ResultRows<R> {
  readonly schema: ArrowSchemaName | null;
  readonly names: readonly string[];
  readonly rows: readonly R[];
}

const sameNames = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((c, i) => c === b[i]);

/**
 * Decodes an operation's Arrow result into rows typed by its contract schema.
 *
 * The columns must be one of the operation's declared schemas, in order
 * (`GF_SCHEMA_MISMATCH` otherwise): the CLI never prints a column by a name
 * the contract does not declare.
 */
export function resultRows<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>>(result: ArrowResult, op: N, schema?: S): ResultRows<CellsOf<N, S>> {
  const table = tableFromIPC(result.bytes);
  const names = table.schema.fields.map((f) => f.name);
  const declared: 'records' | readonly ArrowSchemaName[] = schema === undefined ? ARROW_OPERATION_SCHEMAS[op] : [schema];
  let found: ArrowSchemaName | null = null;
  if (declared !== 'records') {
    found = declared.find((name) => sameNames(ARROW_RESULT_SCHEMAS[name], names)) ?? null;
    if (found === null) throw new GfError('GF_SCHEMA_MISMATCH', 'the result does not have the columns the contract declares', { operation: op });
  }
  return { schema: found, names, rows: rowsOf(table) as unknown as CellsOf<N, S>[] };
}

/** How one command prints an Arrow result besides the shared formats. */
export interface ArrowOutput<R> {
  /** A one-row result (receipts, `show`): `--json` prints the row object itself. */
  readonly single?: boolean;
  /** `--json` also names the result schema (`{"schema","rows","next_page_token"}`). */
  readonly jsonSchema?: boolean;
  /** The people-facing text of the default format (the shared table when absent). */
  readonly text?: (rows: readonly R[], names: readonly string[]) => string;
  /** Also print the next-page hint on stderr with `--arrow`. */
  readonly hintWithArrow?: boolean;
  /** The default format's next-page hint (stderr) instead of the token, from the page's rows (e.g. the command that continues). */
  readonly nextHint?: (rows: readonly R[]) => string;
}

/**
 * Prints an operation's Arrow result in the chosen format.
 *
 * `--arrow` writes the dispatcher's bytes as they are (next-page token in the
 * schema metadata): the CLI's bytes equal the facade's and the bridge's by
 * construction.
 */
export function writeArrowResult<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>>(
  io: CliIo,
  format: OutputFormat,
  result: ArrowResult,
  op: N,
  schema?: S,
  output: ArrowOutput<CellsOf<N, S>> = {},
): void {
  const hint = (): void => {
    if (result.next_page_token !== null) io.stderr(`next page: --after ${result.next_page_token}\n`);
  };
  if (format === 'arrow') {
    io.stdout(result.bytes);
    if (output.hintWithArrow === true) hint();
    return;
  }
  const decoded = resultRows(result, op, schema);
  if (format === 'json') {
    if (output.single === true) io.stdout(`${JSON.stringify(decoded.rows[0] ?? null)}\n`);
    else io.stdout(`${JSON.stringify({ ...(output.jsonSchema === true ? { schema: decoded.schema } : {}), rows: decoded.rows, next_page_token: result.next_page_token })}\n`);
    return;
  }
  const rows = decoded.rows as readonly Readonly<Record<string, TextCell>>[];
  if (format === 'csv') io.stdout([decoded.names.join(','), ...rows.map((r) => decoded.names.map((n) => csvCell(r[n] ?? null)).join(','))].join('\n') + '\n');
  else io.stdout(output.text === undefined ? tableText(decoded.names, rows) : output.text(decoded.rows, decoded.names));
  if (format === 'table' && output.nextHint !== undefined) {
    if (result.next_page_token !== null) io.stderr(`${output.nextHint(decoded.rows)}\n`);
    return;
  }
  hint();
}

/**
 * Prints a JSON result: the value itself with `--json`, else the command's text.
 *
 * `--csv` prints `rows` (the result's flat rows, columns in first-seen key
 * order) when the command has them; `--arrow` is for Arrow results only.
 */
export function writeJsonResult<T>(io: CliIo, format: OutputFormat, value: T, text: (value: T) => string, rows?: (value: T) => readonly Readonly<Record<string, TextCell>>[]): void {
  if (format === 'arrow' || (format === 'csv' && rows === undefined)) {
    throw new GfError('GF_VALIDATION', format === 'arrow' ? 'this result is not an Arrow table: use --json, --csv or the default text' : 'this result is not a table: use --json or the default text', { format });
  }
  if (format === 'csv' && rows !== undefined) {
    const list = rows(value);
    const names = [...new Set(list.flatMap((r) => Object.keys(r)))];
    io.stdout([names.join(','), ...list.map((r) => names.map((n) => csvCell(r[n] ?? null)).join(','))].join('\n') + '\n');
    return;
  }
  io.stdout(format === 'json' ? `${JSON.stringify(value)}\n` : text(value));
}

/**
 * Prints rows of a JSON result (agent threads) as a table, CSV or JSON.
 *
 * The same table and CSV spelling as Arrow results; `--json` prints
 * `{ "rows", "next_page_token" }`; the next-page hint goes to stderr.
 */
export function writeRowsResult(io: CliIo, format: OutputFormat, names: readonly string[], rows: readonly Record<string, TextCell>[], nextPageToken: string | null): void {
  if (format === 'arrow') throw new GfError('GF_VALIDATION', 'this result is not an Arrow table: use --json, --csv or the default table', { format });
  if (format === 'json') {
    io.stdout(`${JSON.stringify({ rows, next_page_token: nextPageToken })}\n`);
    return;
  }
  if (format === 'csv') io.stdout([names.join(','), ...rows.map((r) => names.map((n) => csvCell(r[n] ?? null)).join(','))].join('\n') + '\n');
  else io.stdout(tableText(names, rows));
  if (nextPageToken !== null) io.stderr(`next page: --after ${nextPageToken}\n`);
}
