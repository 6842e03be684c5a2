// Child process of the scale benchmark: one operation in a fresh process
// (nothing memoized), then its time and peak RSS as one JSON line.
// Usage: node --import tsx bench/scale-child.ts OP DIR [ARG]
//   demo DIR RECORDS | summary DIR | first-page DIR | full-diff DIR EXPORT_FILE
//   | history DIR | checkpoint DIR NAME | revert DIR
import { existsSync, readFileSync } from 'node:fs';
import { createFacade } from '../core/api/facade';
import { Checkpoints, openCheckpointedProject } from '../core/checkpoints/checkpoints';
import { main } from '../core/cli/main';
import { unwrapEnvelope } from '../core/contract/wire';
import { diffAllRecordsCheckpoints, projectShell } from '../core/diff/index';
import { writeArrowStreamFile } from '../core/diff/page-export-file';

/** Peak RSS of this process image in MB: Linux `VmHWM` (reset by exec), else `ru_maxrss`. */
function peakRssMb(): number {
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '');
  return (hwm === null ? process.resourceUsage().maxRSS : Number(hwm[1])) / 1024;
}

/** The demo's earliest named checkpoint (the imported graph), diffed against CURRENT. */
const FROM = 'Graph imported';

const [op, dir, arg] = process.argv.slice(2);
if (op === undefined || dir === undefined) throw new Error('usage: scale-child.ts OP DIR [ARG]');

async function gf(argv: string[]): Promise<void> {
  let err = '';
  const code = await main(argv, { stdout: () => undefined, stderr: (s) => void (err += s) });
  if (code !== 0) throw new Error(`gf ${argv.join(' ')} exited ${code}: ${err.trim()}`);
}

const out: Record<string, number> = {};
const t0 = performance.now();
switch (op) {
  case 'demo':
    await gf(['demo', 'create', dir, '--records', String(arg)]);
    break;
  case 'summary':
    await gf(['checkpoint', 'diff', FROM, 'CURRENT', '--project', dir, '--json']);
    break;
  case 'first-page':
    await gf(['checkpoint', 'diff', FROM, 'CURRENT', '--project', dir, '--scope', 'graph', '--detail', 'records', '--limit', '100', '--json']);
    break;
  case 'full-diff': {
    const table = await diffAllRecordsCheckpoints({ from: FROM, to: 'CURRENT', scope: 'graph' }, projectShell(new Checkpoints(await openCheckpointedProject(dir))));
    out.rows = table.numRows;
    out.diff_ms = performance.now() - t0;
    // The export: the whole record diff written as one Arrow IPC stream file (batch by batch, on disk when it returns).
    const e0 = performance.now();
    writeArrowStreamFile(String(arg), table);
    out.export_ms = performance.now() - e0;
    break;
  }
  case 'history': {
    // What the history screen asks for: the generations with parents and restoration records.
    const facade = createFacade({ mode: 'browser', chain: { kind: 'sqlite' } });
    const opened = unwrapEnvelope(await facade.dispatcher.dispatch('project.open', { path: dir })) as { project: string };
    const summary = unwrapEnvelope(await facade.dispatcher.dispatch('project.summary', { project: opened.project })) as { generations: readonly unknown[] };
    out.generations = summary.generations.length;
    await facade.close();
    break;
  }
  case 'checkpoint':
    await gf(['checkpoint', 'create', String(arg), '--project', dir, '--description', 'scale benchmark']);
    break;
  case 'revert':
    await gf(['checkpoint', 'revert', FROM, '--project', dir, '--reason', 'scale benchmark']);
    break;
  default:
    throw new Error(`unknown operation ${op}`);
}
out.ms = performance.now() - t0;
out.peak_rss_mb = peakRssMb();
process.stdout.write(`${JSON.stringify(out)}\n`);
