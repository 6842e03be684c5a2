// Child process of the diff benchmark: one whole record diff, then its peak RSS.
// Usage: node --import tsx bench/diff-rss-child.ts PROJECT_DIR
import { Checkpoints, openCheckpointedProject } from '../core/checkpoints/checkpoints';
import { diffProjectAllRecords } from '../core/diff/index';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: diff-rss-child.ts PROJECT_DIR');
const cps = new Checkpoints(await openCheckpointedProject(dir));
const before = process.resourceUsage().maxRSS;
const t0 = performance.now();
const table = await diffProjectAllRecords(cps, { from: 'from', to: 'to', scope: 'graph' });
const ms = performance.now() - t0;
const usage = process.resourceUsage();
process.stdout.write(`${JSON.stringify({ rows: table.numRows, ms, max_rss_mb: usage.maxRSS / 1024, rss_before_mb: before / 1024 })}\n`);
