// Issue 32 item 12: `npm test` runs every benchmark spec once at size `tiny`, so a broken set-up or a figure
// that is no longer computed fails here instead of rotting unseen. Speed is not checked: each declared
// figure and ratio must be a finite number from one real run (no warm-up). Browser specs: e2e/bench-tiny.e2e.ts.
import { relative } from 'node:path';
import { BENCH_DIR, findBenchFiles } from '../../bench/runner';
import { BROWSER_BENCH_FILES, tinyBenchSuite } from './tiny';

for (const file of findBenchFiles()) {
  if (!(BROWSER_BENCH_FILES as readonly string[]).includes(relative(BENCH_DIR, file))) tinyBenchSuite(file);
}
