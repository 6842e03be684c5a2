import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IO_FAULT_ENV } from '../../../../core/project/fs-layer';
import { createLockFile, tryExclusive } from '../../../../core/project/sqlite-lock';
import { gf } from '../../../support/cli-run';

// Defect 7 of issue 23: an interrupted `gf demo create` (or first `npm start`)
// left a partial demo that was never repaired. The demo is built in a private
// sibling and renamed into place.

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-demo-int-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function gfChild(args: readonly string[], env: Record<string, string>): Promise<{ signal: NodeJS.Signals | null; code: number | null }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [path.resolve('bin/gf.mjs'), ...args], { env: { ...process.env, ...env }, stdio: 'ignore' });
    proc.on('error', reject);
    proc.on('close', (code, signal) => resolve({ code, signal }));
  });
}

describe('defect 7: an interrupted gf demo create leaves a partial demo', () => {
  it('killed mid-build (SIGKILL at the 300th filesystem call): nothing at the target, and the next create succeeds', { timeout: 120_000 }, async () => {
    const dir = path.join(base, 'demo');
    const killed = await gfChild(['demo', 'create', dir, '--records', '10'], { [IO_FAULT_ENV]: '300:kill' });
    expect(killed.signal).toBe('SIGKILL');
    expect(fs.existsSync(dir)).toBe(false);
    // The killed build's private sibling (and its lock file) is what it left behind.
    const leftovers = fs.readdirSync(base).filter((n) => n.startsWith('.demo.gf-demo-'));
    expect(leftovers.length).toBeGreaterThan(0);
    const again = await gf('demo', 'create', dir, '--records', '10');
    expect({ code: again.code, err: again.err }).toEqual({ code: 0, err: '' });
    // The next run removed it: no hidden sibling stays.
    expect(fs.readdirSync(base).filter((n) => n.startsWith('.demo.gf-demo-'))).toEqual([]);
    const list = await gf('checkpoint', 'list', '--project', dir, '--json');
    expect((JSON.parse(list.out) as { rows: { name: string }[] }).rows.map((r) => r.name)).toContain('Graph imported');
  });

  it('a live build of the same target (its lock held) is left alone; an abandoned one beside it is removed', { timeout: 120_000 }, async () => {
    const dir = path.join(base, 'live');
    const live = path.join(base, '.live.gf-demo-00000000000000aa');
    const dead = path.join(base, '.live.gf-demo-00000000000000bb');
    fs.mkdirSync(live);
    fs.writeFileSync(path.join(live, 'FORMAT'), 'partial');
    createLockFile(`${live}.lock`, 'live.lock');
    const held = tryExclusive(`${live}.lock`, 'live.lock');
    if (held.kind !== 'held') throw new Error('the test holds the live build lock');
    fs.mkdirSync(dead);
    fs.writeFileSync(path.join(dead, 'FORMAT'), 'partial');
    createLockFile(`${dead}.lock`, 'dead.lock');
    try {
      const r = await gf('demo', 'create', dir, '--records', '10');
      expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
      expect(fs.readdirSync(base).filter((n) => n.startsWith('.live.gf-demo-')).sort()).toEqual(['.live.gf-demo-00000000000000aa', '.live.gf-demo-00000000000000aa.lock']);
      expect(fs.readFileSync(path.join(live, 'FORMAT'), 'utf8')).toBe('partial');
    } finally {
      held.lock.release();
    }
  });
});
