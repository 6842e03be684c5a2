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
 * The rows `[from, to)` (default: to the end) of `table` as consecutive windows of `size` rows.
 *
 * Cells are decoded lazily per field and per window; a `GF_CANONICAL_UTF8`
 * error names the row in the participant, as a whole-column read would.
 */
export function* rowWindows(family: RecordFamily, table: ParticipantTable, size: number, from = 0, to = table.numRows): Generator<RowWindow> {
  const n = Math.min(to, table.numRows);
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
   * Marks `out[at + j] = 1` for each present row `j` of a fixed-width chunk (`width`-byte keys) whose key is not in the index.
   *
   * Why: a reference check asks for every key of a batch at once; an index
   * over a stored file answers them by one sorted sweep over its blocks
   * (each block read at most once per call), so no cache of blocks grows
   * with the target column.
   */
  markMissing(chunk: Data, out: Uint8Array, at: number): void;
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
    if (blocks !== undefined) return bytesIndex(blocks, width);
  }
  const keys = width === 0 || table === undefined || vector === null ? undefined : sortedKeys(table, field, width, windowRows);
  if (keys !== undefined) {
    const hasBytes = (bytes: Uint8Array, at: number): boolean => binaryHas(keys, keys.length / width, width, bytes, at);
    return bytesIndex({ hasBytes, markMissing: eachMissing(hasBytes, width), heldBytes: keys.length }, width);
  }
  const set = new Set<CellValue>();
  if (table !== undefined) {
    for (const w of rowWindows(family, table, windowRows)) for (const v of w.cols.col(field)) if (v !== null) set.add(v);
  }
  return { width: 0, hasBytes: () => false, has: (v) => set.has(v), markMissing: () => undefined, heldBytes: 0 };
}

