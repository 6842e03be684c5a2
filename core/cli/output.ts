// The one output formatter of the `gf` CLI: a readable table on a terminal,
// `--json`, `--csv`, or `--arrow` (IPC stream to stdout, next-page token in
// the schema metadata). Text forms: UUIDs lowercase canonical, digests
// lowercase hex, timestamps ISO-8601 UTC with microseconds.
import type { Table } from 'apache-arrow';
import { decodeResult, decodeTable, type Cell } from '../contract/arrow-decode';
import { csvText } from '../contract/csv';
import type { ArrowOperation, ArrowResult, Row, SchemasOf } from '../contract/operations';
import type { ArrowSchemaName } from '../contract/results';
import { uuidText } from '../contract/arrow-text';
import { microsIso } from '../contract/time';
import { GfError } from '../errors';
import { arrowResult } from '../api/arrow-result';
import type { CliIo } from './io';
import { escapeCell } from './escape';

export { OUTPUT_FORMATS, withOutputOptions, chooseFormat, formatOf, type OutputFormat, type OutputFlags } from './output-options';
import type { OutputFormat } from './output-options';

/** A text cell (JSON-safe): the contract decoder's cell. */
export type TextCell = Cell;

/** Lowercase canonical UUID text of 16 bytes (the contract's one spelling). */
export { uuidText };

/** ISO-8601 UTC with exactly six fractional digits, from integer microseconds (the contract's one formatter). */
export { microsIso };

/** Rows with exactly the schema's field names, in schema order (the contract's one decoder). */
export function rowsOf(table: Table): Readonly<Record<string, TextCell>>[] {
  return [...decodeTable(table).rows];
}

export { escapeCell, escapeControl, escapingIo } from './escape';

function tableText(names: readonly string[], rows: readonly Readonly<Record<string, TextCell>>[]): string {
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
  if (format === 'csv') io.stdout(csvText(names, rows));
  else io.stdout(tableText(names, rows));
  if (nextPageToken !== null) io.stderr(`next page: --after ${nextPageToken}\n`);
}

// ------------------------------------------------------ typed contract results

/** The cells of one row of an Arrow operation's result, typed by its result table (participant tables: the family's own columns). */
export type CellsOf<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>> = Row<N, S>;

/** A decoded Arrow result: its schema name (when declared), column names and typed rows. */
export interface ResultRows<R> {
  readonly schema: ArrowSchemaName | null;
  readonly names: readonly string[];
  readonly rows: readonly R[];
}

/**
 * Decodes an operation's Arrow result into rows typed by its contract table
 * (the contract's one decoder): the fields must be one of the operation's
 * declared tables (`GF_SCHEMA_MISMATCH` otherwise), so the CLI never prints
 * a column by a name or a type the contract does not declare.
 */
export function resultRows<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>>(result: ArrowResult, op: N, schema?: S): ResultRows<CellsOf<N, S>> {
  const decoded = decodeResult(result.bytes, op, schema);
  return { schema: decoded.schema, names: decoded.columns, rows: decoded.rows };
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
  if (format === 'csv') io.stdout(csvText(decoded.names, rows));
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
    io.stdout(csvText([...new Set(list.flatMap((r) => Object.keys(r)))], list));
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
export function writeRowsResult(io: CliIo, format: OutputFormat, names: readonly string[], rows: readonly Readonly<Record<string, TextCell>>[], nextPageToken: string | null): void {
  if (format === 'arrow') throw new GfError('GF_VALIDATION', 'this result is not an Arrow table: use --json, --csv or the default table', { format });
  if (format === 'json') {
    io.stdout(`${JSON.stringify({ rows, next_page_token: nextPageToken })}\n`);
    return;
  }
  if (format === 'csv') io.stdout(csvText(names, rows));
  else io.stdout(tableText(names, rows));
  if (nextPageToken !== null) io.stderr(`next page: --after ${nextPageToken}\n`);
}
