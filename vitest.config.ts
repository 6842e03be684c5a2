import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter';

export default defineConfig({
  test: {
    reporters: ['default', new SummaryReporter()],
    // Two test files at a time even on two cores (Vitest's default there is one): most files wait on
    // child processes, fsync and PostgreSQL start-up, so the second core is otherwise idle. Files are
    // independent by construction (own temp folders, own PostgreSQL on a random port, the CLI bundle
    // built once in global set-up); e2e files still run one at a time (fileParallelism: false).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/bench/**', '**/node_modules/**'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
          globalSetup: ['./test/support/global-setup.ts'],
        },
      },
      {
        test: {
          // Every benchmark spec once at size `tiny` (set-up and figures, not speed); the browser ones run in e2e.
          name: 'bench',
          include: ['test/bench/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          pool: 'forks',
          globalSetup: ['./test/support/global-setup.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          pool: 'forks',
          fileParallelism: false,
        },
      },
    ],
  },
});
