import { Type } from 'apache-arrow';
import type { Data, FixedSizeBinary, Table, Vector } from 'apache-arrow';
import { parseUuid } from '../canonical';
import { GfError, isGfError } from '../errors';
import type { CellValue } from './columns';
import type { Columns, RecordFamily } from './family';
import { columnsOf } from './records';

/**
 * Rows a validation window decodes at once.
 *
 * Why: rules see JS cells (strings, bigints), about ten times the size of
 * the Arrow bytes; decoding a bounded window at a time keeps validation's
 * memory independent of the participant's size.
 */
export const VALIDATION_WINDOW_ROWS = 65_536;

/** One window of a participant: its first row (in the participant) and its cells, rows numbered from 0. */
export interface RowWindow {
  readonly start: number;
  readonly cols: Columns;
}

/**
 * The rows `[from, numRows)` of `table` as consecutive windows of `size` rows.
 *
 * Cells are decoded lazily per field and per window; a `GF_CANONICAL_UTF8`
 * error names the row in the participant, as a whole-column read would.
 */
export function* rowWindows(family: RecordFamily, table: Table, size: number, from = 0): Generator<RowWindow> {
  const n = table.numRows;
  for (let start = from; start < n; start += size) {
    const cols = columnsOf(family, table.slice(start, Math.min(n, start + size)));
    yield { start, cols: start === 0 ? cols : shiftedErrors(cols, start) };
  }
}

function shiftedErrors(cols: Columns, start: number): Columns {
  return {
    rowCount: cols.rowCount,
    col(name) {
      try {
        return cols.col(name);
      } catch (e) {
        if (isGfError(e) && e.code === 'GF_CANONICAL_UTF8' && typeof e.details.row === 'number') {
          throw new GfError(e.code, e.message.replace(/^GF_CANONICAL_UTF8: /, ''), { ...e.details, row: e.details.row + start });
        }
        throw e;
      }
    },
  };
}

/** A fixed-width binary chunk's bytes (indexed from the chunk's row 0) or undefined for any other layout. */
export function fixedBytes(data: Data, width: number): Uint8Array | undefined {
  if (data.typeId !== Type.FixedSizeBinary || (data.type as FixedSizeBinary).byteWidth !== width) return undefined;
  return data.values as Uint8Array;
}

/** Whether row `j` of a chunk holds a value (the validity bitmap keeps the chunk's offset). */
export function validAt(data: Data, j: number): boolean {
  const bitmap = data.nullBitmap as Uint8Array | undefined;
  if (data.nullCount === 0 || bitmap === undefined || bitmap.length === 0) return true;
  const k = data.offset + j;
  return ((bitmap[k >> 3] as number) & (1 << (k & 7))) !== 0;
}

/** Byte order of two `width`-byte keys. */
export function compareKeys(a: Uint8Array, ai: number, b: Uint8Array, bi: number, width: number): number {
  for (let j = 0; j < width; j++) {
    const d = (a[ai + j] as number) - (b[bi + j] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Membership in the non-null cells of one column, compared as bytes for UUIDs and digests.
 *
 * Why: a `Set` of millions of UUID strings costs hundreds of MB; the keys
 * copied into one sorted typed array (no sort when already in key order, as
 * an identity column is) and a binary search cost the keys' bytes.
 */
export interface KeyIndex {
  /** Width in bytes of a fixed-width key, or 0 when keys are compared as cells. */
  readonly width: number;
  /** True when the `width` bytes at `at` are a key. */
  hasBytes(bytes: Uint8Array, at: number): boolean;
  /** True when the (non-null) cell is a key. */
  has(value: CellValue): boolean;
}

/** The key index of `field` (a declared column) of `table`. */
export function keyIndexOf(family: RecordFamily, table: Table | undefined, field: string, windowRows: number): KeyIndex {
  const kind = family.field(field)?.kind;
  const width = kind === 'uuid' ? 16 : kind === 'digest' ? 32 : 0;
  const vector = table?.getChild(field) ?? null;
  const keys = width === 0 || table === undefined || vector === null ? undefined : sortedKeys(vector, width);
  if (keys !== undefined) return bytesIndex(keys, width);
  const set = new Set<CellValue>();
  if (table !== undefined) {
    for (const w of rowWindows(family, table, windowRows)) for (const v of w.cols.col(field)) if (v !== null) set.add(v);
  }
  return { width: 0, hasBytes: () => false, has: (v) => set.has(v) };
}

function bytesIndex(keys: Uint8Array, width: number): KeyIndex {
  const count = keys.length / width;
  const hasBytes = (bytes: Uint8Array, at: number): boolean => {
    let lo = 0;
    let hi = count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareKeys(keys, mid * width, bytes, at, width);
      if (c === 0) return true;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  };
  const scratch = new Uint8Array(width);
  return {
    width,
    hasBytes,
    has(value) {
      if (typeof value !== 'string') return false;
      if (width === 16) {
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)) return false;
        scratch.set(parseUuid(value));
      } else {
        if (!/^[0-9a-f]{64}$/.test(value)) return false;
        scratch.set(Buffer.from(value, 'hex'));
      }
      return hasBytes(scratch, 0);
    },
  };
}

/** The column's non-null fixed-width keys in ascending byte order, or undefined when a chunk is not fixed-width binary. */
function sortedKeys(vector: Vector, width: number): Uint8Array | undefined {
  const chunks = vector.data;
  for (const d of chunks) if (fixedBytes(d, width) === undefined) return undefined;
  // Always a copy of the keys alone: the participant they come from need not stay in memory while the rule runs.
  let count = 0;
  for (const d of chunks) count += d.length - d.nullCount;
  const keys = new Uint8Array(count * width);
  let w = 0;
  for (const d of chunks) {
    const bytes = fixedBytes(d, width) as Uint8Array;
    for (let j = 0; j < d.length; j++) {
      if (!validAt(d, j)) continue;
      keys.set(bytes.subarray(j * width, (j + 1) * width), w * width);
      w++;
    }
  }
  if (ascending(keys, width)) return keys;
  const order = new Uint32Array(count);
  for (let k = 0; k < count; k++) order[k] = k;
  order.sort((a, b) => compareKeys(keys, a * width, keys, b * width, width));
  const sorted = new Uint8Array(count * width);
  for (let k = 0; k < count; k++) sorted.set(keys.subarray((order[k] as number) * width, ((order[k] as number) + 1) * width), k * width);
  return sorted;
}

function ascending(keys: Uint8Array, width: number): boolean {
  for (let at = width; at < keys.length; at += width) if (compareKeys(keys, at - width, keys, at, width) > 0) return false;
  return true;
}
