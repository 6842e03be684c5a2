// The benchmark runner's parts that `npm run bench` (bench/run.ts) and the tiny-size check in `npm test` share.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarize } from './harness';
import type { BenchResult, BenchSpec, RunSize } from './harness';

/** The benchmark directory. */
export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

/** Every `*.bench.ts` under the benchmark directory, sorted. */
export function findBenchFiles(): string[] {
  return (readdirSync(BENCH_DIR, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.bench.ts') && !f.split(/[\\/]/).some((part) => part === 'node_modules' || part.startsWith('.')))
    .map((f) => join(BENCH_DIR, f))
    .sort();
}

export function matches(spec: BenchSpec, only: string | null, size: RunSize): boolean {
  if (!(spec.sizes ?? ['small', 'large']).includes(size)) return false;
  if (only === null) return true;
  // A spec by its id prefix, or by one of its result ids (`--only ui.graph` selects the spec measuring `ui.graph_*`, not every `ui` spec).
  return spec.id.startsWith(only) || Object.keys(spec.results).some((id) => id.startsWith(only));
}

/** How one spec runs: the measured runs (default the spec's) and whether the warm-up run precedes them. */
export interface RunOptions {
  readonly runs?: number;
  readonly warmup?: boolean;
}

/** Sets one spec up, runs it (warm-up, then its measured runs), tears it down; its figures and ratios. */
export async function runSpec(spec: BenchSpec, size: RunSize, options: RunOptions = {}): Promise<BenchResult[]> {
  const tmp = mkdtempSync(join(tmpdir(), `gf-bench-${spec.id}-`));
  try {
    const state = await spec.setup({ size: size === 'huge' ? 'large' : size, scale: size, tmpDir: tmp });
    try {
      const runs = options.runs ?? spec.runs ?? 5;
      if ((options.warmup ?? spec.warmup) !== false) await spec.run(state); // warm-up, not measured
      const values = new Map<string, number[]>(Object.keys(spec.results).map((id) => [id, []]));
      const ratios = new Map<string, number[]>((spec.ratios ?? []).map((r) => [r.id, []]));
      for (let k = 0; k < runs; k++) {
        const measured = await spec.run(state);
        for (const id of Object.keys(spec.results)) {
          const v = measured[id];
          if (typeof v !== 'number') throw new Error(`${spec.id}: run did not measure ${id}`);
          values.get(id)?.push(v);
        }
        for (const r of spec.ratios ?? []) {
          ratios.get(r.id)?.push((measured[r.numerator] as number) / (measured[r.denominator] as number));
        }
      }
      return [
        ...[...values].map(([id, vs]) => summarize(id, spec.results[id] as string, vs)),
        ...[...ratios].map(([id, vs]) => summarize(id, 'ratio', vs)),
      ];
    } finally {
      await spec.teardown?.(state);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

