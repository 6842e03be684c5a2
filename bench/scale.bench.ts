import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineBench } from './harness';
import type { RunSize } from './harness';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const CHILD = join(ROOT, 'bench/scale-child.ts');
const RESULTS = join(ROOT, 'bench/results');

/** Graph records per scale size: `large` is the 1M reference, `huge` the 10M proof. */
const RECORDS = { large: 1_000_000, huge: 10_000_000 } as const;
type Scale = keyof typeof RECORDS;

/** The measured operations, in the order one run performs them on one workspace. */
const OPS = ['demo', 'summary', 'first-page', 'full-diff', 'history', 'checkpoint', 'revert'] as const;
type Op = (typeof OPS)[number];
/** Figure name per operation (`<name>_ms.<size>`, `<name>_peak_rss_mb.<size>`). */
const NAMES: Readonly<Record<Op, string>> = {
  demo: 'demo.create',
  summary: 'scale.summary_diff',
  'first-page': 'scale.fresh_first_page',
  'full-diff': 'scale.full_record_diff',
  history: 'scale.history',
  checkpoint: 'scale.checkpoint_create',
  revert: 'scale.revert',
};

/** Every figure id of one size: time and peak RSS per operation, the export's time, the diff's row count, growth vs large. */
function resultIds(size: Scale): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const op of OPS) {
    ids[`${NAMES[op]}_ms.${size}`] = 'ms';
    ids[`${NAMES[op]}_peak_rss_mb.${size}`] = 'MB';
  }
  ids[`scale.record_diff_export_ms.${size}`] = 'ms';
  ids[`scale.full_record_diff_rows.${size}`] = 'rows';
  if (size === 'huge') {
    for (const op of OPS) {
      ids[`${NAMES[op]}_ms.growth`] = 'ratio';
      ids[`${NAMES[op]}_peak_rss_mb.growth`] = 'ratio';
    }
  }
  return ids;
}

/** One operation in a fresh process (the child reports its own time and peak RSS). */
function runChild(op: Op, dir: string, arg?: string): Record<string, number> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', CHILD, op, dir, ...(arg === undefined ? [] : [arg])], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`scale ${op} exited ${String(r.status)}: ${r.stderr.trim()}`);
  const last = r.stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as Record<string, number>;
}

interface ScaleState {
  readonly tmpDir: string;
  readonly size: Scale;
  /** Graph records of the run's demo: the size's, or `TINY_RECORDS` for `npm test`'s tiny check. */
  readonly records: number;
  /** The tiny check (`npm test`): nothing is written to bench/results, growth is taken against this run itself. */
  readonly tiny: boolean;
  run: number;
}

/** Graph records of the scale report's tiny run (`npm test` runs every spec once at size `tiny`). */
const TINY_RECORDS = 100;

function scaleSpec(size: Scale) {
  return defineBench<ScaleState>({
    id: `scale.${size}`,
    results: resultIds(size),
    runs: 1,
    warmup: false,
    sizes: [size satisfies RunSize],
    setup: ({ tmpDir, scale }) => ({ tmpDir, size, records: scale === 'tiny' ? TINY_RECORDS : RECORDS[size], tiny: scale === 'tiny', run: 0 }),
    run(state) {
      state.run += 1;
      const dir = join(state.tmpDir, `demo-${state.run}`);
      const out: Record<string, number> = {};
      try {
        for (const op of OPS) {
          const arg = op === 'demo' ? String(state.records) : op === 'full-diff' ? join(state.tmpDir, 'record-diff.arrows') : op === 'checkpoint' ? `Scale run ${state.run}` : undefined;
          const r = runChild(op, dir, arg);
          const ms = op === 'full-diff' ? (r.diff_ms as number) : (r.ms as number);
          out[`${NAMES[op]}_ms.${size}`] = ms;
          out[`${NAMES[op]}_peak_rss_mb.${size}`] = r.peak_rss_mb as number;
          if (op === 'full-diff') {
            out[`scale.record_diff_export_ms.${size}`] = r.export_ms as number;
            out[`scale.full_record_diff_rows.${size}`] = r.rows as number;
          }
          process.stderr.write(`  scale ${size} ${op}: ${Math.round(ms)} ms, ${Math.round(r.peak_rss_mb as number)} MB\n`);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
        rmSync(join(state.tmpDir, 'record-diff.arrows'), { force: true });
      }
      if (!state.tiny) {
        mkdirSync(RESULTS, { recursive: true });
        writeFileSync(join(RESULTS, `scale-${size}.json`), `${JSON.stringify(out, null, 2)}\n`);
      }
      if (size === 'huge') {
        // Growth from large to huge, against the last `--size large` scale run on this machine (NaN without one);
        // the tiny check takes this run as its own reference (growth 1), so the computation still runs.
        const file = join(RESULTS, 'scale-large.json');
        const large = state.tiny
          ? Object.fromEntries(OPS.flatMap((op) => ['ms', 'peak_rss_mb'].map((kind) => [`${NAMES[op]}_${kind}.large`, out[`${NAMES[op]}_${kind}.huge`] as number])))
          : existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>) : {};
        for (const op of OPS) {
          for (const kind of ['ms', 'peak_rss_mb']) {
            out[`${NAMES[op]}_${kind}.growth`] = (out[`${NAMES[op]}_${kind}.huge`] as number) / (large[`${NAMES[op]}_${kind}.large`] ?? Number.NaN);
          }
        }
      }
      return out;
    },
  });
}

/**
 * The scale report: on one demo workspace of 1M (`--size large`) or
 * 10M (`--size huge`, by hand, never in CI) graph records, each operation in a
 * fresh process — demo creation, the summary diff, the first record page, the
 * whole record diff and its export (an Arrow IPC stream file), the history
 * listing, a checkpoint and a revert — with its time and peak RSS. The huge
 * run adds each figure's growth over the last large run
 * (bench/results/scale-large.json). One run, no warm-up: generated data is
 * removed afterwards and never committed.
 */
export const benchmarks = [scaleSpec('large'), scaleSpec('huge')];
