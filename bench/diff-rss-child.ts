// Child process of the diff benchmark: one record diff in a fresh process
// (nothing memoized: both objects are verified), then its time and peak RSS.
// Usage: node --import tsx bench/diff-rss-child.ts PROJECT_DIR FROM TO full|page
import { Checkpoints, openCheckpointedProject } from '../core/checkpoints/checkpoints';
import { diffProjectAllRecords, diffProjectCheckpoints } from '../core/diff/index';

const [dir, from = 'from', to = 'to', mode = 'full'] = process.argv.slice(2);
if (dir === undefined || (mode !== 'full' && mode !== 'page')) throw new Error('usage: diff-rss-child.ts PROJECT_DIR FROM TO full|page');
const cps = new Checkpoints(await openCheckpointedProject(dir));
const before = process.resourceUsage().maxRSS;
const t0 = performance.now();
const rows =
  mode === 'full'
    ? (await diffProjectAllRecords(cps, { from, to, scope: 'graph' })).numRows
    : (await diffProjectCheckpoints(cps, { from, to, scope: 'graph', detail: 'records', limit: 100 })).table.numRows;
const ms = performance.now() - t0;
const usage = process.resourceUsage();
process.stdout.write(`${JSON.stringify({ rows, ms, max_rss_mb: usage.maxRSS / 1024, rss_before_mb: before / 1024 })}\n`);
