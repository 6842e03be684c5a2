import type { Reporter, TestModule } from 'vitest/node';

/** Prints the plain closing line `Tests: N passed, N failed, N skipped` that CI reads. */
export class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of testModules) {
      // A file whose setup failed (e.g. no Chromium for the e2e harness) did not run its tests: they count as failed, not skipped.
      const moduleFailed = m.state() === 'failed';
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') passed++;
        else if (s === 'failed' || (moduleFailed && t.options.mode !== 'skip' && t.options.mode !== 'todo')) failed++;
        else skipped++;
      }
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++;
    }
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
