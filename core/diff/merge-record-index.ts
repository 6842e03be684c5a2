// Record indexes (cache/index/): content-defined chunks under a two-level Merkle
// structure, so a whole-family diff merges only the runs whose chunks differ.
import { createHash } from 'node:crypto';
import { Type } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import type { DiffAdapter } from './plan-adapters';
import { objectCacheKey } from './changes-cache';
import { INDEX_PAUSE } from './steps';
import type { DiffEffect } from './steps';
import type { WindowedParticipant } from './merge-windowed';

/**
 * A participant object's records as a two-level Merkle structure over
 * content-defined chunks, so two versions of a family are compared by
 * descending only into the chunks whose digests differ.
 *
 * Leaves: runs of rows in storage (record UUID) order. A leaf ends after a
 * row whose record UUID hashes to a boundary (`LEAF_MASK`), so boundaries
 * are chosen by the records' own identities: an inserted or removed record
 * moves at most one boundary, a modified one none. A leaf's digest is
 * SHA-256 over the exact bytes the merge compares (per column: validity
 * bits, fixed-width cells, boolean bits, or value lengths and bytes), so
 * equal digests mean equal rows and equal record sets. Tops: runs of leaves
 * cut the same way at a coarser mask over each leaf's first record UUID;
 * a top's digest is SHA-256 over its leaves' entries as stored.
 *
 * Derived and keyed by the adapter tuple and the object's digest: never
 * authoritative; a missing, torn or foreign index is rebuilt.
 */
export interface RecordIndex {
  readonly rows: number;
  readonly leaves: number;
  readonly tops: number;
  /** The encoded file: header, top entries, leaf entries, trailer. */
  readonly bytes: Uint8Array;
}

/** Index file format (part of every key). */
export const RECORD_INDEX_FORMAT = 'graphforge-record-index/1';

/** A leaf ends after a record whose mixed UUID bits `& LEAF_MASK` are all set: 64 rows on average. */
const LEAF_MASK = 63;
/** A top ends after a leaf whose first record's mixed bits `& TOP_MASK` (other bits) are all set: 64 leaves on average. */
const TOP_MASK = 63 << 6;

const MAGIC = 'GFRIDX01';
const HEADER_BYTES = 8 + 4 * 3;
/** A leaf entry: row count (u32), first record UUID (16), digest (32); no position, so equal leaves of two versions encode equally. */
const LEAF_BYTES = 52;
const LEAF_KEY = 4;
/** A top entry: first leaf, leaf count, first row, row count (u32 each), first record UUID (16), digest of its leaf entries (32). */
const TOP_BYTES = 64;
const TOP_KEY = 16;
const TRAILER_BYTES = 32;
const UUID_BYTES = 16;
/** Rows read per window while an index is built. */
const BUILD_WINDOW_ROWS = 1 << 16;

/** The cache key of one object's index under one adapter. */
export function recordIndexKey(adapter: DiffAdapter, contentSha256: string): string {
  return objectCacheKey(RECORD_INDEX_FORMAT, adapter, contentSha256);
}

/** Big-endian 32-bit word of `b` at `at`. */
function word(b: Uint8Array, at: number): number {
  return (((b[at] as number) << 24) | ((b[at + 1] as number) << 16) | ((b[at + 2] as number) << 8) | (b[at + 3] as number)) >>> 0;
}

