/**
 * Benchmark harness types: every `bench/**\/*.bench.ts` exports `benchmarks`.
 *
 * A spec measures one or more figures per run (so compared figures come from
 * the same run, side by side); the runner repeats it and reports the median,
 * min and max of each figure.
 */

/**
 * Sizes accepted by `npm run bench -- --size`.
 *
 * `tiny` is what `npm test` runs every spec at, once (test/bench/): it checks
 * that each set-up works and each figure is computed, not how fast anything is.
 * `huge` (10M graph records) is run by hand, never in CI: it runs only the
 * specs that declare it in `sizes` (the scale report), and the runner refuses
 * it when `CI` is set.
 */
export const BENCH_SIZES = ['tiny', 'small', 'large', 'huge'] as const;
/** Any size a run may have. */
export type RunSize = (typeof BENCH_SIZES)[number];
/** The sizes every ordinary spec has data for. */
export type BenchSize = Exclude<RunSize, 'huge'>;

/** What `setup` receives. */
export interface BenchContext {
  /** The requested size (`large` for a `huge` run: a spec that declares `huge` reads `scale`). */
  readonly size: BenchSize;
  /** The run's size as requested. */
  readonly scale: RunSize;
  /** A fresh temporary directory for generated data, removed after the spec. */
  readonly tmpDir: string;
}

/** A ratio the runner computes per run between two figures of the same spec. */
export interface BenchRatio {
  /** Result id of the ratio (unit `ratio`). */
  readonly id: string;
  readonly numerator: string;
  readonly denominator: string;
}

/** One benchmark. */
export interface BenchSpec<State = unknown> {
  /** Id prefix of the spec (e.g. `canonical`); `--only` matches spec and result ids by prefix. */
  readonly id: string;
  /** Result ids this spec measures, with their units (e.g. `rows/s`). */
  readonly results: Readonly<Record<string, string>>;
  /** Ratios reported beside the figures. */
  readonly ratios?: readonly BenchRatio[];
  /** Measured runs (default 5); one unmeasured warm-up run precedes them unless `warmup` is false. */
  readonly runs?: number;
  /** Whether an unmeasured warm-up run precedes the measured ones (default true). */
  readonly warmup?: boolean;
  /** Sizes this spec runs at (default `small` and `large`). */
  readonly sizes?: readonly RunSize[];
  /** Generates the data for a size (not measured). */
  readonly setup: (ctx: BenchContext) => Promise<State> | State;
  /** One measured run: a value for every declared result id. */
  readonly run: (state: State) => Promise<Readonly<Record<string, number>>> | Readonly<Record<string, number>>;
  /** Releases what setup took (the runner removes `tmpDir` itself). */
  readonly teardown?: (state: State) => Promise<void> | void;
}

/** One reported figure. */
export interface BenchResult {
  readonly id: string;
  readonly unit: string;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: number;
}

/** Median, min and max of a list of run values. */
export function summarize(id: string, unit: string, values: readonly number[]): BenchResult {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const median = n === 0 ? Number.NaN : n % 2 === 1 ? (sorted[(n - 1) / 2] as number) : ((sorted[n / 2 - 1] as number) + (sorted[n / 2] as number)) / 2;
  return { id, unit, median, min: sorted[0] ?? Number.NaN, max: sorted[n - 1] ?? Number.NaN, runs: n };
}

/** Items per second of `count` items processed in `ms` milliseconds. */
export function perSecond(count: number, ms: number): number {
  return ms > 0 ? (count * 1000) / ms : Number.POSITIVE_INFINITY;
}

/** Helper to define a spec with its state type inferred. */
export function defineBench<State>(spec: BenchSpec<State>): BenchSpec<State> {
  return spec;
}
