import type { CellValue } from './columns';
import type { Columns, RecordRule } from './family';

/**
 * A rule that judges each row on its own.
 *
 * `broken(cols, row)` returns true when the row violates the rule.
 */
export function rowRule(id: string, broken: (cols: Columns, row: number) => boolean): RecordRule {
  return {
    id,
    rowLocal: true,
    *check(cols: Columns): Iterable<number> {
      for (let row = 0; row < cols.rowCount; row++) if (broken(cols, row)) yield row;
    },
  };
}

/** A rule that a non-null text field matches `pattern` (and is therefore non-empty when the pattern demands it). */
export function textRule(id: string, field: string, pattern: RegExp): RecordRule {
  return rowRule(id, (cols, row) => {
    const v = cols.col(field)[row];
    return v !== null && !(typeof v === 'string' && pattern.test(v));
  });
}

/** A rule that `before <= after` whenever both are present (timestamps or numbers). */
export function orderRule(id: string, before: string, after: string): RecordRule {
  return rowRule(id, (cols, row) => {
    const a = cols.col(before)[row];
    const b = cols.col(after)[row];
    return a !== null && b !== null && a !== undefined && b !== undefined && (a as number | bigint) > (b as number | bigint);
  });
}

/** The cell of `field` at `row` (undefined-free). */
export function cell(cols: Columns, field: string, row: number): CellValue {
  return cols.col(field)[row] ?? null;
}

/** Identifier-like text: a letter, then letters, digits, `_ . : -`; at most 128 characters. */
export const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_.:-]{0,127}$/;

/** Dotted lowercase configuration key, at most 128 characters. */
export const CONFIG_KEY = /^(?=.{1,128}$)[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*$/;

/** Text with at least one non-whitespace character. */
export const NON_BLANK = /\S/;
