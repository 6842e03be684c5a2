// Fingerprints of a whole-family merge hashed off the merge's thread (on the digest pool)
// and settled into the change list.
import type { DiffEffect } from './steps';
import { KIND_MODIFIED } from './changes-list';
import type { ChangeList } from './changes-list';
import { DigestPool, digestSlices } from './merge-digest-pool';
import type { DigestService } from './merge-digest-pool';
import { DEFAULT_DIFF_TUNING } from './tuning';

/** Which fingerprint of a change-list row a deferred digest fills. */
export const FP_FROM = 0;
/** See `FP_FROM`. */
export const FP_TO = 1;
/** See `FP_FROM`. */
export const FP_IDENTITY = 2;
type Slot = typeof FP_FROM | typeof FP_TO | typeof FP_IDENTITY;

interface Batch {
  readonly targets: Uint32Array;
  digests: Uint8Array | undefined;
  failed: boolean;
  /** Settles when the digests are in or lost; never rejects. */
  readonly done: Promise<void>;
}

/**
 * Fingerprints of a whole-family record diff, hashed off the merge's thread.
 *
 * The merge hands over each changed row's canonical preimage with the
 * change-list row and slot it belongs to; full batches go to the
 * `DigestPool` while the merge goes on. `settle` then waits for them
 * (`await` effects, so only the cooperative driver defers), hashes the last
 * partial batch here, writes every digest into the list, and drops
 * `modified` candidates whose two record fingerprints agree (bytes that
 * differ but are canonically equal) — the same list, row for row, as
 * hashing inline. Row indexes stay valid because nothing is removed from
 * the list until `settle`.
 */
export class DeferredDigests {
  readonly #pool: DigestService;
  readonly #batchItems: number;
  readonly #maxInFlight: number;
  #bytes = new Uint8Array(256 * 1024);
  #used = 0;
  #ends: number[] = [];
  #targets: number[] = [];
  readonly #batches: Batch[] = [];

  constructor(pool: DigestService = DigestPool.shared(), batchItems = DEFAULT_DIFF_TUNING.deferred.items, maxInFlight = DEFAULT_DIFF_TUNING.deferred.inFlight) {
    this.#pool = pool;
    this.#batchItems = Math.max(1, batchItems);
    this.#maxInFlight = Math.max(1, maxInFlight);
  }

  /** Batches handed to the pool whose digests are not back yet. */
  get inFlight(): number {
    let n = 0;
    for (const b of this.#batches) if (b.digests === undefined && !b.failed) n++;
    return n;
  }

  /**
   * Backpressure, at the merge's pause points: while more than the allowed
   * batches are in flight, waits for the oldest (`await` effects), so the
   * preimages handed over and not yet hashed stay bounded.
   */
  *throttle(): Generator<DiffEffect, void, unknown> {
    while (this.inFlight > this.#maxInFlight) {
      const oldest = this.#batches.find((b) => b.digests === undefined && !b.failed) as Batch;
      yield { effect: 'await', promise: oldest.done };
    }
  }

  /** Queues the digest of `preimage` (copied now) for slot `slot` of change-list row `row`. */
  add(preimage: Uint8Array, row: number, slot: Slot): void {
    const need = this.#used + preimage.length;
    if (need > this.#bytes.length) {
      const next = new Uint8Array(Math.max(need, 2 * this.#bytes.length));
      next.set(this.#bytes.subarray(0, this.#used));
      this.#bytes = next;
    }
    this.#bytes.set(preimage, this.#used);
    this.#used = need;
    this.#ends.push(need);
    this.#targets.push(row * 4 + slot);
    if (this.#ends.length >= this.#batchItems) this.#flush(true);
  }

  #flush(toPool: boolean): void {
    if (this.#ends.length === 0) return;
    // The batch's buffer goes to the worker as it is (transferred, no copy); the next batch starts a new one.
    const bytes = this.#bytes.subarray(0, this.#used);
    const ends = Uint32Array.from(this.#ends);
    const targets = Uint32Array.from(this.#targets);
    this.#bytes = (toPool ? this.#pool.spare?.(this.#bytes.length) : undefined) ?? new Uint8Array(this.#bytes.length);
    this.#used = 0;
    this.#ends = [];
    this.#targets = [];
    if (!toPool) {
      this.#batches.push({ targets, digests: digestSlices(bytes, ends), failed: false, done: Promise.resolve() });
      return;
    }
    const batch: Batch = {
      targets,
      digests: undefined,
      failed: false,
      done: this.#pool.digest(bytes, ends).then(
        (d) => {
          batch.digests = d;
        },
        () => {
          batch.failed = true;
        },
      ),
    };
    this.#batches.push(batch);
  }

  /**
   * Waits for every digest, writes them into `list` and drops the
   * `modified` rows that turn out unchanged; returns true. Returns false,
   * leaving `list` incomplete, when a batch was lost with the pool's
   * worker: the caller then redoes the family with inline hashing.
   */
  *settle(list: ChangeList): Generator<DiffEffect, boolean, unknown> {
    this.#flush(false);
    for (const b of this.#batches) if (b.digests === undefined && !b.failed) yield { effect: 'await', promise: b.done };
    if (this.#batches.some((b) => b.digests === undefined)) {
      this.#batches.length = 0;
      return false;
    }
    for (const b of this.#batches) {
      const d = b.digests as Uint8Array;
      for (let k = 0; k < b.targets.length; k++) {
        const t = b.targets[k] as number;
        const row = t >>> 2;
        const slot = t & 3;
        const into = slot === FP_FROM ? list.fromFp : slot === FP_TO ? list.toFp : list.identity;
        into.set(d.subarray(k * 32, k * 32 + 32), row * 32);
      }
    }
    this.#batches.length = 0;
    list.retain((i) => list.kind[i] !== KIND_MODIFIED || Buffer.compare(list.fromFp.subarray(i * 32, i * 32 + 32), list.toFp.subarray(i * 32, i * 32 + 32)) !== 0);
    return true;
  }
}
