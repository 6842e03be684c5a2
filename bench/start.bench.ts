import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ensureCliBundle } from '../scripts/build-cli.mjs';
// @ts-expect-error plain ESM helper without type declarations
import { buildIfNeeded } from '../scripts/build-if-needed.mjs';
import { defineBench } from './harness';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const GF = join(ROOT, 'bin/gf.mjs');
const URL_LINE = /^Checkpoint Studio \(browser mode\): (http:\/\/127\.0\.0\.1:\d+\/\S*)$/;

/** Wall time of one whole process, from spawn to exit (it must exit 0). */
function processMs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${String(r.status)}: ${r.stderr.toString().trim()}`);
  return ms;
}

/** Time from launching `npm start`'s script until it prints the browser-mode URL; the app is then stopped. */
function startToUrlMs(dataHome: string): Promise<number> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    // --browser: the figure is browser mode (no Electron download or launch in the measurement); --no-open: no browser is started.
    const child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--browser', '--no-open'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, XDG_DATA_HOME: dataHome },
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const lines = createInterface({ input: child.stdout });
    let ms: number | undefined;
    lines.on('line', (line) => {
      if (ms === undefined && URL_LINE.test(line.trim())) {
        ms = performance.now() - t0;
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => (ms !== undefined ? done(ms) : fail(new Error(`npm start exited (${String(code)}) before printing its URL: ${err.trim()}`))));
  });
}

interface StartState {
  readonly demo: string;
  readonly dataHome: string;
}

/**
 * `cli.start_ms.help` (`gf --help`) and `cli.start_ms.list` (`gf checkpoint list
 * --json` on the 1k demo), each a whole process, beside `node.start_ms`
 * (`node -e 0`) in the same run; and `app.start_to_url_ms`: `npm start` in
 * browser mode with the demo already present, launch to URL printed.
 * Ten runs (medians of 10); the bundle and the app build exist before timing.
 */
export const benchmarks = [
  defineBench<StartState>({
    id: 'start',
    results: { 'node.start_ms': 'ms', 'cli.start_ms.help': 'ms', 'cli.start_ms.list': 'ms', 'app.start_to_url_ms': 'ms' },
    ratios: [
      { id: 'cli.start_ratio.help', numerator: 'cli.start_ms.help', denominator: 'node.start_ms' },
      { id: 'cli.start_ratio.list', numerator: 'cli.start_ms.list', denominator: 'node.start_ms' },
    ],
    runs: 10,
    async setup({ tmpDir }) {
      await ensureCliBundle();
      (buildIfNeeded as (o?: { log?: (s: string) => void }) => boolean)({ log: () => undefined });
      const demo = join(tmpDir, 'demo');
      processMs([GF, 'demo', 'create', demo, '--records', '1000']);
      const dataHome = join(tmpDir, 'xdg');
      mkdirSync(dataHome, { recursive: true });
      // First launch creates the user-data demo (not measured: the figure is "demo already present").
      await startToUrlMs(dataHome);
      return { demo, dataHome };
    },
    async run({ demo, dataHome }) {
      return {
        'node.start_ms': processMs(['-e', '0']),
        'cli.start_ms.help': processMs([GF, '--help']),
        'cli.start_ms.list': processMs([GF, 'checkpoint', 'list', '--json', '--project', demo]),
        'app.start_to_url_ms': await startToUrlMs(dataHome),
      };
    },
  }),
];
