import type { Data, Field } from 'apache-arrow';
import type { DiffAdapter } from './adapters';
import { CANCEL_CHECK_INTERVAL, PAUSE } from './cancel';
import type { DiffEffect } from './cancel';
import type { RecordChangeKind } from './contract';
import { bindIdentity, bindRowEqual, lowerBound } from './raw-rows';
import type { RawSide } from './raw-rows';
import { RowFingerprinter } from './row-fingerprints';

/**
 * One changed logical record: identity and fingerprints, never values.
 *
 * `recordUuid` is the owner-declared record UUID (16 bytes) or null for
 * families without one; fingerprints are 32 bytes.
 */
export interface RecordChange {
  readonly scope: string;
  readonly recordFamilyId: string;
  readonly recordUuid: Uint8Array | null;
  readonly identityFingerprint: Uint8Array;
  readonly changeKind: RecordChangeKind;
  readonly fromFingerprint: Uint8Array | null;
  readonly toFingerprint: Uint8Array | null;
}

/** The sort tuple of a record row: `(scope, record_family_id, record_uuid, record_identity_fingerprint, change_kind)`. */
export interface RecordSortKey {
  readonly scope: string;
  readonly recordFamilyId: string;
  readonly recordUuid: Uint8Array | null;
  readonly identityFingerprint: Uint8Array;
  readonly changeKind: RecordChangeKind;
}

function cmpBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

