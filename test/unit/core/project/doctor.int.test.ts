import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { gf } from '../../../support/cli-run';
import { treeDigest } from '../../../support/project-state';

// `gf doctor` (issue 23): a read-only report of every anomaly with its path and
// a safe remedy; `--repair` applies only the recovery protocol's remedies.

let base: string;
let demo: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-doctor-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 10, seed: 1 });
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

interface Report {
  anomalies: { path: string; problem: string; remedy: string; repairable: boolean }[];
  rebuilt_current: string | null;
}

describe('gf doctor', () => {
  it('a healthy demo: no anomalies', async () => {
    const r = await gf('doctor', '--project', demo, '--json');
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as Report).anomalies).toEqual([]);
  });

  it('reports leftovers, a missing CURRENT and a bad ledger without changing a byte; --repair rebuilds CURRENT from the newest verified generation', async () => {
    const dir = path.join(base, 'broken');
    fs.cpSync(demo, dir, { recursive: true });
    const current = fs.readFileSync(path.join(dir, 'CURRENT'));
    fs.rmSync(path.join(dir, 'CURRENT'));
    fs.writeFileSync(path.join(dir, 'transactions', 'tmp-018f0f4e-7b8c-7000-8000-00000000aa01.json'), 'x');
    fs.writeFileSync(path.join(dir, 'current-tmp-018f0f4e-7b8c-7000-8000-00000000aa01'), 'x');
    const ledger = fs.readdirSync(path.join(dir, 'chain'))[0] as string;
    fs.writeFileSync(path.join(dir, 'chain', ledger, 'checkpoints.sqlite'), 'garbage');
    const before = treeDigest(dir);
    const r = await gf('doctor', '--project', dir, '--json');
    expect(r.code).toBe(0);
    const found = (JSON.parse(r.out) as Report).anomalies;
    expect(found.map((a) => a.path).sort()).toEqual(
      ['CURRENT', 'current-tmp-018f0f4e-7b8c-7000-8000-00000000aa01', 'transactions/tmp-018f0f4e-7b8c-7000-8000-00000000aa01.json', `chain/${ledger}/checkpoints.sqlite`].sort(),
    );
    expect(found.every((a) => a.remedy.length > 0)).toBe(true);
    expect(treeDigest(dir)).toEqual(before);

    const fixed = await gf('doctor', '--project', dir, '--repair', '--json');
    expect(fixed.code).toBe(0);
    const after = JSON.parse(fixed.out) as Report;
    expect(fs.readFileSync(path.join(dir, 'CURRENT'))).toEqual(current);
    expect(after.rebuilt_current).not.toBeNull();
    // Only the ledger (no recovery remedy exists for it) is left.
    expect(after.anomalies.map((a) => a.path)).toEqual([`chain/${ledger}/checkpoints.sqlite`]);
    const list = await gf('checkpoint', 'list', '--project', dir, '--json');
    expect({ code: list.code, err: list.err }).toEqual({ code: 0, err: '' });
  });
});
