// The merge-join of two prepared sides of one family in identity order: identities
// compared by galloping ranges, content column by column on raw buffers.
import type { Data, Field } from 'apache-arrow';
import type { DiffAdapter } from './plan-adapters';
import { CANCEL_CHECK_INTERVAL, PAUSE } from './steps';
import type { DiffEffect } from './steps';
import { ChangeList, KIND_ADDED, KIND_MODIFIED, KIND_REMOVED } from './changes-list';
import { bindAlignedRanges, bindIdentity, lowerBound } from './merge-raw-rows';
import type { RawSide } from './merge-raw-rows';
import { rowFingerprinter } from '../canonical/row-fingerprints';
import type { RowHasher } from '../canonical/row-fingerprints';
import { FP_FROM, FP_IDENTITY, FP_TO } from './merge-deferred-digests';
import type { DeferredDigests } from './merge-deferred-digests';

/** A family to diff record by record: its adapter and both prepared sides (null = participant absent there). */
export interface FamilyPair {
  readonly adapter: DiffAdapter;
  readonly from: RawSide | null;
  readonly to: RawSide | null;
}

interface SideTools {
  readonly record: RowHasher;
  readonly identity: RowHasher;
  readonly uuidValues: Uint8Array | null;
}

function toolsOf(adapter: DiffAdapter, side: RawSide): SideTools {
  // The side's schema was verified canonically equal to the family's; fingerprint under the family's own.
  const fields = adapter.family.schema.fields;
  const meta = adapter.family.schema.metadata;
  const idFields = adapter.identityFields.map((n) => fields.find((f) => f.name === n) as Field);
  const uuidAt = adapter.recordUuidField === null ? -1 : fields.findIndex((f) => f.name === adapter.recordUuidField);
  return {
    record: rowFingerprinter(fields, meta, side.columns, adapter.recordFingerprintDomain),
    identity: rowFingerprinter(idFields, meta, side.identity, adapter.identityFingerprintDomain),
    uuidValues: uuidAt < 0 ? null : ((side.columns[uuidAt] as Data).values as Uint8Array),
  };
}

/** Longest run of aligned rows compared at once (both records of a pair count toward the pause budget). */
export const MERGE_RUN_ROWS = 2048;

/**
 * Record diff of one family: a merge-join over both sides in identity order.
 *
 * The merge walks runs of rows whose identities line up one to one
 * (found by galloping comparisons of whole identity ranges), and compares
 * each run column by column directly on the raw buffers (native byte
 * comparison of values, offsets and validity; an unequal range is halved
 * until the differing rows are found). Where identities do not line up,
 * the smaller identity is an added or removed record. Only those rows are
 * hashed (record fingerprints over canonical logical values), and a
 * byte-different pair whose fingerprints agree (e.g. -0 and +0) is not a
 * change. Changes are written column-wise into a `ChangeList`: memory is
 * O(changes), never O(unchanged rows), and no per-row object is made.
 */
export class FamilyDiff {
  readonly pair: FamilyPair;
  readonly #deferred: DeferredDigests | null;
  #fromTools: SideTools | undefined;
  #toTools: SideTools | undefined;