function cmpText(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Compares `(scope, record_family_id)` pairs by UTF-8 bytes (the contract's sort). */
export function compareFamilyKey(a: { scope: string; recordFamilyId: string }, b: { scope: string; recordFamilyId: string }): number {
  if (a.scope === b.scope && a.recordFamilyId === b.recordFamilyId) return 0;
  return cmpText(a.scope, b.scope) || cmpText(a.recordFamilyId, b.recordFamilyId);
}

/** Total order of record rows (nulls first; within one family all `record_uuid` are null or none is). */
export function compareRecordKeys(a: RecordSortKey, b: RecordSortKey): number {
  const f = compareFamilyKey(a, b);
  if (f !== 0) return f;
  if (a.recordUuid === null || b.recordUuid === null) {
    if (a.recordUuid !== b.recordUuid) return a.recordUuid === null ? -1 : 1;
  } else {
    const u = cmpBytes(a.recordUuid, b.recordUuid);
    if (u !== 0) return u;
  }
  return cmpBytes(a.identityFingerprint, b.identityFingerprint) || (a.changeKind === b.changeKind ? 0 : cmpText(a.changeKind, b.changeKind));
}

/** A family to diff record by record: its adapter and both prepared sides (null = participant absent there). */
export interface FamilyPair {
  readonly adapter: DiffAdapter;
  readonly from: RawSide | null;
  readonly to: RawSide | null;
}

interface SideTools {
  readonly record: RowFingerprinter;
  readonly identity: RowFingerprinter;
  readonly uuidColumn: Data | null;
}

function toolsOf(adapter: DiffAdapter, side: RawSide): SideTools {
  // The side's schema was verified canonically equal to the family's; fingerprint under the family's own.
  const fields = adapter.family.schema.fields;
  const meta = adapter.family.schema.metadata;
  const idFields = adapter.identityFields.map((n) => fields.find((f) => f.name === n) as Field);
  const uuidAt = adapter.recordUuidField === null ? -1 : fields.findIndex((f) => f.name === adapter.recordUuidField);
  return {
    record: new RowFingerprinter(fields, meta, side.columns, adapter.recordFingerprintDomain),
    identity: new RowFingerprinter(idFields, meta, side.identity, adapter.identityFingerprintDomain),
    uuidColumn: uuidAt < 0 ? null : (side.columns[uuidAt] as Data),
  };
}

function uuidAt(col: Data, row: number): Uint8Array {
  return (col.values as Uint8Array).slice(row * 16, row * 16 + 16);
}

/**
 * Record diff of one family: a merge-join over both sides in identity order.
 *
 * Rows are compared by their raw column bytes; only rows that differ are
 * hashed (record fingerprints over canonical logical values), and a
 * byte-different pair whose fingerprints agree (e.g. -0 and +0) is not a
 * change. Memory is O(changes yielded), never O(unchanged rows).
 */
export class FamilyDiff {
  readonly pair: FamilyPair;
  #fromTools: SideTools | undefined;
  #toTools: SideTools | undefined;

  constructor(pair: FamilyPair) {
    this.pair = pair;
  }

  /** True when `(record_uuid)` alone orders the family's rows (identity is exactly the record UUID), so pages can seek. */
  get seekable(): boolean {
    const a = this.pair.adapter;
    return a.recordUuidField !== null && a.identityFields.length === 1 && a.identityFields[0] === a.recordUuidField;
  }

  #from(): SideTools {
    this.#fromTools ??= toolsOf(this.pair.adapter, this.pair.from as RawSide);
    return this.#fromTools;
  }

  #to(): SideTools {
    this.#toTools ??= toolsOf(this.pair.adapter, this.pair.to as RawSide);
    return this.#toTools;
  }

  /** The first row of each side whose record UUID is strictly greater than `after` (binary search). */
  seekAfterUuid(after: Uint8Array): { readonly a: number; readonly b: number } {
    const probe = (side: RawSide | null): number => {
      if (side === null) return 0;
      const col = side.identity[0] as Data;
      const v = col.values as Uint8Array;
      return lowerBound(side.rows, (row) => Buffer.compare(v.subarray(row * 16, row * 16 + 16), after), false);
    };
    return { a: probe(this.pair.from), b: probe(this.pair.to) };
  }

  /**
   * Changes in storage (identity) order starting at rows `a` / `b`.
   *
   * Yields a `PAUSE` step every `CANCEL_CHECK_INTERVAL` rows read: the
   * driver checks cancellation there (and, when async, yields to the event
   * loop first).
   */
  *changes(a0 = 0, b0 = 0): Generator<RecordChange | DiffEffect> {
    const { from, to } = this.pair;
    const na = from?.rows ?? 0;
    const nb = to?.rows ?? 0;
    let a = a0;
    let b = b0;
    let budget = CANCEL_CHECK_INTERVAL;
    if (from === null || to === null) {
      for (; a < na; a++) {
        if (--budget === 0) {
          yield PAUSE;
          budget = CANCEL_CHECK_INTERVAL;
        }
        yield this.#one('removed', a, -1) as RecordChange;
      }
      for (; b < nb; b++) {
        if (--budget === 0) {
          yield PAUSE;
          budget = CANCEL_CHECK_INTERVAL;
        }
        yield this.#one('added', -1, b) as RecordChange;
      }
      return;
    }
    const cmp = bindIdentity(from, to);
    const same = bindRowEqual(from, to);
    while (a < na || b < nb) {
      // A matched pair consumes two decoded records: count both, so a pause comes at least every CANCEL_CHECK_INTERVAL records.
      if (budget <= 0) {
        yield PAUSE;
        budget = CANCEL_CHECK_INTERVAL;
      }
      const c = a >= na ? 1 : b >= nb ? -1 : cmp(a, b);
      if (c < 0) {
        budget--;
        yield this.#one('removed', a++, -1) as RecordChange;
      } else if (c > 0) {
        budget--;
        yield this.#one('added', -1, b++) as RecordChange;
      } else {
        budget -= 2;
        if (!same(a, b)) {
          const ch = this.#one('modified', a, b);
          if (ch !== null) yield ch;
        }
        a++;
        b++;
      }
    }
  }

  #one(kind: RecordChangeKind, a: number, b: number): RecordChange | null {
    const adapter = this.pair.adapter;
    const fromFp = a >= 0 ? this.#from().record.of(a) : null;
    const toFp = b >= 0 ? this.#to().record.of(b) : null;
    if (fromFp !== null && toFp !== null && Buffer.compare(fromFp, toFp) === 0) return null;
    const tools = a >= 0 ? this.#from() : this.#to();
    const row = a >= 0 ? a : b;
    return {
      scope: adapter.scope,
      recordFamilyId: adapter.recordFamilyId,
      recordUuid: tools.uuidColumn === null ? null : uuidAt(tools.uuidColumn, row),
      identityFingerprint: tools.identity.of(row),
      changeKind: kind,
      fromFingerprint: fromFp,
      toFingerprint: toFp,
    };
  }
}
