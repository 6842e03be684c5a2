import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GfError } from '../../../../core/errors';
import { createProject, openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { bundleProjectChild } from '../../../support/project-child-bundle';
import { putConfig } from '../../../support/project-fixtures';
import { LATER_HISTORY } from '../../../support/project-scenarios';
import { leaseRecordedGeneration } from '../../../../core/project/named-lease';

// Locks are the OS's: a second writer is refused, a SIGKILLed holder frees
// its lock, a reader's lease pins its generation until it ends or dies.

let tmp: string;
let child: string;
let n = 0;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-locks-'));
  child = await bundleProjectChild(tmp);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Holder {
  readonly proc: ChildProcessByStdio<null, Readable, null>;
  readonly ready: Promise<{ generationUuid?: string }>;
  readonly exited: Promise<NodeJS.Signals | null>;
}

/** Starts a child that takes a lock and reports `ready` once it holds it. */
function hold(mode: 'hold-writer' | 'hold-lease', dir: string): Holder {
  const proc = spawn(process.execPath, [child, mode, dir], {
    env: { ...process.env, NODE_PATH: path.resolve('node_modules') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<{ generationUuid?: string }>((resolve, reject) => {
    let buf = '';
    proc.stdout.on('data', (c: Buffer) => {
      buf += c.toString();
      const line = buf.split('\n')[0];
      if (buf.includes('\n') && line !== undefined) {
        const v = JSON.parse(line) as { ready?: boolean; generationUuid?: string };
        if (v.ready === true) resolve(v);
        else reject(new Error(`child failed: ${line}`));
      }
    });
    proc.on('close', () => reject(new Error('child exited before ready')));
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('close', (_c, s) => resolve(s)));
  return { proc, ready, exited };
}

async function caught(f: () => unknown): Promise<GfError> {
  try {
    await f();
  } catch (e) {
    if (e instanceof GfError) return e;
    throw e;
  }
  throw new Error('expected a GfError');
}

async function projectWithHistory(): Promise<string> {
  const dir = path.join(tmp, `p${n++}`);
  const p = await createProject<Table>(dir, { catalog: registryCatalog });
  for (const step of LATER_HISTORY) await p.publish(step(p.current()?.generationUuid ?? null));
  return dir;
}

describe('writer lock', () => {
  it('a second writer is busy at once and after its timeout; a SIGKILLed holder does not block the next', async () => {
    const dir = await projectWithHistory();
    const h = hold('hold-writer', dir);
    await h.ready;
    const p = await openProject<Table>(dir, { catalog: registryCatalog });
    const now = await caught(() => p.publish({ parent: p.current()?.generationUuid ?? null, changes: [putConfig('busy')] }));
    expect(now.code).toBe('GF_WRITER_BUSY');
    expect(now.committed).toBe(false);
    const t1 = performance.now();
    const later = await caught(() => p.withWriter(() => undefined, { timeoutMs: 150 }));
    expect(later.code).toBe('GF_WRITER_BUSY');
    expect(performance.now() - t1).toBeGreaterThanOrEqual(150);
    expect((await caught(() => p.withWriter(() => undefined, { timeoutMs: Number.POSITIVE_INFINITY }))).code).toBe('GF_VALIDATION');
    h.proc.kill('SIGKILL');
    expect(await h.exited).toBe('SIGKILL');
    const r = await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [putConfig('after-kill')] });
    expect(p.current()?.generationUuid).toBe(r.generationUuid);
  });

  it('a waiting writer gets the lock once the holder dies within its timeout', async () => {
    const dir = await projectWithHistory();
    const h = hold('hold-writer', dir);
    await h.ready;
    const p = await openProject<Table>(dir, { catalog: registryCatalog });
    const waiting = p.withWriter((w) => w.current()?.generationUuid, { timeoutMs: 30_000 });
    h.proc.kill('SIGKILL');
    expect(await waiting).toBe(p.current()?.generationUuid);
  });
});

describe('reader lease', () => {
  it('keeps its generation and objects through publications and cleanups; a SIGKILLed reader stops pinning', async () => {
    const dir = await projectWithHistory();
    const h = hold('hold-lease', dir);
    const { generationUuid: pinned } = await h.ready;
    if (pinned === undefined) throw new Error('lease child names its generation');
    const p = await openProject<Table>(dir, { catalog: registryCatalog, retainAncestors: 0 });
    for (let i = 0; i < 4; i++) {
      const r = await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [putConfig(`l${i}`)] });
      expect(r.cleanup.leased).toContain(pinned);
      await p.cleanup();
    }
    // Everything the reader pinned is still readable and verified, from another process' view too.
    const view = leaseRecordedGeneration(p, pinned, p.listGenerations().find((g) => g.generationUuid === pinned)?.manifestSha256 ?? '');
    view.verifyParticipants();
    expect(view.readTable('graph/node')?.numRows).toBe(3);
    view.release();
    h.proc.kill('SIGKILL');
    expect(await h.exited).toBe('SIGKILL');
    const report = await p.cleanup();
    expect(report.removedGenerations).toContain(pinned);
    expect(p.listGenerations().map((g) => g.generationUuid)).toEqual([p.current()?.generationUuid]);
  });
});
