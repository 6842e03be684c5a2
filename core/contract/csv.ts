// The one CSV writer of every surface (the CLI's `--csv`, the app's exports):
// RFC 4180 quoting (a cell with a comma, a quote or a line break is quoted,
// quotes doubled), null as the empty cell, one `\n` after every line.
// Browser-safe, no import.
import type { Cell } from './tables';

/** One cell as CSV text. */
export function csvCell(v: Cell | undefined): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The header line. */
export function csvHeader(columns: readonly string[]): string {
  return `${columns.map(csvCell).join(',')}\n`;
}

/** Rows as CSV lines (no header), columns in the given order. */
export function csvLines(columns: readonly string[], rows: readonly Readonly<Record<string, Cell | undefined>>[]): string {
  let out = '';
  for (const r of rows) out += `${columns.map((c) => csvCell(r[c])).join(',')}\n`;
  return out;
}

/** Rows as CSV text, header first. */
export function csvText(columns: readonly string[], rows: readonly Readonly<Record<string, Cell | undefined>>[]): string {
  return csvHeader(columns) + csvLines(columns, rows);
}