/** 32 mixed bits of a record UUID (all four words folded, then a finalizer): boundaries do not depend on how the UUID is laid out. */
function uuidBits(b: Uint8Array, at: number): number {
  let h = word(b, at) ^ Math.imul(word(b, at + 4), 0x9e3779b1) ^ Math.imul(word(b, at + 8), 0x85ebca77) ^ Math.imul(word(b, at + 12), 0xc2b2ae3d);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Compares the 16-byte UUIDs at `i` of `a` and `j` of `b` (negative, zero, positive). */
function compareUuid(a: Uint8Array, i: number, b: Uint8Array, j: number): number {
  for (let k = 0; k < UUID_BYTES; k++) {
    const d = (a[i + k] as number) - (b[j + k] as number);
    if (d !== 0) return d;
  }
  return 0;
}

function bytesOf(d: Data): Uint8Array {
  const v = d.values as ArrayBufferView;
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** The validity bits of rows `[r0, r1)` of `d` (all set without a bitmap), packed from bit 0. */
function bitsOf(bitmap: Uint8Array | null, r0: number, r1: number, out: Uint8Array): Uint8Array {
  const n = r1 - r0;
  const o = out.subarray(0, (n + 7) >> 3);
  if (bitmap === null) {
    o.fill(0xff);
    if ((n & 7) !== 0) o[o.length - 1] = (1 << (n & 7)) - 1;
    return o;
  }
  o.fill(0);
  for (let r = 0; r < n; r++) {
    const k = r0 + r;
    if ((((bitmap[k >> 3] as number) >> (k & 7)) & 1) === 1) o[r >> 3] = (o[r >> 3] as number) | (1 << (r & 7));
  }
  return o;
}

/** Digest of rows `[r0, r1)` of a window's columns: what the merge compares, column by column. */
function leafDigest(columns: readonly Data[], r0: number, r1: number, scratch: { bits: Uint8Array; lengths: Int32Array }): Uint8Array {
  const h = createHash('sha256');
  const n = r1 - r0;
  if (scratch.bits.length < (n + 7) >> 3) scratch.bits = new Uint8Array(2 * ((n + 7) >> 3));
  if (scratch.lengths.length < n) scratch.lengths = new Int32Array(2 * n);
  for (const d of columns) {
    const bitmap = d.nullCount > 0 && d.nullBitmap !== undefined ? d.nullBitmap : null;
    h.update(bitsOf(bitmap, r0, r1, scratch.bits));
    if (d.typeId === Type.Bool) {
      h.update(bitsOf(bytesOf(d), r0, r1, scratch.bits));
    } else if (d.valueOffsets !== undefined && d.valueOffsets !== null && (d.typeId === Type.Utf8 || d.typeId === Type.Binary)) {
      const off = d.valueOffsets as Int32Array;
      const lengths = scratch.lengths.subarray(0, n);
      for (let r = 0; r < n; r++) lengths[r] = (off[r0 + r + 1] as number) - (off[r0 + r] as number);
      h.update(new Uint8Array(lengths.buffer, lengths.byteOffset, 4 * n));
      h.update(bytesOf(d).subarray(off[r0] as number, off[r1] as number));
    } else {
      const all = bytesOf(d);
      const width = d.length === 0 ? 0 : all.length / d.length;
      h.update(all.subarray(r0 * width, r1 * width));
    }
  }
  return h.digest();
}

/** True when a window's columns are of kinds `leafDigest` covers exactly. */
function digestible(columns: readonly Data[]): boolean {
  return columns.every(
    (d) =>
      d.typeId === Type.Bool ||
      d.typeId === Type.Utf8 ||
      d.typeId === Type.Binary ||
      d.typeId === Type.FixedSizeBinary ||
      d.typeId === Type.Int ||
      d.typeId === Type.Float ||
      d.typeId === Type.Timestamp ||
      d.typeId === Type.Date ||
      d.typeId === Type.Time,
  );
}

/**
 * Builds the index of one plain stored participant identified by its record
 * UUID, window by window (pausing between windows; each window starts at
 * the first row of the leaf still open). Null when the object does not
 * qualify: another identity, a column kind the leaf digest does not cover,
 * or records not in strictly ascending UUID order.
 */
export function* buildRecordIndex(w: WindowedParticipant, key: string): Generator<DiffEffect, RecordIndex | null, unknown> {
  if (!w.uuidIdentity || w.rows >= 2 ** 32) return null;
  const leaves: Leaf[] = [];
  const scratch = { bits: new Uint8Array(0), lengths: new Int32Array(0) };
  const prev = new Uint8Array(UUID_BYTES);
  let havePrev = false;
  let checkedTo = 0;
  let w0 = 0;
  while (w0 < w.rows) {
    yield INDEX_PAUSE;
    const w1 = Math.min(w.rows, w0 + BUILD_WINDOW_ROWS);
    const side = w.window(w0, w1);
    if (!digestible(side.columns)) return null;
    const ids = bytesOf(side.identity[0] as Data);
    let local = 0;
    for (let r = 0; r < w1 - w0; r++) {
      const at = r * UUID_BYTES;
      if (w0 + r >= checkedTo) {
        // Strictly ascending: against the row before (in this window, or the last one checked before it).
        if (r > 0 && w0 + r > checkedTo ? compareUuid(ids, at - UUID_BYTES, ids, at) >= 0 : havePrev && compareUuid(prev, 0, ids, at) >= 0) return null;
        havePrev = true;
      }
      const end = w0 + r + 1 === w.rows;
      if ((uuidBits(ids, at) & LEAF_MASK) === LEAF_MASK || end) {
        leaves.push({ start: w0 + local, count: r + 1 - local, first: Uint8Array.from(ids.subarray(local * UUID_BYTES, (local + 1) * UUID_BYTES)), digest: leafDigest(side.columns, local, r + 1, scratch) });
        local = r + 1;
      }
    }
    if (w1 > w0) prev.set(ids.subarray((w1 - w0 - 1) * UUID_BYTES, (w1 - w0) * UUID_BYTES));
    checkedTo = w1;
    if (w1 === w.rows) break;
    if (local === 0) {
      // No boundary in a whole window (vanishingly rare): cut here so the build always advances.
      leaves.push({ start: w0, count: w1 - w0, first: Uint8Array.from(ids.subarray(0, UUID_BYTES)), digest: leafDigest(side.columns, 0, w1 - w0, scratch) });
      local = w1 - w0;
    }
    w0 += local;
  }
  return encodeIndex(w.rows, leaves, key);
}

interface Leaf {
  readonly start: number;
  readonly count: number;
  readonly first: Uint8Array;
  readonly digest: Uint8Array;
}

/** The trailer: SHA-256 over the index key (so an index stored under another object's key is foreign) and the header and top entries. */
function trailerOf(key: string, head: Uint8Array): Uint8Array {
  return createHash('sha256').update(key).update(head).digest();
}

function encodeIndex(rows: number, leaves: readonly Leaf[], key: string): RecordIndex {
  // Tops: cut after a leaf whose first record's bits hit the coarser mask.
  const tops: { firstLeaf: number; count: number; rowStart: number; rowCount: number }[] = [];
  let open = 0;
  let openRow = 0;
  let rowsSoFar = 0;
  for (let k = 0; k < leaves.length; k++) {
    const l = leaves[k] as Leaf;
    rowsSoFar += l.count;
    if ((uuidBits(l.first, 0) & TOP_MASK) === TOP_MASK || k === leaves.length - 1) {
      tops.push({ firstLeaf: open, count: k + 1 - open, rowStart: openRow, rowCount: rowsSoFar - openRow });
      open = k + 1;
      openRow = rowsSoFar;
    }
  }
  const size = HEADER_BYTES + TOP_BYTES * tops.length + LEAF_BYTES * leaves.length + TRAILER_BYTES;
  const bytes = new Uint8Array(size);
  const dv = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode(MAGIC), 0);
  dv.setUint32(8, rows);
  dv.setUint32(12, tops.length);
  dv.setUint32(16, leaves.length);
  const leafAt = HEADER_BYTES + TOP_BYTES * tops.length;
  leaves.forEach((l, k) => {
    const at = leafAt + k * LEAF_BYTES;
    dv.setUint32(at, l.count);
    bytes.set(l.first, at + LEAF_KEY);
    bytes.set(l.digest, at + LEAF_KEY + UUID_BYTES);
  });
  tops.forEach((t, k) => {
    const at = HEADER_BYTES + k * TOP_BYTES;
    dv.setUint32(at, t.firstLeaf);
    dv.setUint32(at + 4, t.count);
    dv.setUint32(at + 8, t.rowStart);
    dv.setUint32(at + 12, t.rowCount);
    bytes.set((leaves[t.firstLeaf] as Leaf).first, at + TOP_KEY);
    bytes.set(createHash('sha256').update(bytes.subarray(leafAt + t.firstLeaf * LEAF_BYTES, leafAt + (t.firstLeaf + t.count) * LEAF_BYTES)).digest(), at + TOP_KEY + UUID_BYTES);
  });
  bytes.set(trailerOf(key, bytes.subarray(0, leafAt)), size - TRAILER_BYTES);
  return { rows, leaves: leaves.length, tops: tops.length, bytes };
}

/**
 * An index read back, checked only as far as it is used: the header and
 * top entries against the trailer digest at once (and the tops' row and
 * leaf ranges for contiguity), a top's leaf entries against that top's
 * digest when a comparison descends into it. Null when the file is not an
 * index of `rows` records (torn, truncated, edited, foreign).
 */
export function openRecordIndex(bytes: Uint8Array, rows: number, key: string): RecordIndex | null {
  if (bytes.length < HEADER_BYTES + TRAILER_BYTES) return null;
  if (new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) return null;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const r = dv.getUint32(8);
  const tops = dv.getUint32(12);
  const leaves = dv.getUint32(16);
  if (r !== rows || bytes.length !== HEADER_BYTES + TOP_BYTES * tops + LEAF_BYTES * leaves + TRAILER_BYTES) return null;
  const leafAt = HEADER_BYTES + TOP_BYTES * tops;
  const trailer = bytes.subarray(bytes.length - TRAILER_BYTES);
  if (!Buffer.from(trailerOf(key, bytes.subarray(0, leafAt))).equals(trailer)) return null;
  let leaf = 0;
  let row = 0;
  for (let t = 0; t < tops; t++) {
    const at = HEADER_BYTES + t * TOP_BYTES;
    if (dv.getUint32(at) !== leaf || dv.getUint32(at + 8) !== row || dv.getUint32(at + 4) === 0) return null;
    leaf += dv.getUint32(at + 4);
    row += dv.getUint32(at + 12);
  }
  if (leaf !== leaves || row !== rows) return null;
  return { rows, leaves, tops, bytes };
}

/** True when `bytes` is a whole index stored under `key` (its header's row count, trailer and tops hold): `gf doctor`'s check of `cache/index/<key>.idx`. */
export function isSoundRecordIndexFile(bytes: Uint8Array, key: string): boolean {
  if (bytes.length < HEADER_BYTES) return false;
  return openRecordIndex(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8), key) !== null;
}

