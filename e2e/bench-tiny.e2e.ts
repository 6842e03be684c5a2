// Issue 32 item 12, browser half: the benchmark specs that drive Chromium and `gf serve` run once at size `tiny`
// here, where the e2e harness has the browser and the built app (test/bench/ runs the others).
import { join } from 'node:path';
import { BENCH_DIR } from '../bench/runner';
import { BROWSER_BENCH_FILES, tinyBenchSuite } from '../test/bench/tiny';

for (const name of BROWSER_BENCH_FILES) tinyBenchSuite(join(BENCH_DIR, name));
