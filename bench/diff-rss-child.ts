// Child process of the diff benchmark: one record diff in a fresh process
// (nothing memoized: both objects are verified), then its time and peak RSS.
// Usage: node --import tsx bench/diff-rss-child.ts PROJECT_DIR FROM TO full|page
import { readFileSync } from 'node:fs';
import { Checkpoints, openCheckpointedProject } from '../core/checkpoints/checkpoints';
import { diffAllRecordsCheckpoints, diffCheckpoints, projectShell } from '../core/diff/index';

const [dir, from = 'from', to = 'to', mode = 'full'] = process.argv.slice(2);
if (dir === undefined || (mode !== 'full' && mode !== 'page')) throw new Error('usage: diff-rss-child.ts PROJECT_DIR FROM TO full|page');
/**
 * Peak resident memory of this process image in MB: Linux `VmHWM` (reset by
 * exec, unlike `getrusage`'s `ru_maxrss`, which a child spawned from a large
 * benchmark process inherits), else `ru_maxrss`.
 */
function peakRssMb(): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m !== null) return Number(m[1]) / 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS / 1024;
}

const cps = new Checkpoints(await openCheckpointedProject(dir));
const before = peakRssMb();
const t0 = performance.now();
const rows =
  mode === 'full'
    ? (await diffAllRecordsCheckpoints({ from, to, scope: 'graph' }, projectShell(cps))).numRows
    : (await diffCheckpoints({ from, to, scope: 'graph', detail: 'records', limit: 100 }, projectShell(cps))).table.numRows;
const ms = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ rows, ms, max_rss_mb: peakRssMb(), rss_before_mb: before })}\n`);
