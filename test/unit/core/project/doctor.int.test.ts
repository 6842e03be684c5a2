import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { gf } from '../../../support/cli-run';
import { treeDigest } from '../../../support/project-state';
import { ensureCliBundle } from '../../../../scripts/build-cli.mjs';

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
  anomalies: { path: string; problem: string; remedy: string; repairable: boolean; leftover: string | null }[];
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
    expect(r.code).toBe(1); // a report with anomalies exits 1
    const found = (JSON.parse(r.out) as Report).anomalies;
    expect(found.map((a) => a.path).sort()).toEqual(
      ['CURRENT', 'current-tmp-018f0f4e-7b8c-7000-8000-00000000aa01', 'transactions/tmp-018f0f4e-7b8c-7000-8000-00000000aa01.json', `chain/${ledger}/checkpoints.sqlite`].sort(),
    );
    expect(found.every((a) => a.remedy.length > 0)).toBe(true);
    expect(treeDigest(dir)).toEqual(before);

    const fixed = await gf('doctor', '--project', dir, '--repair', '--json');
    expect(fixed.code).toBe(1); // a report with anomalies exits 1
    const after = JSON.parse(fixed.out) as Report;
    expect(fs.readFileSync(path.join(dir, 'CURRENT'))).toEqual(current);
    expect(after.rebuilt_current).not.toBeNull();
    // Only the ledger (no recovery remedy exists for it) is left.
    expect(after.anomalies.map((a) => a.path)).toEqual([`chain/${ledger}/checkpoints.sqlite`]);
    const list = await gf('checkpoint', 'list', '--project', dir, '--json');
    expect({ code: list.code, err: list.err }).toEqual({ code: 0, err: '' });
  });

  it('reports an orphaned object (no generation names it) as a leftover; --repair removes exactly it', async () => {
    const dir = path.join(base, 'orphan');
    fs.cpSync(demo, dir, { recursive: true });
    const rel = `objects/sha256/ab/${'c'.repeat(62)}`;
    fs.mkdirSync(path.join(dir, 'objects/sha256/ab'), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), 'bytes no manifest names');
    const before = treeDigest(dir);
    const r = await gf('doctor', '--project', dir, '--json');
    expect(r.code).toBe(1); // a report with anomalies exits 1
    const found = (JSON.parse(r.out) as Report).anomalies;
    expect(found.map((a) => [a.path, a.problem, a.repairable, a.leftover])).toEqual([[rel, 'orphaned object: no generation names it', true, 'orphaned_object']]);
    expect(found[0]?.remedy).toMatch(/cleanup removes it/);
    expect(treeDigest(dir)).toEqual(before);
    const repaired = await gf('doctor', '--project', dir, '--repair', '--json');
    expect(repaired.code).toBe(0);
    expect((JSON.parse(repaired.out) as Report).anomalies).toEqual([]);
    expect(fs.existsSync(path.join(dir, rel))).toBe(false);
  });

  it('reports permission problems (an unreadable object, an unwritable directory and lock file) with path and remedy, as a user who is not root', { timeout: 120_000 }, async () => {
    // Root reads and writes anything, so the check runs as `nobody` when the tests run as root (real permissions, no mock).
    const asRoot = process.getuid?.() === 0;
    const dir = path.join(base, 'perms');
    fs.cpSync(demo, dir, { recursive: true });
    const objects = fs.readdirSync(path.join(dir, 'objects/sha256')).sort();
    const fan = objects[0] as string;
    const object = `objects/sha256/${fan}/${fs.readdirSync(path.join(dir, 'objects/sha256', fan)).sort()[0] as string}`;
    if (asRoot) {
      fs.chmodSync(base, 0o755);
      const chown = (p: string): void => {
        fs.lchownSync(p, 65534, 65534);
        if (fs.lstatSync(p).isDirectory()) for (const n of fs.readdirSync(p)) chown(path.join(p, n));
      };
      chown(dir);
    }
    fs.chmodSync(path.join(dir, object), 0o000);
    fs.chmodSync(path.join(dir, 'transactions'), 0o555);
    fs.chmodSync(path.join(dir, 'locks/writer.lock'), 0o444);
    await ensureCliBundle();
    const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
      const proc = spawn(process.execPath, [path.resolve('bin/gf.mjs'), 'doctor', '--project', dir, '--json'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      });
      let out = '';
      let err = '';
      proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
      proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
      proc.on('error', reject);
      proc.on('close', (code) => resolve({ code, out, err }));
    });
    expect({ code: r.code, err: r.err }).toEqual({ code: 1, err: 'GF_PROJECT_CORRUPT: gf doctor found 3 anomalies; see the report for each path and its remedy\n' });
    const found = (JSON.parse(r.out) as Report).anomalies;
    expect(found.map((a) => a.path).sort()).toEqual([object, 'locks/writer.lock', 'transactions'].sort());
    const byPath = new Map(found.map((a) => [a.path, a]));
    expect(byPath.get(object)?.problem).toBe('permission: gf cannot read this file, so reads fail');
    expect(byPath.get(object)?.remedy).toContain(`chmod u+r ${object}`);
    expect(byPath.get('transactions')?.problem).toMatch(/^permission: gf cannot write here/);
    expect(byPath.get('transactions')?.remedy).toContain('chmod u+w transactions');
    expect(byPath.get('locks/writer.lock')?.problem).toMatch(/^permission: gf cannot write here/);
    expect(found.every((a) => !a.repairable)).toBe(true);
  });
});
