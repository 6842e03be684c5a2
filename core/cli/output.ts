// The one output formatter of the `gf` CLI: a readable table on a terminal,
// `--json`, `--csv`, or `--arrow` (IPC stream to stdout, next-page token in
// the schema metadata). Text forms: UUIDs lowercase canonical, digests
// lowercase hex, timestamps ISO-8601 UTC with microseconds.
import { DataType, TimeUnit, type Table, type Vector } from 'apache-arrow';
import type { Command } from 'commander';
import { GfError } from '../errors';
import { arrowResult } from '../api/arrow-result';
import type { CliIo } from './io';

/** Output formats, in the order `--help` lists them. */
export const OUTPUT_FORMATS = ['table', 'json', 'csv', 'arrow'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The flags every result-printing command takes. */
export interface OutputFlags {
  readonly json?: boolean;
  readonly csv?: boolean;
  readonly arrow?: boolean;
}

/** Adds `--json`, `--csv` and `--arrow` to a command. */
export function withOutputOptions(cmd: Command): Command {
  return cmd
    .option('--json', 'print {"rows": [...], "next_page_token": ...} (one JSON object)')
    .option('--csv', 'print CSV with a header row')
    .option('--arrow', 'write the Arrow IPC stream to stdout (next-page token in the schema metadata)');
}

/** Picks the format: at most one flag; a table by default (also when stdout is not a terminal, JSON is not implied). */
export function chooseFormat(flags: OutputFlags): OutputFormat {
  const chosen = (['json', 'csv', 'arrow'] as const).filter((f) => flags[f] === true);
  if (chosen.length > 1) throw new GfError('GF_VALIDATION', 'choose one of --json, --csv, --arrow', { flags: chosen });
  return chosen[0] ?? 'table';
}

/** A text cell (JSON-safe). */
export type TextCell = string | number | boolean | null;

const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

/** Lowercase canonical UUID text of 16 bytes. */
export function uuidText(b: Uint8Array): string {
  const h = hex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** ISO-8601 UTC with exactly six fractional digits, from integer microseconds. */
export function microsIso(us: bigint): string {
  const ms = us >= 0n ? us / 1000n : (us - 999n) / 1000n;
  const frac = (((us % 1_000_000n) + 1_000_000n) % 1_000_000n).toString().padStart(6, '0');
  return `${new Date(Number(ms)).toISOString().slice(0, 19)}.${frac}Z`;
}

function toMicros(raw: bigint, unit: TimeUnit): bigint {
  switch (unit) {
    case TimeUnit.SECOND:
      return raw * 1_000_000n;
    case TimeUnit.MILLISECOND:
      return raw * 1000n;
    case TimeUnit.MICROSECOND:
      return raw;
    default:
      return raw / 1000n;
  }
}

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
        const raw = (data.values as BigInt64Array)[data.offset + j] as bigint;
        out.push(microsIso(toMicros(raw, type.unit)));
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

// C0 controls except TAB and LF, DEL, C1 controls, and the bidi overrides and isolates that reorder what a terminal shows.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// In one table cell TAB and LF are escaped too: a cell is one line.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CELL_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const u4 = (c: string): string => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`;

/**
 * Escapes terminal control characters in text bound for a terminal (`\u001b` for ESC, …).
 *
 * User text (checkpoint names, descriptions, reasons, values) reaches stdout
 * and stderr; an ESC, BEL, CSI or bidi override there would let it clear the
 * screen, set the title or disguise output. TAB and LF (the output's own
 * layout) are kept. Inside JSON strings the escape is JSON's own, so JSON
 * output stays valid and means the same.
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, u4);
}

/** `escapeControl` for one table cell: TAB and LF escaped too (a cell is one line). */
export function escapeCell(text: string): string {
  return text.replace(CELL_CONTROL, u4);
}

/** Wraps the CLI's output so every text chunk is escaped (binary chunks, i.e. Arrow IPC, pass unchanged). */
export function escapingIo(io: CliIo): CliIo {
  return {
    stdout: (c) => io.stdout(typeof c === 'string' ? escapeControl(c) : c),
    stderr: (c) => io.stderr(escapeControl(c)),
  };
}

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
