// Global set-up of both e2e projects (vitest.config.ts): one folder for the
// run's shared demo workspaces (./demo-app.ts copies them), made by whichever
// project starts first and removed when the last one finishes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

interface Shared {
  dir: string;
  users: number;
}

const KEY = Symbol.for('gf.e2e.demo-cache');
const registry = globalThis as unknown as { [KEY]?: Shared };

/** Makes (or joins) the run's demo folder and hands its path to this project's files. */
export function setup(project: TestProject): void {
  const shared = (registry[KEY] ??= { dir: mkdtempSync(join(tmpdir(), 'gf-e2e-demos-')), users: 0 });
  shared.users++;
  project.provide('e2eDemoCache', shared.dir);
}

/** Removes the folder once the last e2e project is done with it. */
export function teardown(): void {
  const shared = registry[KEY];
  if (shared === undefined) return;
  shared.users--;
  if (shared.users === 0) {
    rmSync(shared.dir, { recursive: true, force: true });
    delete registry[KEY];
  }
}