  /**
   * @param deferred hash fingerprints off the merge's thread (see
   *   `DeferredDigests`): rows then hold their fingerprints, and `modified`
   *   candidates whose fingerprints agree are dropped, only once the caller
   *   settles it. Only for unbounded streams (`stopAt` counts rows).
   */
  constructor(pair: FamilyPair, deferred: DeferredDigests | null = null) {
    this.pair = pair;
    this.#deferred = deferred;
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

  /** An empty change list for this family. */
  newList(): ChangeList {
    const a = this.pair.adapter;
    return new ChangeList(a.scope, a.recordFamilyId, a.recordUuidField !== null);
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
   * Appends the changes in storage (identity) order, starting at rows
   * `a0` / `b0`, to `out`, until both sides are exhausted or `out` holds
   * `stopAt` rows (a page needs only its rows plus one).
   *
   * Yields a `PAUSE` step at least every `CANCEL_CHECK_INTERVAL` records
   * read (both records of a compared pair count): the driver checks
   * cancellation there (and, when async, yields to the event loop first).
   * Returns true when both sides were read to their end (the list is then
   * complete from `a0` / `b0` on), false when it stopped at `stopAt`.
   */
  *collect(out: ChangeList, a0 = 0, b0 = 0, stopAt = Number.POSITIVE_INFINITY): Generator<DiffEffect, boolean, unknown> {
    const { from, to } = this.pair;
    const na = from?.rows ?? 0;
    const nb = to?.rows ?? 0;
    let a = a0;
    let b = b0;
    let budget = CANCEL_CHECK_INTERVAL;
    if (from !== null && to !== null) {
      const cmp = bindIdentity(from, to);
      const ranges = bindAlignedRanges(from, to);
      const marks = new Uint32Array(MERGE_RUN_ROWS);
      while (a < na && b < nb && out.length < stopAt) {
        if (budget < 2) {
          yield* this.#pause();
          budget = CANCEL_CHECK_INTERVAL;
        }
        // A run of rows whose identities line up one to one on both sides.
        const run = ranges.alignedRun(a, b, Math.min(MERGE_RUN_ROWS, na - a, nb - b, budget >> 1));
        if (run > 0) {
          ranges.markDiffering(a, b, run, marks);
          let k = 0;
          for (; k < run && out.length < stopAt; k++) {
            if (marks[k] === 0) continue;
            this.#modified(out, a + k, b + k, marks[k] as number);
          }
          marks.fill(0, 0, run);
          // Stopped inside the run (the page is full): rows from a + k on were not looked at.
          if (k < run) return false;
          a += run;
          b += run;
          budget -= 2 * run;
          continue;
        }
        // The identities differ: the smaller one exists on its side only.
        budget--;
        if (cmp(a, b) < 0) this.#removed(out, a++);
        else this.#added(out, b++);
      }
    }
    for (; a < na && out.length < stopAt; a++) {
      if (--budget <= 0) {
        yield* this.#pause();
        budget = CANCEL_CHECK_INTERVAL;
      }
      this.#removed(out, a);
    }
    for (; b < nb && out.length < stopAt; b++) {
      if (--budget <= 0) {
        yield* this.#pause();
        budget = CANCEL_CHECK_INTERVAL;
      }
      this.#added(out, b);
    }
    return a >= na && b >= nb;
  }

  /** A cancellation point; with deferred digests also their backpressure. */
  *#pause(): Generator<DiffEffect, void, unknown> {
    yield PAUSE;
    if (this.#deferred !== null) yield* this.#deferred.throttle();
  }

  #identity(out: ChangeList, i: number, tools: SideTools, row: number): void {
    if (tools.uuidValues !== null) out.uuid.set(tools.uuidValues.subarray(row * 16, row * 16 + 16), i * 16);
    if (this.#deferred !== null) this.#deferred.add(tools.identity.preimage(row), i, FP_IDENTITY);
    else tools.identity.into(row, out.identity, i * 32);
  }

  #removed(out: ChangeList, a: number): void {
    const i = out.push(KIND_REMOVED);
    const t = this.#from();
    if (this.#deferred !== null) this.#deferred.add(t.record.preimage(a), i, FP_FROM);
    else t.record.into(a, out.fromFp, i * 32);
    this.#identity(out, i, t, a);
  }

  #added(out: ChangeList, b: number): void {
    const i = out.push(KIND_ADDED);
    const t = this.#to();
    if (this.#deferred !== null) this.#deferred.add(t.record.preimage(b), i, FP_TO);
    else t.record.into(b, out.toFp, i * 32);
    this.#identity(out, i, t, b);
  }

  #modified(out: ChangeList, a: number, b: number, fields: number): void {
    const i = out.push(KIND_MODIFIED);
    out.fieldMask[i] = fields;
    const f = this.#from();
    const d = this.#deferred;
    if (d !== null) {
      // Kept as a candidate: `DeferredDigests.settle` drops it if the two fingerprints agree.
      d.add(f.record.preimage(a), i, FP_FROM);
      d.add(this.#to().record.preimage(b), i, FP_TO);
      this.#identity(out, i, f, a);
      return;
    }
    f.record.into(a, out.fromFp, i * 32);
    this.#to().record.into(b, out.toFp, i * 32);
    if (Buffer.compare(out.fromFp.subarray(i * 32, i * 32 + 32), out.toFp.subarray(i * 32, i * 32 + 32)) === 0) {
      out.pop();
      return;
    }
    this.#identity(out, i, f, a);
  }
}
