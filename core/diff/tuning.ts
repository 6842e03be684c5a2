// The diff engine's frozen tuning knobs (window sizes, digest batches, chunk rows, index
// thresholds) passed in by callers.
import type { DigestService } from './merge-digest-pool';

/**
 * The diff engine's tuning knobs, frozen and passed in (never a mutable
 * global): tests and benchmarks hand their own to the engine entry points
 * (`DiffEngineOptions.tuning`, `AllRecordsOptions.tuning`).
 */
export interface DiffTuning {
  /**
   * Window sizes in rows: a page-bounded stream starts at `first` and grows
   * fourfold up to `max`; a whole-family stream starts at `max`.
   */
  readonly windowRows: { readonly first: number; readonly max: number };
  /**
   * Deferred fingerprints: preimages per batch handed to the digest pool
   * (fewer are hashed on the merge's thread), and batches in flight at most
   * before the merge waits for the oldest.
   */
  readonly deferred: { readonly items: number; readonly inFlight: number };
  /**
   * Rows per stored chunk of a whole change list: a list longer than this
   * is stored in chunks only, so a jump reads the chunk holding its page,
   * not the whole list (a whole read joins the chunks).
   */
  readonly chunkRows: number;
  /**
   * Whole-family diffs through record indexes: runs of changed chunks
   * closer than `gapRows` unchanged rows are merged as one, and when the
   * runs hold more than `mergeShare` of both sides' rows the family is
   * merged straight through instead (a dense change mix).
   */
  readonly index: { readonly gapRows: number; readonly mergeShare: number };
  /** The digest pool (default: the process's shared `DigestPool`). */
  readonly pool?: DigestService;
}

/** The engine's defaults. */
export const DEFAULT_DIFF_TUNING: DiffTuning = Object.freeze({
  windowRows: Object.freeze({ first: 1024, max: 65_536 }),
  deferred: Object.freeze({ items: 2048, inFlight: 8 }),
  chunkRows: 1024,
  index: Object.freeze({ gapRows: 1024, mergeShare: 0.25 }),
});

/** A frozen tuning: the defaults with `over` applied (tests lower windows and batches this way). */
export function diffTuning(over: {
  readonly windowRows?: Partial<DiffTuning['windowRows']>;
  readonly deferred?: Partial<DiffTuning['deferred']>;
  readonly chunkRows?: number;
  readonly index?: Partial<DiffTuning['index']>;
  readonly pool?: DigestService;
}): DiffTuning {
  return Object.freeze({
    windowRows: Object.freeze({ ...DEFAULT_DIFF_TUNING.windowRows, ...over.windowRows }),
    deferred: Object.freeze({ ...DEFAULT_DIFF_TUNING.deferred, ...over.deferred }),
    chunkRows: over.chunkRows ?? DEFAULT_DIFF_TUNING.chunkRows,
    index: Object.freeze({ ...DEFAULT_DIFF_TUNING.index, ...over.index }),
    ...(over.pool === undefined ? {} : { pool: over.pool }),
  });
}
