import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { gf } from '../../../support/cli-run';

// Defects 5 and 6 of issue 23: one bad ledger file never blinds `chain
// verify --all` / `chain list`; a read-only workspace can be listed, opened,
// diffed and verified (the page-token key lives in memory, and gf says so).

let base: string;
let demo: string;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-ro-'));
  demo = path.join(base, 'demo');
  await createDemoWorkspace(demo, { records: 20, seed: 1 });
});

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function ledgers(dir: string): string[] {
  return fs.readdirSync(path.join(dir, 'chain')).sort();
}

describe('defect 5: one bad ledger file blinds verification', () => {
  it('a garbage and a truncated checkpoints.sqlite are reported unreadable with their cause; the rest are verified and listed', async () => {
    const dir = path.join(base, 'bad-ledger');
    fs.cpSync(demo, dir, { recursive: true });
    const [garbage, truncated] = ledgers(dir) as [string, string];
    fs.writeFileSync(path.join(dir, 'chain', garbage, 'checkpoints.sqlite'), Buffer.alloc(8192, 0x41));
    const t = path.join(dir, 'chain', truncated, 'checkpoints.sqlite');
    fs.truncateSync(t, 100);
    const v = await gf('chain', 'verify', '--all', '--project', dir, '--json');
    const reports = JSON.parse(v.out) as { workflow_id: string; status: string; ledger?: string; cause?: string }[];
    const bad = reports.filter((r) => r.status === 'unreadable');
    expect(bad.map((r) => r.ledger).sort()).toEqual([`chain/${garbage}/checkpoints.sqlite`, `chain/${truncated}/checkpoints.sqlite`].sort());
    for (const r of bad) expect(r.cause).toMatch(/^SQLITE_[A-Z_]+$/);
    // The other three demo ledgers are verified (the tampered one found as such).
    const good = reports.filter((r) => r.status !== 'unreadable');
    expect(good).toHaveLength(ledgers(dir).length - 2);
    expect(good.every((r) => r.status === 'ok' || r.status === 'chain_mismatch')).toBe(true);
    expect(v.code).toBe(1);
    expect(v.err).not.toContain('internal error');

    const l = await gf('chain', 'list', '--project', dir);
    expect(l.code).toBe(0);
    expect(l.out).toContain(`chain/${garbage}/checkpoints.sqlite: unreadable (SQLITE_`);
    expect(l.out.trim().split('\n')).toHaveLength(ledgers(dir).length);
  });
});

function mountReadOnlyCopy(name: string): { dir: string; release: () => void } {
  const mnt = path.join(base, name);
  fs.mkdirSync(mnt);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mnt], { stdio: 'ignore' });
  } catch {
    // Not allowed to mount here: a non-root reader of a write-protected copy (permissions, not a mount).
    const dir = path.join(mnt, 'ws');
    fs.cpSync(demo, dir, { recursive: true });
    execFileSync('chmod', ['-R', 'a-w', dir]);
    return { dir, release: () => execFileSync('chmod', ['-R', 'u+w', dir]) };
  }
  const dir = path.join(mnt, 'ws');
  fs.cpSync(demo, dir, { recursive: true });
  execFileSync('mount', ['-o', 'remount,ro', mnt], { stdio: 'ignore' });
  // Lazy: in-process CLI runs may still hold lock-file handles (a real gf process would have exited).
  return { dir, release: () => execFileSync('umount', ['-l', mnt], { stdio: 'ignore' }) };
}

describe('defect 6: read-only workspaces cannot be diffed or verified', () => {
  it('on a read-only mount: list, open, diff (summary and records, paged) and chain verify work; diff says its key is in memory', { timeout: 60_000 }, async () => {
    const ro = mountReadOnlyCopy('ro-mount');
    try {
      expect(() => fs.writeFileSync(path.join(ro.dir, 'probe'), 'x')).toThrow();
      const list = await gf('checkpoint', 'list', '--project', ro.dir, '--json');
      expect({ code: list.code, err: list.err }).toEqual({ code: 0, err: '' });
      const open = await gf('checkpoint', 'open', 'Graph imported', '--project', ro.dir, '--json', '--', 'participants');
      expect({ code: open.code, err: open.err }).toEqual({ code: 0, err: '' });
      const summary = await gf('checkpoint', 'diff', 'Graph imported', 'CURRENT', '--project', ro.dir, '--json');
      expect(summary.code).toBe(0);
      expect(summary.err).toContain('page-token key is kept in memory');
      const rows = await gf('checkpoint', 'diff', 'Graph imported', 'CURRENT', '--project', ro.dir, '--detail', 'records', '--limit', '2', '--json');
      expect(rows.code).toBe(0);
      expect((JSON.parse(rows.out) as { rows: unknown[] }).rows).toHaveLength(2);
      const verify = await gf('chain', 'verify', '--all', '--project', ro.dir, '--json');
      const reports = JSON.parse(verify.out) as { status: string }[];
      expect(reports.map((r) => r.status).sort()).toEqual(['chain_mismatch', 'ok', 'ok', 'ok', 'ok']);
    } finally {
      ro.release();
    }
  });
});
