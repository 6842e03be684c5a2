import { Type } from 'apache-arrow';
import type { Data, FixedSizeBinary, Table } from 'apache-arrow';
import { parseUuid } from '../canonical';
import { ArrowFileRows } from '../canonical/arrow-file-rows';
import { GfError, isGfError } from '../errors';
import type { CellValue } from './columns';
import type { Columns, RecordFamily } from './family';
import { columnsOf } from './records';

/**
 * Rows a validation window decodes at once.
 *
 * Why: rules see JS cells (strings, bigints), about ten times the size of
 * the Arrow bytes; decoding a bounded window at a time keeps validation's
 * memory independent of the participant's size. Small enough that a
 * window's cells die young (in V8's new space) instead of being promoted
 * and piling up as old-space garbage until a full collection: at 65,536
 * rows the demo's peak RSS at 2M records was 446 MB, at 4,096 it is 276 MB
 * and the build is faster (2,048 is slower again).
 */
export const VALIDATION_WINDOW_ROWS = 4_096;

/**
 * A participant as validation reads it: a decoded table, or its stored file read by row ranges.
 *
 * Why: a participant of millions of records read from its verified object
 * window by window is never whole in memory; both give the same cells.
 */
export type ParticipantTable = Table | ArrowFileRows;

/**
 * The chunks of one column, in row order: a table's own chunks, or windows of
 * `windowRows` rows read from the file.
 */
export function* columnChunks(table: ParticipantTable, name: string, windowRows: number): Generator<Data> {
  if (!(table instanceof ArrowFileRows)) {
    yield* table.getChild(name)?.data ?? [];
    return;
  }
  for (let start = 0; start < table.numRows; start += windowRows) yield table.column(name, start, Math.min(table.numRows, start + windowRows));
}

/** The whole participant as a table (a file read whole: only for small participants and whole-column rules). */
export function wholeTable(table: ParticipantTable): Table {
  return table instanceof ArrowFileRows ? table.slice(0, table.numRows) : table;
}

/** True when the column `name` is stored as fixed-width binary of `width` bytes (so every chunk is). */
export function isFixedColumn(table: ParticipantTable, name: string, width: number): boolean {
  const type = table.schema.fields.find((f) => f.name === name)?.type;
  return type !== undefined && type.typeId === Type.FixedSizeBinary && (type as FixedSizeBinary).byteWidth === width;
}

/** One window of a participant: its first row (in the participant) and its cells, rows numbered from 0. */
export interface RowWindow {
  readonly start: number;
  readonly cols: Columns;
  /** The window's rows as a table (read once: rules comparing bytes use it beside the cells). */
  readonly table: Table;
}

/**
 * The rows `[from, numRows)` of `table` as consecutive windows of `size` rows.
 *
 * Cells are decoded lazily per field and per window; a `GF_CANONICAL_UTF8`
 * error names the row in the participant, as a whole-column read would.
 */
