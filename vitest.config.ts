import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter';

export default defineConfig({
  test: {
    reporters: ['default', new SummaryReporter()],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
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