/** A run of rows of each side that may hold changes; every row outside all runs is unchanged on both sides. */
export interface ChangedRun {
  readonly a0: number;
  readonly a1: number;
  readonly b0: number;
  readonly b1: number;
}

/** Damage found while descending (leaf entries that do not match their top's digest, or counts that do not add up): the caller rebuilds the index. */
export class CorruptIndexError extends Error {}

/** Where a table of entries sits: first byte, entry size, offset of the first-record key (the digest follows it). */
interface Table {
  readonly base: number;
  readonly size: number;
  readonly key: number;
}

function keyAt(x: RecordIndex, t: Table, k: number): string {
  return Buffer.from(x.bytes.buffer, x.bytes.byteOffset + t.base + k * t.size + t.key, UUID_BYTES).toString('latin1');
}

function digestAt(x: RecordIndex, t: Table, k: number): Uint8Array {
  const at = t.base + k * t.size + t.key + UUID_BYTES;
  return x.bytes.subarray(at, at + 32);
}

/**
 * Entries `[a0, a1)` of `a` and `[b0, b1)` of `b` matched by first record
 * UUID and (position-free) digest, in order: equal entries hold equal
 * record sets, so everything between two consecutive matches is the only
 * place the sides can differ.
 */
function matches(a: RecordIndex, ta: Table, a0: number, a1: number, b: RecordIndex, tb: Table, b0: number, b1: number): [number, number][] {
  const byKey = new Map<string, number>();
  for (let j = b0; j < b1; j++) byKey.set(keyAt(b, tb, j), j);
  const out: [number, number][] = [];
  let last = b0 - 1;
  for (let i = a0; i < a1; i++) {
    const j = byKey.get(keyAt(a, ta, i));
    if (j === undefined || j <= last || Buffer.compare(digestAt(a, ta, i), digestAt(b, tb, j)) !== 0) continue;
    out.push([i, j]);
    last = j;
  }
  return out;
}

