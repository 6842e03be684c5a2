import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter';

/**
 * e2e files that are about one launcher and so run once, in the http project: `npm start` in browser mode,
 * `npm start`'s Electron branch (spawns the launcher itself) and the real Electron window; the browser
 * benchmarks' tiny check (they drive their own `gf serve` and Chromium).
 */
const E2E_HTTP_ONLY = ['e2e/start.e2e.ts', 'e2e/start-electron.e2e.ts', 'e2e/electron.e2e.ts', 'e2e/bench-tiny.e2e.ts'];
/** e2e files about the Electron-shaped pass's own stand-in, run once, in the ipc project. */
const E2E_IPC_ONLY = ['e2e/ipc-relay.e2e.ts'];

function e2eProject(name: string, transport: 'http' | 'ipc', exclude: readonly string[]) {
  return {
    test: {
      name,
      include: ['e2e/**/*.e2e.ts'],
      exclude: [...exclude],
      environment: 'node' as const,
      testTimeout: 120_000,
      hookTimeout: 180_000,
      pool: 'forks' as const,
      fileParallelism: false,
      globalSetup: ['./e2e/support/global-setup.ts'],
      provide: { e2eTransport: transport },
    },
  };
}

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
      // Every e2e file runs twice from the same code (e2e/support/app.ts): over the HTTP bridge (browser mode)
      // and over the Electron-shaped path (file://, the real preload, the real IPC handlers). Files about one
      // launcher or of the stand-in only are listed above; everything else, including new files, runs in both.
      e2eProject('e2e', 'http', E2E_IPC_ONLY),
      e2eProject('e2e-ipc', 'ipc', E2E_HTTP_ONLY),
    ],
  },
});
