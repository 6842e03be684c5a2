import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoWorkspace } from '../../../../core/demo/index';
import { armIoFaultForTesting, ioFaultsInjectedForTesting } from '../../../../core/project/fs-layer';
import { encodeJournal } from '../../../../core/project/formats';
import { deriveGenerationUuid } from '../../../../core/project/layout';
import { createProject, openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { gf } from '../../../support/cli-run';
import { LATER_HISTORY, scenarioRequest } from '../../../support/project-scenarios';
import { treeDigest } from '../../../support/project-state';

// Defects 1 and 2 of issue 23 (GENERATIONS.md "Recovery"): a leftover temp
// file never blocks the next write of its name, a failed write removes its
// own temp, and an absent CURRENT on a populated project fails closed.

let base: string;
let demo: string;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-recovery-'));
  demo = path.join(base, 'demo-template');
  await createDemoWorkspace(demo, { records: 20, seed: 1 });
});

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function copyDemo(to: string): string {
  fs.cpSync(demo, to, { recursive: true });
  return to;
}

/** Tries a real small tmpfs under a test-owned directory; false when this machine cannot mount one. */
function mountTmpfs(dir: string, size: string): boolean {
  fs.mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Fills the file system holding `dir` until `leave` bytes are free (a filler file, removed by the caller). */
function fillTo(dir: string, leave: number): string {
  const filler = path.join(dir, 'filler.bin');
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (e) {
    expect((e as { code?: string }).code).toBe('ENOSPC');
  }
  // Give back `leave` bytes (whole pages).
  const size = fs.fstatSync(fd).size;
  fs.ftruncateSync(fd, Math.max(0, size - leave));
  fs.closeSync(fd);
  return filler;
}

describe('defect 1: a leftover journal temp file bricks the workspace', () => {
  it('a leftover transactions/tmp-<txn>.json is removed before the interrupted journal is relabelled; every command works', async () => {
    const dir = copyDemo(path.join(base, 'leftover'));
    const parent = (await openProject<Table>(dir, { catalog: registryCatalog })).current()?.generationUuid ?? null;
    // An interrupted publication (journal PREPARING) plus its journal temp, as a SIGKILL between temp write and rename leaves them.
    const txn = '018f0f4e-7b8c-7000-8000-00000000a001';
    const bytes = encodeJournal({ transactionUuid: txn, state: 'PREPARING', parentGenerationUuid: parent, generationUuid: deriveGenerationUuid(txn), extension: null });
    const jpath = path.join(dir, 'transactions', `${txn}.json`);
    fs.writeFileSync(jpath, bytes);
    fs.writeFileSync(path.join(dir, 'transactions', `tmp-${txn}.json`), bytes);
    const list = await gf('checkpoint', 'list', '--project', dir, '--json');
    expect({ code: list.code, err: list.err }).toEqual({ code: 0, err: '' });
    expect(fs.existsSync(path.join(dir, 'transactions', `tmp-${txn}.json`))).toBe(false);
    expect(JSON.parse(fs.readFileSync(jpath, 'utf8')) as { state: string }).toMatchObject({ state: 'ABORTED' });
  });

  it('a failed write removes its own temp file, and the error names that temp', async () => {
    const dir = path.join(base, 'failed-write');
    const p = await createProject<Table>(dir, { catalog: registryCatalog });
    for (const step of LATER_HISTORY) await p.publish(step(p.current()?.generationUuid ?? null));
    // Fail the first write of the next publication: its PREPARING journal temp.
    let caught: unknown;
    try {
      await p.withWriter(async (w) => {
        armIoFaultForTesting('1:ENOSPC:write'); // the first write: the PREPARING journal's temp
        try {
          return await w.publishAsync(scenarioRequest('later', p.current()?.generationUuid ?? null));
        } finally {
          armIoFaultForTesting(undefined);
        }
      });
    } catch (e) {
      caught = e;
    }
    expect(caught).toMatchObject({ code: 'GF_IO', committed: false, details: { errno: 'ENOSPC', operation: 'write' } });
    expect((caught as { details: { name: string } }).details.name).toMatch(/^transactions\/tmp-[0-9a-f-]{36}\.json$/);
    expect(fs.readdirSync(path.join(dir, 'transactions')).filter((n) => n.startsWith('tmp-'))).toEqual([]);
    const r = await p.publish(scenarioRequest('later', p.current()?.generationUuid ?? null));
    expect(p.current()?.generationUuid).toBe(r.generationUuid);
  });

  it('tmpfs reproduction: a revert that hits ENOSPC, then list, diff, revert and verify all succeed once space is freed', { timeout: 120_000 }, async () => {
    const mnt = path.join(base, 'tmpfs');
    const mounted = mountTmpfs(mnt, '6m');
    try {
      const dir = copyDemo(path.join(mnt, 'ws'));
      const injectedBefore = ioFaultsInjectedForTesting();
      let filler: string | undefined;
      if (mounted) filler = fillTo(mnt, 4096);
      else armIoFaultForTesting('1:ENOSPC:write'); // no mount here: the fault layer's ENOSPC at the revert's first write
      const full = await gf('checkpoint', 'revert', 'Graph imported', '--project', dir, '--reason', 'x', '--idempotency-key', '018f0f4e-7b8c-7000-8000-00000000b001');
      armIoFaultForTesting(undefined);
      expect(full.code).toBe(1);
      expect(full.err).toContain('GF_IO');
      expect(full.err).toContain('committed: false');
      if (mounted) expect(full.err).toContain('ENOSPC');
      else expect(ioFaultsInjectedForTesting()).toBe(injectedBefore + 1);
      if (filler !== undefined) fs.rmSync(filler);

      const list = await gf('checkpoint', 'list', '--project', dir, '--json');
      expect({ code: list.code, err: list.err }).toEqual({ code: 0, err: '' });
      expect((JSON.parse(list.out) as { rows: { name: string }[] }).rows.map((r) => r.name)).toContain('Graph imported');
      const diff = await gf('checkpoint', 'diff', 'Graph imported', 'CURRENT', '--project', dir, '--json');
      expect({ code: diff.code, err: diff.err }).toEqual({ code: 0, err: '' });
      const revert = await gf('checkpoint', 'revert', 'Graph imported', '--project', dir, '--reason', 'x', '--idempotency-key', '018f0f4e-7b8c-7000-8000-00000000b002', '--json');
      expect({ code: revert.code, err: revert.err.replace(/^idempotency key.*\n/m, '') }).toEqual({ code: 0, err: '' });
      const verify = await gf('chain', 'verify', '--all', '--project', dir, '--json');
      // The demo tampers one ledger on purpose: verify runs and reports it (exit 1 with per-workflow results), never an I/O error.
      expect(verify.err).not.toMatch(/GF_IO|GF_PROJECT_CORRUPT/);
      expect(verify.out.length).toBeGreaterThan(0);
      // Recovery run twice changes no byte.
      const once = treeDigest(dir);
      await (await openProject(dir, { catalog: registryCatalog })).recover();
      expect(treeDigest(dir)).toEqual(once);
    } finally {
      if (mounted) execFileSync('umount', ['-l', mnt], { stdio: 'ignore' });
    }
  });
});

describe('defect 2: a missing CURRENT on a populated workspace loses data', () => {
  it('fails closed with GF_PROJECT_CORRUPT naming CURRENT; publish changes nothing', async () => {
    const dir = copyDemo(path.join(base, 'no-current'));
    fs.rmSync(path.join(dir, 'CURRENT'));
    const before = treeDigest(dir);
    await expect(openProject(dir, { catalog: registryCatalog })).rejects.toMatchObject({ code: 'GF_PROJECT_CORRUPT', details: { name: 'CURRENT' } });
    const list = await gf('checkpoint', 'list', '--project', dir);
    expect(list.code).toBe(1);
    expect(list.err).toContain('GF_PROJECT_CORRUPT');
    expect(list.err).toContain('CURRENT');
    const p = await openProject<Table>(dir, { catalog: registryCatalog, recover: false }).catch((e: unknown) => e);
    expect(p).toMatchObject({ code: 'GF_PROJECT_CORRUPT' });
    expect(treeDigest(dir)).toEqual(before);
  });

  it('an interrupted first publication (journal and its directory, no CURRENT) is still uninitialized', async () => {
    const dir = path.join(base, 'first-attempt');
    const p = await createProject<Table>(dir, { catalog: registryCatalog });
    armIoFaultForTesting('9:EIO');
    await expect(p.publish(scenarioRequest('first', null))).rejects.toMatchObject({ committed: false });
    armIoFaultForTesting(undefined);
    const again = await openProject<Table>(dir, { catalog: registryCatalog });
    expect(again.state()).toBe('uninitialized');
  });
});