export function* rowWindows(family: RecordFamily, table: ParticipantTable, size: number, from = 0): Generator<RowWindow> {
  const n = table.numRows;
  for (let start = from; start < n; start += size) {
    const slice = table.slice(start, Math.min(n, start + size));
    const cols = columnsOf(family, slice);
    yield { start, cols: start === 0 ? cols : shiftedErrors(cols, start), table: slice };
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
  /**
   * Bytes of keys the index holds for the whole column (beside a bounded cache of read blocks).
   *
   * Why: an index over a sorted stored file holds one key per block, not every
   * key (the demo's peak memory at 10M records depends on it).
   */
  readonly heldBytes: number;
}

/**
 * Keys per block of a file-backed key index: one key a block is held, a block is read on demand.
 *
 * Why: 64 UUIDs are a 1 KiB read, and the sampled keys cost 1/4 byte a key.
 */
export const KEY_BLOCK_ROWS = 64;

/** The key index of `field` (a declared column) of `table`. */
export function keyIndexOf(family: RecordFamily, table: ParticipantTable | undefined, field: string, windowRows: number): KeyIndex {
  const kind = family.field(field)?.kind;
  const width = kind === 'uuid' ? 16 : kind === 'digest' ? 32 : 0;
  const vector = table?.getChild(field) ?? null;
  if (width > 0 && table instanceof ArrowFileRows && vector !== null && vector.nullCount === 0 && isFixedColumn(table, field, width)) {
    const blocks = sortedFileBlocks(table, field, width, windowRows);
    if (blocks !== undefined) return bytesIndex(blocks.hasBytes, width, blocks.heldBytes);
  }
  const keys = width === 0 || table === undefined || vector === null ? undefined : sortedKeys(table, field, width, windowRows);
  if (keys !== undefined) return bytesIndex((bytes, at) => binaryHas(keys, keys.length / width, width, bytes, at), width, keys.length);
  const set = new Set<CellValue>();
  if (table !== undefined) {
    for (const w of rowWindows(family, table, windowRows)) for (const v of w.cols.col(field)) if (v !== null) set.add(v);
  }
  return { width: 0, hasBytes: () => false, has: (v) => set.has(v), heldBytes: 0 };
}

function binaryHas(keys: Uint8Array, count: number, width: number, bytes: Uint8Array, at: number): boolean {
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
}

/**
 * Bytes of blocks a file-backed index keeps read (direct-mapped by block number): at most 64 MiB.
 *
 * Why: a reference check looks keys up in random order, so a cache smaller
 * than the column turns most lookups into a read (at 3M demo records, 8 MiB
 * of blocks made a checkpoint take 17.5 s against 9.9 s with every block
 * kept, at the same peak RSS). 64 MiB holds every node UUID of the 10M demo;
 * the cache fills only as blocks are asked for.
 */
const CACHED_BLOCK_BYTES = 64 * 1024 * 1024;

/**
 * Membership in a stored, non-null, ascending fixed-width column by its first key per block, each block read from the file when asked.
 *
 * Undefined when the column is not ascending (the caller then copies and sorts the keys).
 */
function sortedFileBlocks(
  table: ArrowFileRows,
  field: string,
  width: number,
  windowRows: number,
): { hasBytes: (bytes: Uint8Array, at: number) => boolean; heldBytes: number } | undefined {
  const n = table.numRows;
  const blockCount = Math.ceil(n / KEY_BLOCK_ROWS);
  const firsts = new Uint8Array(blockCount * width);
  let row = 0;
  let prev: Uint8Array | undefined;
  let prevAt = 0;
  for (const d of columnChunks(table, field, windowRows)) {
    const bytes = fixedBytes(d, width) as Uint8Array;
    for (let j = 0; j < d.length; j++, row++) {
      if (prev !== undefined && compareKeys(prev, prevAt, bytes, j * width, width) > 0) return undefined;
      if (row % KEY_BLOCK_ROWS === 0) firsts.set(bytes.subarray(j * width, (j + 1) * width), (row / KEY_BLOCK_ROWS) * width);
      prev = bytes;
      prevAt = j * width;
    }
  }
  const blockBytes = KEY_BLOCK_ROWS * width;
  const slots = new Int32Array(Math.max(1, Math.min(Math.floor(CACHED_BLOCK_BYTES / blockBytes), blockCount))).fill(-1);
  const cache = new Uint8Array(slots.length * blockBytes);
  const block = (b: number): Uint8Array => {
    const slot = b % slots.length;
    const rows = Math.min(n, (b + 1) * KEY_BLOCK_ROWS) - b * KEY_BLOCK_ROWS;
    const at = cache.subarray(slot * blockBytes, slot * blockBytes + rows * width);
    if (slots[slot] === b) return at;
    slots[slot] = -1;
    table.fixedValues(field, b * KEY_BLOCK_ROWS, b * KEY_BLOCK_ROWS + rows, at);
    slots[slot] = b;
    return at;
  };
  const hasBytes = (bytes: Uint8Array, at: number): boolean => {
    // The last block whose first key is <= the key.
    let lo = 0;
    let hi = blockCount - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareKeys(firsts, mid * width, bytes, at, width);
      if (c === 0) return true;
      if (c < 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return false;
    const keys = block(found);
    return binaryHas(keys, keys.length / width, width, bytes, at);
  };
  return { hasBytes, heldBytes: firsts.length };
}

function bytesIndex(hasBytes: (bytes: Uint8Array, at: number) => boolean, width: number, heldBytes: number): KeyIndex {
  const scratch = new Uint8Array(width);
  return {
    width,
    heldBytes,
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

/** The column's non-null fixed-width keys in ascending byte order, or undefined when the column is not fixed-width binary. */
function sortedKeys(table: ParticipantTable, field: string, width: number, windowRows: number): Uint8Array | undefined {
  if (!isFixedColumn(table, field, width)) return undefined;
  // Always a copy of the keys alone: the participant they come from need not stay in memory while the rule runs.
  // Sized from the null count (the file's metadata); grown or cut if the bitmaps say otherwise.
  let keys = new Uint8Array((table.numRows - (table.getChild(field)?.nullCount ?? 0)) * width);
  let w = 0;
  for (const d of columnChunks(table, field, windowRows)) {
    const bytes = fixedBytes(d, width) as Uint8Array;
    for (let j = 0; j < d.length; j++) {
      if (!validAt(d, j)) continue;
      if ((w + 1) * width > keys.length) {
        const grown = new Uint8Array(Math.max(width, 2 * keys.length));
        grown.set(keys);
        keys = grown;
      }
      keys.set(bytes.subarray(j * width, (j + 1) * width), w * width);
      w++;
    }
  }
  const count = w;
  if (keys.length !== count * width) keys = keys.slice(0, count * width);
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
