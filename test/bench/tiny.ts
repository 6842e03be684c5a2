// The tiny-size benchmark check (issue 32 item 12), shared by the bench project (test/bench) and e2e (browser specs).
import { spawnSync } from 'node:child_process';
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { BenchSpec } from '../../bench/harness';
import { BENCH_DIR, runSpec } from '../../bench/runner';

/** Specs that drive Chromium and `gf serve`: the e2e project runs them (it has the browser and the built app). */
export const BROWSER_BENCH_FILES = ['start.bench.ts', 'ui.bench.ts'] as const;

/**
 * Figures measured by an outside tool the spec reports as NaN when the tool is not installed (its own message
 * says so): NaN is accepted for them only when the tool is really missing here.
 */
const OPTIONAL_TOOL_FIGURES: Readonly<Record<string, readonly string[]>> = {
  sqldiff: ['peer.sqldiff_ms.large', 'diff.ratio.sqldiff_vs_full'],
};
const missingToolFigures = new Set(
  Object.entries(OPTIONAL_TOOL_FIGURES).flatMap(([tool, ids]) => (spawnSync(tool, ['--help'], { stdio: 'ignore' }).error === undefined ? [] : ids)),
);

/** Registers one test per spec of `file`: set up, one run at `tiny`, every figure finite. */
export function tinyBenchSuite(file: string): void {
  const load = async (): Promise<{ benchmarks?: readonly BenchSpec[] }> => (await import(pathToFileURL(file).href)) as { benchmarks?: readonly BenchSpec[] };
  describe(`bench ${relative(BENCH_DIR, file)} at size tiny`, async () => {
    const mod = await load();
    it('exports its benchmarks', () => {
      expect(Array.isArray(mod.benchmarks) && mod.benchmarks.length > 0).toBe(true);
    });
    for (const spec of mod.benchmarks ?? []) {
      it(`${spec.id}: sets up and computes every figure once`, async () => {
        const results = await runSpec(spec, 'tiny', { runs: 1, warmup: false });
        const expected = [...Object.keys(spec.results), ...(spec.ratios ?? []).map((r) => r.id)].sort();
        expect(results.map((r) => r.id).sort()).toEqual(expected);
        for (const r of results) {
          expect(r.runs, r.id).toBe(1);
          if (missingToolFigures.has(r.id)) expect(r.median, `${r.id}: its tool is missing here, so NaN`).toBeNaN();
          else expect(Number.isFinite(r.median), `${r.id} = ${r.median} ${r.unit}`).toBe(true);
        }
      }, 120_000);
    }
  });
}