/** Gaps between matched pairs of `[a0, a1) × [b0, b1)`, as entry ranges. */
function gaps(pairs: readonly [number, number][], a0: number, a1: number, b0: number, b1: number): { a0: number; a1: number; b0: number; b1: number }[] {
  const out: { a0: number; a1: number; b0: number; b1: number }[] = [];
  let i = a0;
  let j = b0;
  for (const [pi, pj] of [...pairs, [a1, b1] as [number, number]]) {
    if (pi > i || pj > j) out.push({ a0: i, a1: pi, b0: j, b1: pj });
    i = pi + 1;
    j = pj + 1;
  }
  return out;
}

function tables(x: RecordIndex): { tops: Table; leaves: Table } {
  return { tops: { base: HEADER_BYTES, size: TOP_BYTES, key: TOP_KEY }, leaves: { base: HEADER_BYTES + TOP_BYTES * x.tops, size: LEAF_BYTES, key: LEAF_KEY } };
}

/**
 * The verified leaves of tops `[t0, t1)`: their leaf range, and each leaf's
 * first row (from the first top's row start and the verified counts).
 */
function leavesOf(x: RecordIndex, t0: number, t1: number): { l0: number; l1: number; rowOf: (leaf: number) => number } {
  const dv = new DataView(x.bytes.buffer, x.bytes.byteOffset, x.bytes.byteLength);
  const leafAt = HEADER_BYTES + TOP_BYTES * x.tops;
  if (t0 >= t1) {
    const l = t0 < x.tops ? dv.getUint32(HEADER_BYTES + t0 * TOP_BYTES) : x.leaves;
    const row = t0 < x.tops ? dv.getUint32(HEADER_BYTES + t0 * TOP_BYTES + 8) : x.rows;
    return { l0: l, l1: l, rowOf: () => row };
  }
  const l0 = dv.getUint32(HEADER_BYTES + t0 * TOP_BYTES);
  const starts = new Map<number, number>();
  let l1 = l0;
  for (let t = t0; t < t1; t++) {
    const at = HEADER_BYTES + t * TOP_BYTES;
    const first = dv.getUint32(at);
    const count = dv.getUint32(at + 4);
    let row = dv.getUint32(at + 8);
    const digest = createHash('sha256').update(x.bytes.subarray(leafAt + first * LEAF_BYTES, leafAt + (first + count) * LEAF_BYTES)).digest();
    if (!Buffer.from(digest).equals(x.bytes.subarray(at + TOP_KEY + UUID_BYTES, at + TOP_KEY + UUID_BYTES + 32))) throw new CorruptIndexError('leaves do not match their top');
    for (let l = first; l < first + count; l++) {
      starts.set(l, row);
      row += dv.getUint32(leafAt + l * LEAF_BYTES);
    }
    if (row !== dv.getUint32(at + 8) + dv.getUint32(at + 12)) throw new CorruptIndexError('leaf counts do not add up to their top');
    l1 = first + count;
    starts.set(l1, row);
  }
  return { l0, l1, rowOf: (leaf) => starts.get(leaf) as number };
}

