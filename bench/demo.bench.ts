import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureCliBundle } from '../scripts/build-cli.mjs';
import { defineBench } from './harness';
import type { BenchSize } from './harness';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
/** Graph records of the demo per size (`large` is the 1M figure). */
const RECORDS: Readonly<Record<BenchSize, number>> = { tiny: 100, small: 20_000, large: 1_000_000 };

/** Runs `gf demo create` in a fresh process (the CLI bundle) and returns its wall time and peak RSS. */
function createDemo(dir: string, records: number): { ms: number; peakRssMb: number } {
  const script = `
    const { cliEntryUrl } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'scripts/build-cli.mjs')).href)});
    const { main } = await import(await cliEntryUrl('gf'));
    let err = '';
    const code = await main(['demo', 'create', ${JSON.stringify(dir)}, '--records', '${records}'], { stdout: () => undefined, stderr: (s) => void (err += s) });
    if (code !== 0) { process.stderr.write(err); process.exit(code); }
    process.stdout.write(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS }));
  `;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`gf demo create exited ${String(r.status)}: ${r.stderr.trim()}`);
  const { maxRssKb } = JSON.parse(r.stdout) as { maxRssKb: number };
  return { ms, peakRssMb: maxRssKb / 1024 };
}

interface DemoState {
  readonly tmpDir: string;
  readonly records: number;
  readonly size: BenchSize;
  run: number;
}

/**
 * `demo.create_ms.<size>` and `demo.create_peak_rss_mb.<size>`: `gf demo create
 * --records N` as a whole process (N = 20k small, 1M large), peak RSS from the
 * process's own resource usage. One measured run after the warm-up (each
 * run writes a fresh workspace, removed afterwards).
 */
export const benchmarks = [
  defineBench<DemoState>({
    id: 'demo.create',
    results: { 'demo.create_ms': 'ms', 'demo.create_peak_rss_mb': 'MB' },
    runs: 1,
    async setup({ size, tmpDir }) {
      await ensureCliBundle();
      return { tmpDir, records: RECORDS[size], size, run: 0 };
    },
    run(state) {
      state.run += 1;
      const dir = join(state.tmpDir, `demo-${state.run}`);
      try {
        const r = createDemo(dir, state.records);
        return { 'demo.create_ms': r.ms, 'demo.create_peak_rss_mb': r.peakRssMb };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  }),
];
