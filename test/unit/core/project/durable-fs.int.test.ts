import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { runGf } from '../../../support/cli-run';

// Defect 4 of issue 23: a FIFO (or any non-regular file) at a machine-owned
// path must be refused as corrupt, never waited on. The CLI runs as a real
// child process, so a hang on the old code is a timeout (the test fails),
// not a frozen test runner.

let base: string;
let demo: string;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-fifo-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 20, seed: 1 });
});

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));


function withFifoAt(name: string, rel: string): string {
  const dir = path.join(base, name);
  fs.cpSync(demo, dir, { recursive: true });
  const at = path.join(dir, ...rel.split('/'));
  fs.rmSync(at);
  execFileSync('mkfifo', [at]);
  return dir;
}

describe('defect 4: a FIFO at a machine-owned path hangs gf forever', () => {
  it('a FIFO at CURRENT or at the current manifest is GF_PROJECT_CORRUPT naming it, at once', { timeout: 120_000 }, async () => {
    const current = withFifoAt('fifo-current', 'CURRENT');
    const gen = (JSON.parse(fs.readFileSync(path.join(demo, 'CURRENT'), 'utf8')) as { generation_uuid: string }).generation_uuid;
    const manifest = withFifoAt('fifo-manifest', `generations/${gen}/manifest.json`);
    const [a, b] = await Promise.all([
      runGf(['checkpoint', 'list', '--project', current], 25_000),
      runGf(['checkpoint', 'open', 'Graph imported', '--project', manifest, '--', 'participants'], 25_000),
    ]);
    expect({ timedOut: a.timedOut, code: a.code }).toEqual({ timedOut: false, code: 1 });
    expect(a.err).toContain('GF_PROJECT_CORRUPT: not a regular file: CURRENT');
    expect({ timedOut: b.timedOut, code: b.code }).toEqual({ timedOut: false, code: 1 });
    expect(b.err).toContain(`GF_PROJECT_CORRUPT: not a regular file: generations/${gen}/manifest.json`);
  });
});