/** `markMissing` by one lookup a key (an index held in memory). */
function eachMissing(hasBytes: (bytes: Uint8Array, at: number) => boolean, width: number): KeyIndex['markMissing'] {
  return (chunk, out, at) => {
    const bytes = fixedBytes(chunk, width) as Uint8Array;
    for (let j = 0; j < chunk.length; j++) if (validAt(chunk, j) && !hasBytes(bytes, j * width)) out[at + j] = 1;
  };
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
 * Blocks a sorted sweep reads at once: 256 blocks of 64 UUIDs are a 256 KiB read.
 *
 * Why: the sweep walks the blocks in key order, so one read serves every
 * lookup that lands in the next few hundred blocks; its buffer is the only
 * memory the sweep holds beside the batch being checked.
 */
export const SWEEP_READ_BLOCKS = 256;

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
): Pick<KeyIndex, 'hasBytes' | 'markMissing' | 'heldBytes'> | undefined {
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
  const rowsOf = (b: number): number => Math.min(n, (b + 1) * KEY_BLOCK_ROWS) - b * KEY_BLOCK_ROWS;
  /** The last block in [lo, hi] whose first key is <= the key at `at` (lo - 1 when none is). */
  const blockOf = (bytes: Uint8Array, at: number, lo: number, hi = blockCount - 1): number => {
    let found = lo - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(firsts, mid * width, bytes, at, width) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
  // One lookup at a time (a cell compared as text): the last block read is kept, nothing more.
  const single = new Uint8Array(blockBytes);
  let singleBlock = -1;
  const hasBytes = (bytes: Uint8Array, at: number): boolean => {
    const b = blockOf(bytes, at, 0);
    if (b < 0) return false;
    if (b !== singleBlock) {
      singleBlock = -1;
      table.fixedValues(field, b * KEY_BLOCK_ROWS, b * KEY_BLOCK_ROWS + rowsOf(b), single);
      singleBlock = b;
    }
    return binaryHas(single, rowsOf(b), width, bytes, at);
  };
  // The sweep's read buffer, allocated at the first batch and kept with the index.
  let buffer: Uint8Array | undefined;
  const markMissing = (chunk: Data, out: Uint8Array, at: number): void => {
    const bytes = fixedBytes(chunk, width) as Uint8Array;
    const order = keyOrder(bytes, width, chunk);
    buffer ??= new Uint8Array(Math.min(blockCount, SWEEP_READ_BLOCKS) * blockBytes);
    let from = 0; // blocks [from, to) are in `buffer`
    let to = 0;
    let b = 0;
    for (const j of order) {
      // Keys come in ascending order, so the block only moves forward: gallop, then search the stretch.
      let step = 1;
      while (b + step < blockCount && compareKeys(firsts, (b + step) * width, bytes, j * width, width) <= 0) step *= 2;
      const found = blockOf(bytes, j * width, b + (step >> 1), Math.min(blockCount - 1, b + step));
      if (found < 0) {
        out[at + j] = 1;
        continue;
      }
      b = found;
      if (b >= to) {
        from = b;
        to = Math.min(blockCount, b + SWEEP_READ_BLOCKS);
        table.fixedValues(field, from * KEY_BLOCK_ROWS, Math.min(n, to * KEY_BLOCK_ROWS), buffer);
      }
      const keys = buffer.subarray((b - from) * blockBytes, (b - from) * blockBytes + rowsOf(b) * width);
      if (!binaryHas(keys, rowsOf(b), width, bytes, j * width)) out[at + j] = 1;
    }
  };
  return { hasBytes, markMissing, heldBytes: firsts.length };
}

/**
 * The present rows of a fixed-width chunk in ascending key order.
 *
 * Why: a counting sort on the leading bits (as many as the rows need, up
 * to the first two bytes) leaves buckets of a few keys (random UUIDs), each
 * put in order by insertion (a larger bucket by a comparison sort); no
 * array per key, and a small chunk allocates little.
 */
function keyOrder(bytes: Uint8Array, width: number, chunk: Data): Uint32Array {
  const bits = Math.min(16, Math.max(1, Math.ceil(Math.log2(chunk.length + 1))));
  const shift = 16 - bits;
  const bucketOf = (j: number): number => (((bytes[j * width] as number) << 8) | (bytes[j * width + 1] as number)) >>> shift;
  const starts = new Uint32Array((1 << bits) + 1);
  let count = 0;
  for (let j = 0; j < chunk.length; j++) {
    if (!validAt(chunk, j)) continue;
    const k = bucketOf(j) + 1;
    starts[k] = (starts[k] as number) + 1;
    count++;
  }
  for (let k = 1; k < starts.length; k++) starts[k] = (starts[k] as number) + (starts[k - 1] as number);
  const order = new Uint32Array(count);
  const next = starts.slice(0, starts.length - 1);
  for (let j = 0; j < chunk.length; j++) {
    if (!validAt(chunk, j)) continue;
    const k = bucketOf(j);
    order[next[k] as number] = j;
    next[k] = (next[k] as number) + 1;
  }
  const cmp = (a: number, b: number): number => compareKeys(bytes, a * width, bytes, b * width, width);
  for (let k = 0; k + 1 < starts.length; k++) {
    const from = starts[k] as number;
    const to = starts[k + 1] as number;
    if (to - from <= 1) continue;
    if (to - from > 16) {
      // Keys sharing their leading bits (time-ordered UUIDs do): a comparison sort of the bucket.
      order.subarray(from, to).sort(cmp);
      continue;
    }
    for (let i = from + 1; i < to; i++) {
      const j = order[i] as number;
      let p = i;
      while (p > from && cmp(order[p - 1] as number, j) > 0) {
        order[p] = order[p - 1] as number;
        p--;
      }
      order[p] = j;
    }
  }
  return order;
}

function bytesIndex(blocks: Pick<KeyIndex, 'hasBytes' | 'markMissing' | 'heldBytes'>, width: number): KeyIndex {
  const { hasBytes } = blocks;
  const scratch = new Uint8Array(width);
  return {
    width,
    heldBytes: blocks.heldBytes,
    hasBytes,
    markMissing: blocks.markMissing,
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