/**
 * The runs of rows that can differ between two indexed versions of a
 * family, in order: tops with equal first record and digest are skipped
 * whole; between them, the leaves of the unmatched tops (verified against
 * their tops first) are matched the same way; what stays unmatched is a
 * row run to merge. The cost follows the number of differing chunks, not
 * the rows. Throws `CorruptIndexError` when entries contradict a digest.
 */
export function changedRuns(a: RecordIndex, b: RecordIndex): ChangedRun[] {
  const ta = tables(a);
  const tb = tables(b);
  const out: ChangedRun[] = [];
  for (const g of gaps(matches(a, ta.tops, 0, a.tops, b, tb.tops, 0, b.tops), 0, a.tops, 0, b.tops)) {
    const la = leavesOf(a, g.a0, g.a1);
    const lb = leavesOf(b, g.b0, g.b1);
    for (const lg of gaps(matches(a, ta.leaves, la.l0, la.l1, b, tb.leaves, lb.l0, lb.l1), la.l0, la.l1, lb.l0, lb.l1)) {
      const run = { a0: la.rowOf(lg.a0), a1: la.rowOf(lg.a1), b0: lb.rowOf(lg.b0), b1: lb.rowOf(lg.b1) };
      if (run.a1 > run.a0 || run.b1 > run.b0) out.push(run);
    }
  }
  return out;
}
