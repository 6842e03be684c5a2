// The change list of one family, column-wise (kind, UUID, identity and record
// fingerprints, changed-field mask), and its Arrow form.
import { FixedSizeBinary, RecordBatch, Struct, Table, Utf8, makeData } from 'apache-arrow';
import type { Data, Schema } from 'apache-arrow';
import { RECORD_CHANGE_KINDS } from './arrow-schemas';
import type { RecordChangeKind } from './arrow-schemas';
import type { RecordChange, RecordSortKey } from './changes-key';

/** `change_kind` code: index into `RECORD_CHANGE_KINDS` (`added`, `modified`, `removed`), which is also their byte order. */
export const KIND_ADDED = 0;
/** See `KIND_ADDED`. */
export const KIND_MODIFIED = 1;
/** See `KIND_ADDED`. */
export const KIND_REMOVED = 2;

const KIND_BYTES = RECORD_CHANGE_KINDS.map((k) => Buffer.from(k, 'utf8'));

function cmpBytes(x: Uint8Array, xs: number, y: Uint8Array, ys: number, n: number): number {
  for (let k = 0; k < n; k++) {
    const d = (x[xs + k] as number) - (y[ys + k] as number);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

function grow(buf: Uint8Array, bytes: number): Uint8Array {
  const next = new Uint8Array(bytes);
  next.set(buf);
  return next;
}

/**
 * The changed records of one family, column by column (identities, kind
 * codes and fingerprints in flat byte arrays; never values, never one JS
 * object per row).
 *
 * Row `i`'s record UUID is `uuid[16i..16i+16)` when the family has one;
 * `from`/`to` fingerprints are present exactly when the kind says so
 * (`added` has no from, `removed` no to). Memory is O(changes).
 */
export class ChangeList {
  readonly scope: string;
  readonly recordFamilyId: string;
  /** True when the family projects its identity to `record_uuid`. */
  readonly hasUuid: boolean;
  length = 0;
  uuid: Uint8Array;
  identity: Uint8Array;
  kind: Uint8Array;
  fromFp: Uint8Array;
  toFp: Uint8Array;
  /**
   * Row `i`'s changed fields of a modified record: bit `k` set when schema
   * field `k` differs (0 for added and removed rows). Families have at most
   * 32 fields (`defineFamily`).
   */
  fieldMask: Uint32Array;

  constructor(scope: string, recordFamilyId: string, hasUuid: boolean, capacity = 64) {
    this.scope = scope;
    this.recordFamilyId = recordFamilyId;
    this.hasUuid = hasUuid;
    this.uuid = new Uint8Array(hasUuid ? capacity * 16 : 0);
    this.identity = new Uint8Array(capacity * 32);
    this.kind = new Uint8Array(capacity);
    this.fromFp = new Uint8Array(capacity * 32);
    this.toFp = new Uint8Array(capacity * 32);
    this.fieldMask = new Uint32Array(capacity);
  }

  /** Appends a row of `kind` (its bytes still to be written by the caller) and returns its index. */
  push(kind: number): number {
    const i = this.length++;
    if (i >= this.kind.length) {
      const n = Math.max(64, this.kind.length * 2);
      if (this.hasUuid) this.uuid = grow(this.uuid, n * 16);
      this.identity = grow(this.identity, n * 32);
      this.kind = grow(this.kind, n);
      this.fromFp = grow(this.fromFp, n * 32);
      this.toFp = grow(this.toFp, n * 32);
      const mask = new Uint32Array(n);
      mask.set(this.fieldMask);
      this.fieldMask = mask;
    }
    this.kind[i] = kind;
    this.fieldMask[i] = 0;
    return i;
  }

  /** Appends every row of `other` (same family), in order. */
  appendAll(other: ChangeList): void {
    const at = this.length;
    const n = other.length;
    for (let i = 0; i < n; i++) this.push(0); // grows the arrays; the rows are overwritten below
    if (this.hasUuid) this.uuid.set(other.uuid.subarray(0, n * 16), at * 16);
    this.identity.set(other.identity.subarray(0, n * 32), at * 32);
    this.kind.set(other.kind.subarray(0, n), at);
    this.fromFp.set(other.fromFp.subarray(0, n * 32), at * 32);
    this.toFp.set(other.toFp.subarray(0, n * 32), at * 32);
    this.fieldMask.set(other.fieldMask.subarray(0, n), at);
  }

  /** Drops the last row (a byte-different pair whose fingerprints agree is not a change). */
  pop(): void {
    this.length--;
  }

  /** Keeps the rows `keep` accepts, in order (compacted in place). */
  retain(keep: (i: number) => boolean): void {
    let n = 0;
    for (let i = 0; i < this.length; i++) {
      if (!keep(i)) continue;
      if (n !== i) {
        if (this.hasUuid) this.uuid.copyWithin(n * 16, i * 16, i * 16 + 16);
        this.identity.copyWithin(n * 32, i * 32, i * 32 + 32);
        this.fromFp.copyWithin(n * 32, i * 32, i * 32 + 32);
        this.toFp.copyWithin(n * 32, i * 32, i * 32 + 32);
        this.kind[n] = this.kind[i] as number;
        this.fieldMask[n] = this.fieldMask[i] as number;
      }
      n++;
    }
    this.length = n;
  }

  /** Drops every row from `length` on (a merge that has to start over). */
  truncate(length: number): void {
    if (length < 0 || length > this.length) throw new RangeError('truncate beyond the list');
    this.length = length;
  }

  /** The change at row `i` as an object (for callers that want one row, e.g. tests and tokens). */
  at(i: number): RecordChange {
    const k = this.kind[i] as number;
    return {
      scope: this.scope,
      recordFamilyId: this.recordFamilyId,
      recordUuid: this.hasUuid ? this.uuid.slice(i * 16, i * 16 + 16) : null,
      identityFingerprint: this.identity.slice(i * 32, i * 32 + 32),
      changeKind: RECORD_CHANGE_KINDS[k] as RecordChangeKind,
      fromFingerprint: k === KIND_ADDED ? null : this.fromFp.slice(i * 32, i * 32 + 32),
      toFingerprint: k === KIND_REMOVED ? null : this.toFp.slice(i * 32, i * 32 + 32),
    };
  }

  /**
   * Compares row `i` with a sort key of the same family (the part of the
   * contract order below `(scope, record_family_id)`).
   */
  compareAt(i: number, key: RecordSortKey): number {
    if (this.hasUuid || key.recordUuid !== null) {
      if (!this.hasUuid) return -1;
      if (key.recordUuid === null) return 1;
      const u = cmpBytes(this.uuid, i * 16, key.recordUuid, 0, 16);
      if (u !== 0) return u;
    }
    const f = cmpBytes(this.identity, i * 32, key.identityFingerprint, 0, 32);
    if (f !== 0) return f;
    return Buffer.compare(KIND_BYTES[this.kind[i] as number] as Buffer, Buffer.from(key.changeKind, 'utf8'));
  }

  /** Sorts rows by `(record_identity_fingerprint, change_kind)` (families ordered by fingerprint, not storage). */
  sortByIdentity(): void {
    const n = this.length;
    const idx = Array.from({ length: n }, (_, i) => i);
    const id = this.identity;
    const kind = this.kind;
    idx.sort((p, q) => cmpBytes(id, p * 32, id, q * 32, 32) || (kind[p] as number) - (kind[q] as number));
    const permute = (src: Uint8Array, w: number): Uint8Array => {
      const out = new Uint8Array(Math.max(src.length, n * w));
      idx.forEach((from, to) => out.set(src.subarray(from * w, from * w + w), to * w));
      return out;
    };
    if (this.hasUuid) this.uuid = permute(this.uuid, 16);
    this.identity = permute(this.identity, 32);
    this.kind = permute(this.kind, 1);
    this.fromFp = permute(this.fromFp, 32);
    this.toFp = permute(this.toFp, 32);
    const mask = new Uint32Array(Math.max(this.fieldMask.length, n));
    idx.forEach((from, to) => {
      mask[to] = this.fieldMask[from] as number;
    });
    this.fieldMask = mask;
  }
}

/** A run of rows `[start, end)` of one family's change list, in contract order. */
export interface ChangeRange {
  readonly list: ChangeList;
  readonly start: number;
  readonly end: number;
}

function totalRows(ranges: readonly ChangeRange[]): number {
  let n = 0;
  for (const r of ranges) n += r.end - r.start;
  return n;
}

/** Concatenates the fixed-width cells of `ranges`; a row whose kind is `nullKind` is null (-1: none is). */
function fixedColumn(ranges: readonly ChangeRange[], width: number, pick: (l: ChangeList) => Uint8Array | null, nullKind: number): Data {
  const n = totalRows(ranges);
  const data = new Uint8Array(n * width);
  const bitmap = new Uint8Array(Math.ceil(n / 8));
  let nulls = 0;
  let at = 0;
  for (const r of ranges) {
    const src = pick(r.list);
    const kind = r.list.kind;
    if (src !== null) data.set(src.subarray(r.start * width, r.end * width), at * width);
    for (let i = r.start; i < r.end; i++, at++) {
      if (src !== null && kind[i] !== nullKind) bitmap[at >> 3] = (bitmap[at >> 3] as number) | (1 << (at & 7));
      else nulls++;
    }
  }
  return makeData({ type: new FixedSizeBinary(width), length: n, data, nullCount: nulls, ...(nulls > 0 ? { nullBitmap: bitmap } : {}) });
}

/** Writes `count` copies of `cell` into `data` from byte `at` (doubling copies). */
function fillRepeated(data: Uint8Array, at: number, cell: Uint8Array, count: number): void {
  const total = cell.length * count;
  if (total === 0) return;
  data.set(cell, at);
  for (let filled = cell.length; filled < total; ) {
    const n = Math.min(filled, total - filled);
    data.copyWithin(at + filled, at, at + n);
    filled += n;
  }
}

/** A UTF-8 column of `ranges` laid end to end, one text per list (`text(list)`, e.g. its scope). */
function listTextColumn(ranges: readonly ChangeRange[], text: (l: ChangeList) => Uint8Array): Data {
  const n = totalRows(ranges);
  const valueOffsets = new Int32Array(n + 1);
  let total = 0;
  for (const r of ranges) total += text(r.list).length * (r.end - r.start);
  const data = new Uint8Array(total);
  let at = 0;
  let pos = 0;
  for (const r of ranges) {
    const b = text(r.list);
    const rows = r.end - r.start;
    for (let k = 0; k < rows; k++) valueOffsets[++at] = pos + (k + 1) * b.length;
    fillRepeated(data, pos, b, rows);
    pos += b.length * rows;
  }
  return makeData({ type: new Utf8(), length: n, data, valueOffsets, nullCount: 0 });
}

/** The `change_kind` column of `ranges` laid end to end. */
function kindColumn(ranges: readonly ChangeRange[]): Data {
  const n = totalRows(ranges);
  const valueOffsets = new Int32Array(n + 1);
  let total = 0;
  let at = 0;
  for (const r of ranges) {
    const kind = r.list.kind;
    for (let i = r.start; i < r.end; i++) {
      total += (KIND_BYTES[kind[i] as number] as Buffer).length;
      valueOffsets[++at] = total;
    }
  }
  const data = new Uint8Array(total);
  at = 0;
  for (const r of ranges) {
    const kind = r.list.kind;
    for (let i = r.start; i < r.end; i++) data.set(KIND_BYTES[kind[i] as number] as Buffer, valueOffsets[at++] as number);
  }
  return makeData({ type: new Utf8(), length: n, data, valueOffsets, nullCount: 0 });
}

/**
 * The record columns of the contract (`scope` … `to_record_fingerprint`,
 * without the two endpoint columns) for `ranges` laid end to end.
 */
export function changeColumns(ranges: readonly ChangeRange[]): { readonly length: number; readonly children: Data[] } {
  const text = new Map<ChangeList, { scope: Uint8Array; family: Uint8Array }>();
  for (const r of ranges) {
    if (!text.has(r.list)) text.set(r.list, { scope: Buffer.from(r.list.scope, 'utf8'), family: Buffer.from(r.list.recordFamilyId, 'utf8') });
  }
  const of = (l: ChangeList): { scope: Uint8Array; family: Uint8Array } => text.get(l) as { scope: Uint8Array; family: Uint8Array };
  return {
    length: totalRows(ranges),
    children: [
      listTextColumn(ranges, (l) => of(l).scope),
      listTextColumn(ranges, (l) => of(l).family),
      fixedColumn(ranges, 16, (l) => (l.hasUuid ? l.uuid : null), -1),
      fixedColumn(ranges, 32, (l) => l.identity, -1),
      kindColumn(ranges),
      fixedColumn(ranges, 32, (l) => l.fromFp, KIND_ADDED),
      fixedColumn(ranges, 32, (l) => l.toFp, KIND_REMOVED),
    ],
  };
}

/** Wraps struct children into a one-batch table of `schema`. */
export function oneBatchTable(schema: Schema, children: Data[], length: number): Table {
  const struct = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children });
  return new Table([new RecordBatch(schema, struct)]);
}
