import { Type } from 'apache-arrow';
import type { Data, Table } from 'apache-arrow';
import { canonicalizeParticipant, tableFromRecords } from '../participants/index';
import type { DiffAdapter } from './adapters';

/** Compares row `i` of column chunk `a` with row `j` of column chunk `b` (same logical type). */
export type CellCompare = (a: Data, i: number, b: Data, j: number) => number;
/** True when the two cells are byte-identical (which implies canonically equal). */
export type CellEqual = (a: Data, i: number, b: Data, j: number) => boolean;

function valid(d: Data, i: number): boolean {
  const bm = d.nullBitmap;
  if (bm === undefined || bm.length === 0 || d.nullCount === 0) return true;
  const k = d.offset + i;
  return (((bm[k >> 3] as number) >> (k & 7)) & 1) === 1;
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

/**
 * Total order of identity cells in the order participants are stored.
 *
 * Byte order for UUIDs, digests and UTF-8 (UTF-8 byte order is code point
 * order, the participants' identity order); numeric for numbers; false
 * before true. Identity cells are never null.
 */
export function identityCompare(kind: Data): CellCompare {
  if (kind.typeId === Type.Utf8) {
    return (a, i, b, j) => {
      const ao = a.valueOffsets as Int32Array;
      const bo = b.valueOffsets as Int32Array;
      const as = ao[i] as number;
      const bs = bo[j] as number;
      return cmpRange(a.values as Uint8Array, as, (ao[i + 1] as number) - as, b.values as Uint8Array, bs, (bo[j + 1] as number) - bs);
    };
  }
  if (kind.typeId === Type.FixedSizeBinary) {
    const w = fixedWidth(kind);
    return (a, i, b, j) => cmpRange(a.values as Uint8Array, i * w, w, b.values as Uint8Array, j * w, w);
  }
  if (kind.typeId === Type.Bool) {
    return (a, i, b, j) => {
      const x = ((a.values as Uint8Array)[(a.offset + i) >> 3] as number) >> ((a.offset + i) & 7) & 1;
      const y = ((b.values as Uint8Array)[(b.offset + j) >> 3] as number) >> ((b.offset + j) & 7) & 1;
      return x - y;
    };
  }
  return (a, i, b, j) => {
    const x = (a.values as ArrayLike<number | bigint>)[i] as number | bigint;
    const y = (b.values as ArrayLike<number | bigint>)[j] as number | bigint;
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

/**
 * Byte equality of two cells (validity first, then the value bytes).
 *
 * Equal bytes under the same schema imply equal canonical bytes; unequal
 * bytes do not imply a change (e.g. -0 and +0), so callers confirm a
 * candidate with record fingerprints.
 */
export function cellEqual(kind: Data): CellEqual {
  const withNulls = (eq: CellEqual): CellEqual => (a, i, b, j) => {
    const va = valid(a, i);
    if (va !== valid(b, j)) return false;
    return !va || eq(a, i, b, j);
  };
  if (kind.typeId === Type.Utf8 || kind.typeId === Type.Binary) {
    return withNulls((a, i, b, j) => {
      const ao = a.valueOffsets as Int32Array;
      const bo = b.valueOffsets as Int32Array;
      const as = ao[i] as number;
      const bs = bo[j] as number;
      const n = (ao[i + 1] as number) - as;
      return n === (bo[j + 1] as number) - bs && eqRange(a.values as Uint8Array, as, b.values as Uint8Array, bs, n);
    });
  }
  if (kind.typeId === Type.Bool) {
    return withNulls((a, i, b, j) => {
      const x = ((a.values as Uint8Array)[(a.offset + i) >> 3] as number) >> ((a.offset + i) & 7) & 1;
      const y = ((b.values as Uint8Array)[(b.offset + j) >> 3] as number) >> ((b.offset + j) & 7) & 1;
      return x === y;
    });
  }
  const w = fixedWidth(kind);
  if (w === 0) return () => false; // unknown layout: always confirm by fingerprint
  return withNulls((a, i, b, j) => eqRange(bytesOf(a.values as ArrayBufferView), i * w, bytesOf(b.values as ArrayBufferView), j * w, w));
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

/** Compares identity of row `i` of `x` with row `j` of `y`. */
export function compareIdentity(cmps: readonly CellCompare[], x: RawSide, i: number, y: RawSide, j: number): number {
  for (let k = 0; k < cmps.length; k++) {
    const c = (cmps[k] as CellCompare)(x.identity[k] as Data, i, y.identity[k] as Data, j);
    if (c !== 0) return c;
  }
  return 0;
}

/** The identity comparators of a side. */
export function identityComparators(side: RawSide): CellCompare[] {
  return side.identity.map(identityCompare);
}

/**
 * Brings a decoded participant into the merge-join form (see `RawSide`).
 *
 * O(n) identity comparisons when the layout is already canonical (the
 * stored case); otherwise one logical re-canonicalization.
 */
export function prepareSide(adapter: DiffAdapter, table: Table): RawSide {
  if (table.numRows === 0) return sideOf(adapter, tableFromRecords(adapter.family, []));
  if (isPlainLayout(table)) {
    const side = sideOf(adapter, table);
    const cmps = identityComparators(side);
    let sorted = true;
    for (let r = 1; r < side.rows && sorted; r++) sorted = compareIdentity(cmps, side, r - 1, side, r) < 0;
    if (sorted) return side;
  }
  return sideOf(adapter, canonicalizeParticipant(adapter.family, table));
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
