// A participant decoded into merge form: raw column buffers bound for identity and
// content comparison, with the sorted-object memo.
import { Type } from 'apache-arrow';
import type { Data, Table } from 'apache-arrow';
import { canonicalizeParticipant, tableFromRecords } from '../participants/index';
import { BoundedCache } from '../canonical/bounded-cache';
import type { ProjectCaches } from '../project/index';
import type { DiffAdapter } from './plan-adapters';

/** Compares row `i` of one bound column chunk with row `j` of the other. */
export type RowCompare = (i: number, j: number) => number;
/** True when the two bound cells are byte-identical (which implies canonically equal). */
export type RowEqual = (i: number, j: number) => boolean;

/** The validity bitmap of a chunk, or null when it has no nulls. */
function bitmapOf(d: Data): Uint8Array | null {
  const bm = d.nullBitmap;
  return bm === undefined || bm.length === 0 || d.nullCount === 0 ? null : bm;
}

function bytesOf(v: ArrayBufferView): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

function cmpRange(x: Uint8Array, xs: number, xl: number, y: Uint8Array, ys: number, yl: number): number {
  const n = xl < yl ? xl : yl;
  for (let k = 0; k < n; k++) {
    const d = (x[xs + k] as number) - (y[ys + k] as number);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return xl === yl ? 0 : xl < yl ? -1 : 1;
}

function eqRange(x: Uint8Array, xs: number, y: Uint8Array, ys: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (x[xs + k] !== y[ys + k]) return false;
  return true;
}

/** Byte width of a fixed-width value type, or 0. Arrow JS slices fixed-width `values` per chunk (no offset). */
function fixedWidth(d: Data): number {
  switch (d.typeId) {
    case Type.FixedSizeBinary:
      return (d.type as unknown as { byteWidth: number }).byteWidth;
    case Type.Int:
      return (d.type as unknown as { bitWidth: number }).bitWidth / 8;
    case Type.Float:
      return [2, 4, 8][(d.type as unknown as { precision: number }).precision] as number;
    case Type.Timestamp:
    case Type.Duration:
      return 8;
    case Type.Date:
      return (d.type as unknown as { unit: number }).unit === 0 ? 4 : 8;
    case Type.Time:
      return (d.type as unknown as { bitWidth: number }).bitWidth / 8;
    default:
      return 0;
  }
}

function bitAt(bits: Uint8Array, k: number): number {
  return ((bits[k >> 3] as number) >> (k & 7)) & 1;
}

/**
 * Total order of identity cells of two chunks, in the order participants
 * are stored.
 *
 * Byte order for UUIDs, digests and UTF-8 (UTF-8 byte order is code point
 * order, the participants' identity order); numeric for numbers; false
 * before true. Identity cells are never null.
 */
export function bindIdentityCompare(a: Data, b: Data): RowCompare {
  if (a.typeId === Type.Utf8) {
    const ao = a.valueOffsets as Int32Array;
    const bo = b.valueOffsets as Int32Array;
    const av = a.values as Uint8Array;
    const bv = b.values as Uint8Array;
    return (i, j) => {
      const as = ao[i] as number;
      const bs = bo[j] as number;
      return cmpRange(av, as, (ao[i + 1] as number) - as, bv, bs, (bo[j + 1] as number) - bs);
    };
  }
  if (a.typeId === Type.FixedSizeBinary) {
    const w = fixedWidth(a);
    const av = a.values as Uint8Array;
    const bv = b.values as Uint8Array;
    if (w === 16) {
      return (i, j) => {
        const x = i * 16;
        const y = j * 16;
        for (let k = 0; k < 16; k++) {
          const d = (av[x + k] as number) - (bv[y + k] as number);
          if (d !== 0) return d < 0 ? -1 : 1;
        }
        return 0;
      };
    }
    return (i, j) => cmpRange(av, i * w, w, bv, j * w, w);
  }
  if (a.typeId === Type.Bool) {
    const av = a.values as Uint8Array;
    const bv = b.values as Uint8Array;
    return (i, j) => bitAt(av, a.offset + i) - bitAt(bv, b.offset + j);
  }
  const av = a.values as ArrayLike<number | bigint>;
  const bv = b.values as ArrayLike<number | bigint>;
  return (i, j) => {
    const x = av[i] as number | bigint;
    const y = bv[j] as number | bigint;
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

/**
 * Byte equality of the cells of two chunks (validity first, then value bytes).
 *
 * Equal bytes under the same schema imply equal canonical bytes; unequal
 * bytes do not imply a change (e.g. -0 and +0), so callers confirm a
 * candidate with record fingerprints.
 */
export function bindCellEqual(a: Data, b: Data): RowEqual {
  const am = bitmapOf(a);
  const bm = bitmapOf(b);
  const ao0 = a.offset;
  const bo0 = b.offset;
  const withNulls = (eq: RowEqual): RowEqual => {
    if (am === null && bm === null) return eq;
    return (i, j) => {
      const va = am === null ? 1 : bitAt(am, ao0 + i);
      const vb = bm === null ? 1 : bitAt(bm, bo0 + j);
      if (va !== vb) return false;
      return va === 0 || eq(i, j);
    };
  };
  if (a.typeId === Type.Utf8 || a.typeId === Type.Binary) {
    const ao = a.valueOffsets as Int32Array;
    const bo = b.valueOffsets as Int32Array;
    const av = a.values as Uint8Array;
    const bv = b.values as Uint8Array;
    return withNulls((i, j) => {
      const as = ao[i] as number;
      const bs = bo[j] as number;
      const n = (ao[i + 1] as number) - as;
      return n === (bo[j + 1] as number) - bs && eqRange(av, as, bv, bs, n);
    });
  }
  if (a.typeId === Type.Bool) {
    const av = a.values as Uint8Array;
    const bv = b.values as Uint8Array;
    return withNulls((i, j) => bitAt(av, ao0 + i) === bitAt(bv, bo0 + j));
  }
  const w = fixedWidth(a);
  if (w === 0) return () => false; // unknown layout: always confirm by fingerprint
  const av = bytesOf(a.values as ArrayBufferView);
  const bv = bytesOf(b.values as ArrayBufferView);
  if (w === 8 && av.byteOffset % 4 === 0 && bv.byteOffset % 4 === 0) {
    const a32 = new Uint32Array(av.buffer, av.byteOffset, av.length >> 2);
    const b32 = new Uint32Array(bv.buffer, bv.byteOffset, bv.length >> 2);
    return withNulls((i, j) => a32[2 * i] === b32[2 * j] && a32[2 * i + 1] === b32[2 * j + 1]);
  }
  return withNulls((i, j) => eqRange(av, i * w, bv, j * w, w));
}

/** True when rows `i..i+n-1` of one bound chunk are byte-identical to rows `j..j+n-1` of the other. */
export type RangeEqual = (i: number, j: number, n: number) => boolean;

/** Byte ranges at least this long are compared natively (`memcmp`); shorter ones in JS (a native call costs more than it saves). */
const NATIVE_COMPARE_BYTES = 512;

function bufferOf(v: ArrayBufferView): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** `x[xs..xs+n)` equals `y[ys..ys+n)`: JS loop for short ranges, native `memcmp` for long ones. */
function bytesEqual(x: Buffer, xs: number, y: Buffer, ys: number, n: number): boolean {
  if (n >= NATIVE_COMPARE_BYTES) return y.compare(x, xs, xs + n, ys, ys + n) === 0;
  for (let k = 0; k < n; k++) if (x[xs + k] !== y[ys + k]) return false;
  return true;
}

/** `n` 32-bit words from word `xs` / `ys` equal (4-byte aligned fixed-width values). */
function wordsEqual(x: Int32Array, xs: number, y: Int32Array, ys: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (x[xs + k] !== y[ys + k]) return false;
  return true;
}

/** Eight validity bits starting at bit `p` (bit k of the result is row p + k; past the end reads as 0). */
function bits8(bm: Uint8Array, p: number): number {
  const q = p >> 3;
  const r = p & 7;
  const lo = bm[q] ?? 0;
  return r === 0 ? lo : ((lo >> r) | ((bm[q + 1] ?? 0) << (8 - r))) & 0xff;
}

/** Validity of rows `i..i+n-1` equal in both bitmaps (null bitmap = all valid), or null when neither chunk has nulls. Eight rows per step. */
function bindValidityRange(a: Data, b: Data): RangeEqual | null {
  const am = bitmapOf(a);
  const bm = bitmapOf(b);
  if (am === null && bm === null) return null;
  const ao = a.offset;
  const bo = b.offset;
  return (i, j, n) => {
    let k = 0;
    for (; k + 8 <= n; k += 8) {
      const va = am === null ? 0xff : bits8(am, ao + i + k);
      const vb = bm === null ? 0xff : bits8(bm, bo + j + k);
      if (va !== vb) return false;
    }
    for (; k < n; k++) {
      const va = am === null ? 1 : bitAt(am, ao + i + k);
      const vb = bm === null ? 1 : bitAt(bm, bo + j + k);
      if (va !== vb) return false;
    }
    return true;
  };
}

/**
 * Byte equality of a range of cells of two chunks, straight on the value
 * buffers (no allocation, no decoding): fixed width compares validity bits
 * and the `n × width` value bytes (as 32-bit words when aligned); variable
 * width compares validity, value lengths (offset deltas) and value bytes.
 *
 * Equal bytes under the same schema imply equal canonical values; unequal
 * bytes (e.g. garbage under a null slot, -0 and +0) only mean "not proven
 * equal": callers then confirm with record fingerprints. Types without a
 * known flat layout are never proven equal.
 */
export function bindColumnRangeEqual(a: Data, b: Data): RangeEqual {
  const valid = bindValidityRange(a, b);
  let values: RangeEqual;
  if (a.typeId === Type.Utf8 || a.typeId === Type.Binary) {
    const ao = a.valueOffsets as Int32Array;
    const bo = b.valueOffsets as Int32Array;
    const av = bufferOf(a.values as Uint8Array);
    const bv = bufferOf(b.values as Uint8Array);
    values = (i, j, n) => {
      const as = ao[i] as number;
      const bs = bo[j] as number;
      for (let k = 1; k <= n; k++) if ((ao[i + k] as number) - as !== (bo[j + k] as number) - bs) return false;
      return bytesEqual(av, as, bv, bs, (ao[i + n] as number) - as);
    };
  } else if (a.typeId === Type.Bool) {
    const av = a.values as Uint8Array;
    const bv = b.values as Uint8Array;
    const ao0 = a.offset;
    const bo0 = b.offset;
    values = (i, j, n) => {
      for (let k = 0; k < n; k++) if (bitAt(av, ao0 + i + k) !== bitAt(bv, bo0 + j + k)) return false;
      return true;
    };
  } else {
    const w = fixedWidth(a);
    if (w === 0 || fixedWidth(b) !== w) return () => false;
    const ab = a.values as ArrayBufferView;
    const bb = b.values as ArrayBufferView;
    if (w % 4 === 0 && ab.byteOffset % 4 === 0 && bb.byteOffset % 4 === 0) {
      const q = w / 4;
      const aw = new Int32Array(ab.buffer, ab.byteOffset, ab.byteLength >> 2);
      const bw = new Int32Array(bb.buffer, bb.byteOffset, bb.byteLength >> 2);
      const av = bufferOf(ab);
      const bv = bufferOf(bb);
      values = (i, j, n) => (n * w >= NATIVE_COMPARE_BYTES ? bytesEqual(av, i * w, bv, j * w, n * w) : wordsEqual(aw, i * q, bw, j * q, n * q));
    } else {
      const av = bufferOf(ab);
      const bv = bufferOf(bb);
      values = (i, j, n) => bytesEqual(av, i * w, bv, j * w, n * w);
    }
  }
  if (valid === null) return values;
  return (i, j, n) => valid(i, j, n) && values(i, j, n);
}

/**
 * One participant table in the physical form the merge-join reads: a single
 * batch, no dictionaries, no slicing, rows strictly ascending by identity.
 *
 * Stored participants already have that form (the encoder writes it), so
 * this is a check; any other physical layout (other batch sizes,
 * dictionary encodings, row order) is re-canonicalized logically first, so
 * layout can never change the diff.
 */
export interface RawSide {
  readonly table: Table;
  readonly rows: number;
  /** One chunk per schema field, schema order. */
  readonly columns: readonly Data[];
  /** The identity chunks, identity order. */
  readonly identity: readonly Data[];
}

function isPlainLayout(table: Table): boolean {
  if (table.batches.length !== 1) return false;
  const cols = (table.batches[0] as { data: Data }).data.children as Data[];
  return cols.every((c) => c.typeId !== Type.Dictionary && c.offset === 0 && c.dictionary === undefined);
}

function sideOf(adapter: DiffAdapter, table: Table): RawSide {
  const cols = table.numRows === 0 && table.batches.length === 0 ? [] : ((table.batches[0] as { data: Data }).data.children as Data[]);
  const names = table.schema.fields.map((f) => f.name);
  const identity = adapter.identityFields.map((n) => cols[names.indexOf(n)] as Data);
  return { table, rows: table.numRows, columns: cols, identity };
}

/** Compares the identity of row `i` of `x` with row `j` of `y`, field by field. */
export function bindIdentity(x: RawSide, y: RawSide): RowCompare {
  return bindIdentityColumns(x.identity, y.identity);
}

/** Compares row `i` of identity columns `x` with row `j` of `y` (same fields, identity order), field by field. */
export function bindIdentityColumns(x: readonly Data[], y: readonly Data[]): RowCompare {
  const cmps = x.map((d, k) => bindIdentityCompare(d, y[k] as Data));
  if (cmps.length === 1) return cmps[0] as RowCompare;
  return (i, j) => {
    for (let k = 0; k < cmps.length; k++) {
      const c = (cmps[k] as RowCompare)(i, j);
      if (c !== 0) return c;
    }
    return 0;
  };
}

/** Rows at or below which a differing range is scanned row by row rather than halved again. */
const SCAN_ROWS = 8;

/**
 * Column-wise comparison of aligned row ranges of two prepared sides of
 * one family, straight on the raw buffers.
 */
export interface AlignedRanges {
  /**
   * Length of the longest run `r ≤ max` from rows `a` / `b` whose identity
   * cells are byte-identical row for row (0 when the first rows differ).
   * Galloping native comparisons of whole ranges, then a binary search.
   */
  alignedRun(a: number, b: number, max: number): number;
  /**
   * Sets bit `f` of `marks[k]` for each `k < n` where row `a + k` of `x`
   * and row `b + k` of `y` are not proven byte-identical in the
   * non-identity column of schema field `f`. A column equal over the whole
   * range costs one comparison; an unequal one is halved until the
   * differing rows are found.
   */
  markDiffering(a: number, b: number, n: number, marks: Uint32Array): void;
}

/** Binds `AlignedRanges` over two prepared sides with the same schema. */
export function bindAlignedRanges(x: RawSide, y: RawSide): AlignedRanges {
  const idCols = new Set(x.identity);
  const idEqs = x.identity.map((d, k) => bindColumnRangeEqual(d, y.identity[k] as Data));
  const content = [...x.columns.keys()].filter((k) => !idCols.has(x.columns[k] as Data));
  const ranges = content.map((k) => bindColumnRangeEqual(x.columns[k] as Data, y.columns[k] as Data));
  const cells = content.map((k) => bindCellEqual(x.columns[k] as Data, y.columns[k] as Data));
  const idEq = (a: number, b: number, n: number): boolean => {
    for (let k = 0; k < idEqs.length; k++) if (!(idEqs[k] as RangeEqual)(a, b, n)) return false;
    return true;
  };
  const bits = content.map((k) => (1 << k) >>> 0);
  const locate = (eq: RangeEqual, cell: RowEqual, bit: number, a: number, b: number, lo: number, hi: number, marks: Uint32Array): void => {
    if (eq(a + lo, b + lo, hi - lo)) return;
    if (hi - lo <= SCAN_ROWS) {
      for (let k = lo; k < hi; k++) if (!cell(a + k, b + k)) marks[k] = ((marks[k] as number) | bit) >>> 0;
      return;
    }
    const mid = (lo + hi) >>> 1;
    locate(eq, cell, bit, a, b, lo, mid, marks);
    locate(eq, cell, bit, a, b, mid, hi, marks);
  };
  return {
    alignedRun(a, b, max) {
      if (max <= 0 || !idEq(a, b, 1)) return 0;
      let good = 1;
      let step = 16;
      while (good < max) {
        const t = Math.min(max, good + step);
        if (idEq(a + good, b + good, t - good)) {
          good = t;
          step *= 2;
          continue;
        }
        // Rows [0, lo) are aligned; [lo, hi) holds the first misaligned row.
        let lo = good;
        let hi = t;
        while (hi - lo > 1) {
          const mid = (lo + hi) >>> 1;
          if (idEq(a + lo, b + lo, mid - lo)) lo = mid;
          else hi = mid;
        }
        return lo;
      }
      return good;
    },
    markDiffering(a, b, n, marks) {
      for (let c = 0; c < ranges.length; c++) locate(ranges[c] as RangeEqual, cells[c] as RowEqual, bits[c] as number, a, b, 0, n, marks);
    },
  };
}

/**
 * Objects (family + content digest) of one project already found in plain,
 * identity-sorted layout (a diff memo of `ProjectCaches`).
 *
 * A derived fact about immutable content-addressed bytes (the caller has
 * verified the bytes against the digest), so it never needs invalidation;
 * bounded, oldest forgotten first.
 */
export class SortedObjects {
  readonly #sorted = new BoundedCache<string, true>(4096);


  remember(adapter: DiffAdapter, contentSha256: string): void {
    this.#sorted.set(sortedKey(adapter, contentSha256), true);
  }

  has(adapter: DiffAdapter, contentSha256: string): boolean {
    return this.#sorted.has(sortedKey(adapter, contentSha256));
  }

  /** Objects held now. */
  get size(): number {
    return this.#sorted.size;
  }

  clear(): void {
    this.#sorted.clear();
  }
}

function sortedKey(adapter: DiffAdapter, contentSha256: string): string {
  return `${adapter.family.key}:${contentSha256}`;
}

/** Records, in the project's `caches`, that the verified object `contentSha256` of `adapter`'s family is in plain, strictly identity-ascending layout. */
export function rememberSorted(adapter: DiffAdapter, contentSha256: string, caches: ProjectCaches | undefined): void {
  caches?.layer(SortedObjects)?.remember(adapter, contentSha256);
}

/** True when the project (`caches`) already found that object in plain, strictly identity-ascending layout. */
export function isKnownSorted(adapter: DiffAdapter, contentSha256: string, caches: ProjectCaches | undefined): boolean {
  return caches?.layer(SortedObjects)?.has(adapter, contentSha256) === true;
}

/**
 * True when the first `rows` fixed-width cells of `v` (`width` a multiple
 * of 4 bytes) are strictly ascending in byte order: compared as big-endian
 * 32-bit words, four bytes per step.
 */
export function fixedCellsAscending(v: Uint8Array, width: number, rows: number): boolean {
  const q = width / 4;
  const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
  for (let r = 1; r < rows; r++) {
    let c = 0;
    for (let k = 0; k < q && c === 0; k++) {
      const x = dv.getUint32(((r - 1) * q + k) * 4);
      const y = dv.getUint32((r * q + k) * 4);
      c = x < y ? -1 : x > y ? 1 : 0;
    }
    if (c >= 0) return false;
  }
  return true;
}

/** True when the side's identities are strictly ascending (row r-1 < row r for every r). */
function strictlyAscending(side: RawSide): boolean {
  const only = side.identity.length === 1 ? (side.identity[0] as Data) : null;
  if (only !== null && only.typeId === Type.FixedSizeBinary && fixedWidth(only) % 4 === 0) {
    return fixedCellsAscending(only.values as Uint8Array, fixedWidth(only), side.rows);
  }
  const cmp = bindIdentity(side, side);
  for (let r = 1; r < side.rows; r++) if (cmp(r - 1, r) >= 0) return false;
  return true;
}

/**
 * True when a decoded participant is in plain layout with strictly ascending identities (its rows are then in canonical order as they are).
 *
 * With `contentSha256` (the object it was decoded from), the answer is remembered in the project's `caches`.
 */
export function inIdentityOrder(adapter: DiffAdapter, table: Table, contentSha256?: string, caches?: ProjectCaches): boolean {
  if (table.numRows === 0 || !isPlainLayout(table)) return table.numRows === 0;
  if (contentSha256 !== undefined && isKnownSorted(adapter, contentSha256, caches)) return true;
  const sorted = strictlyAscending(sideOf(adapter, table));
  if (sorted && contentSha256 !== undefined) rememberSorted(adapter, contentSha256, caches);
  return sorted;
}

/**
 * Brings a decoded participant into the merge-join form (see `RawSide`).
 *
 * O(n) identity comparisons when the layout is already canonical (the
 * stored case); otherwise one logical re-canonicalization.
 */
export function prepareSide(adapter: DiffAdapter, table: Table, contentSha256?: string, caches?: ProjectCaches): RawSide {
  if (table.numRows === 0) return sideOf(adapter, tableFromRecords(adapter.family, []));
  return sideOf(adapter, inIdentityOrder(adapter, table, contentSha256, caches) ? table : canonicalizeParticipant(adapter.family, table));
}

/**
 * First row of `side` whose identity is greater than (or, with `inclusive`,
 * equal to) the identity described by `probe(side, row)` (binary search).
 *
 * `probe` returns the comparison of the row against the sought key.
 */
export function lowerBound(rows: number, probe: (row: number) => number, inclusive: boolean): number {
  let lo = 0;
  let hi = rows;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = probe(mid);
    if (c < 0 || (!inclusive && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
