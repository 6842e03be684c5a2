// Issue 32 item 3: a registry mutation without the project's writer lock is impossible (a checked proof), and
// ADR-0014's lock order (writer.lock, then checkpoints.lock) holds under contention.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckpointRegistryStore } from '../../../../core/checkpoints/registry-store';
import { tryExclusive, tryShared } from '../../../../core/project/sqlite-lock';
import type { WriterLockProof } from '../../../../core/project/writer-proof';
import { testUuid } from '../../../support/project-fixtures';
import { codeOf, workspace, type Workspace } from './checkpoint-support';
import { creating, uuidN } from './registry-support';

const op = (n: number): string => testUuid(`lock-order-${n}`).replace(/^(.{14})./, '$18');
const opened: Workspace[] = [];
afterAll(() => {
  for (const w of opened) w.close();
});

async function ws(): Promise<Workspace> {
  const w = await workspace();
  opened.push(w);
  await w.publish('g1');
  return w;
}

function listing(dir: string): string[] {
  const out: string[] = [];
  for (const d of ['checkpoints', 'locks']) {
    const abs = path.join(dir, d);
    if (fs.existsSync(abs)) for (const n of fs.readdirSync(abs).sort()) out.push(`${d}/${n}`);
  }
  return out;
}

function messageOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  return 'accepted';
}

describe('registry mutations need the writer lock (checked proof)', () => {
  it('no proof, a proof whose withWriter ended, or a proof of another project: refused before any lock or byte', async () => {
    const w = await ws();
    const other = await ws();
    const store = new CheckpointRegistryStore(w.dir);
    const before = listing(w.dir);
    let stale: WriterLockProof | undefined;
    await w.project.withWriter((wr) => {
      stale = wr.lockProof;
    });
    let foreign: WriterLockProof | undefined;
    await other.project.withWriter((wr) => {
      foreign = wr.lockProof;
      expect(messageOf(() => store.mutate(wr.lockProof, creating('x', uuidN(1))))).toContain('the writer lock of another project');
    });
    expect(messageOf(() => store.mutate(undefined as unknown as WriterLockProof, creating('x', uuidN(1))))).toContain("needs the project's writer lock");
    expect(messageOf(() => store.mutate({ root: w.dir }, creating('x', uuidN(1))))).toContain('no writer lock proof');
    expect(messageOf(() => store.mutate(stale as WriterLockProof, creating('x', uuidN(1))))).toContain('the writer lock was released');
    expect(messageOf(() => store.mutate(foreign as WriterLockProof, creating('x', uuidN(1))))).toContain("needs the project's writer lock");
    expect(messageOf(() => store.recover(stale as WriterLockProof))).toContain('the writer lock was released');
    // Nothing was created: no registry, no checkpoints lock file, no marker.
    expect(listing(w.dir)).toEqual(before);
    // Holding it, the same mutation goes through.
    await w.project.withWriter((wr) => store.mutate(wr.lockProof, creating('x', uuidN(1))));
    expect(store.read().doc?.active.map((r) => r.name)).toEqual(['x']);
  });
});

describe('lock order under contention: writer.lock, then checkpoints.lock', () => {
  it('while another holder has writer.lock, create and delete fail GF_WRITER_BUSY without touching checkpoints.lock or the registry', async () => {
    const w = await ws();
    await w.cps.checkpoint({ name: 'a', idempotencyKey: op(1) });
    const before = listing(w.dir);
    const registry = fs.readFileSync(path.join(w.dir, 'checkpoints', 'registry.json'));
    const writer = tryExclusive(path.join(w.dir, 'locks', 'writer.lock'), 'locks/writer.lock');
    expect(writer.kind).toBe('held');
    try {
      // The checkpoints lock stays free meanwhile: a would-be writer never took it first.
      expect(await codeOf(() => w.cps.checkpoint({ name: 'b', idempotencyKey: op(2) }))).toBe('GF_WRITER_BUSY');
      expect(await codeOf(() => w.cps.deleteCheckpoint({ name: 'a', idempotencyKey: op(3) }))).toBe('GF_WRITER_BUSY');
      const probe = tryExclusive(path.join(w.dir, 'locks', 'checkpoints.lock'), 'locks/checkpoints.lock');
      expect(probe.kind).toBe('held');
      if (probe.kind === 'held') probe.lock.release();
      // Readers still read (shared checkpoints lock only).
      expect(w.cps.listCheckpoints().rows.map((r) => r.name)).toEqual(['a']);
    } finally {
      if (writer.kind === 'held') writer.lock.release();
    }
    expect(listing(w.dir)).toEqual(before);
    expect(fs.readFileSync(path.join(w.dir, 'checkpoints', 'registry.json'))).toEqual(registry);
  });

  it('a reader holding checkpoints.lock makes a writer (holding writer.lock) wait, then fail GF_WRITER_BUSY committed:false; writer.lock is free again afterwards', async () => {
    const w = await ws();
    await w.cps.checkpoint({ name: 'a', idempotencyKey: op(10) });
    const reader = tryShared(path.join(w.dir, 'locks', 'checkpoints.lock'), 'locks/checkpoints.lock');
    expect(reader.kind).toBe('held');
    const store = new CheckpointRegistryStore(w.dir, { lockTimeoutMs: 50 });
    let err: { code?: string; committed?: boolean; details?: Record<string, unknown> } | undefined;
    try {
      await w.project.withWriter((wr) => store.mutate(wr.lockProof, creating('b', uuidN(11))));
    } catch (e) {
      err = e as typeof err;
    } finally {
      if (reader.kind === 'held') reader.lock.release();
    }
    expect(err?.code).toBe('GF_WRITER_BUSY');
    expect(err?.committed).toBe(false);
    expect(err?.details?.['lock']).toBe('locks/checkpoints.lock');
    // The writer lock was given back: the next writer gets both locks, in order.
    await w.project.withWriter((wr) => store.mutate(wr.lockProof, creating('b', uuidN(11))));
    expect(store.read().doc?.active.map((r) => r.name).sort()).toEqual(['a', 'b']);
  });

  it('eight concurrent creates on one project serialise on writer.lock: all succeed, one registry revision each', async () => {
    const w = await ws();
    const { Checkpoints } = await import('../../../../core/checkpoints/checkpoints');
    const cps = new Checkpoints(w.project, { writerTimeoutMs: 30_000 });
    const names = Array.from({ length: 8 }, (_, i) => `c${i}`);
    const receipts = await Promise.all(names.map((name, i) => cps.checkpoint({ name, idempotencyKey: op(100 + i) })));
    expect(receipts).toHaveLength(8);
    const state = cps.registryState();
    expect(state.revision).toBe(8);
    expect(state.doc?.active.map((r) => r.name).sort()).toEqual(names);
  });
});
