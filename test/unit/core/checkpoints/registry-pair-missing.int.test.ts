// Issue 32 item 2: a deleted registry pair is not "no checkpoint was ever created" when the workspace shows
// that checkpoints existed. It fails closed (GF_CHECKPOINT_REGISTRY_CORRUPT naming the evidence), cleanup
// prunes nothing, and `gf doctor` says how to recover.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../../../core/api/doctor-operations';
import { CheckpointRegistryStore } from '../../../../core/checkpoints/registry-store';
import { RevertEngine, ValidationMemo } from '../../../../core/revert/index';
import { testUuid } from '../../../support/project-fixtures';
import { codeOf, generationsOnDisk, workspace, type Workspace } from './checkpoint-support';
import { counterClock, demoProject, putConfigKeepingMode, tempDir } from '../revert/revert-support';

const op = (n: number): string => testUuid(`pair-missing-${n}`).replace(/^(.{14})./, '$18');
const opened: Workspace[] = [];
const temps: string[] = [];
afterAll(() => {
  for (const w of opened) w.close();
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true });
});

async function ws(): Promise<Workspace> {
  const w = await workspace();
  opened.push(w);
  return w;
}

function detailsOf(f: () => unknown): Record<string, unknown> {
  try {
    f();
  } catch (e) {
    return { code: (e as { code?: string }).code, ...((e as { details?: Record<string, unknown> }).details ?? {}) };
  }
  return { code: 'accepted' };
}

describe('a deleted registry pair with evidence that checkpoints existed fails closed', () => {
  it('pair deleted after a create: every checkpoint operation is GF_CHECKPOINT_REGISTRY_CORRUPT naming locks/checkpoints.created; cleanup prunes nothing; doctor says how to recover', async () => {
    const w = await ws();
    const g1 = await w.publish('g1');
    await w.cps.checkpoint({ name: 'keep', idempotencyKey: op(1) });
    await w.publish('g2');
    const g3 = await w.publish('g3');
    expect(generationsOnDisk(w)).toEqual([g1, g3].sort());
    const reg = path.join(w.dir, 'checkpoints', 'registry.json');
    const sum = path.join(w.dir, 'checkpoints', 'registry.json.sha256');
    const good = { reg: fs.readFileSync(reg), sum: fs.readFileSync(sum) };
    fs.rmSync(reg);
    fs.rmSync(sum);

    for (const [what, call] of [
      ['list', () => w.cps.listCheckpoints()],
      ['open', () => w.cps.openCheckpoint('keep')],
      ['create', () => w.cps.checkpoint({ name: 'other', idempotencyKey: op(2) })],
      ['delete', () => w.cps.deleteCheckpoint({ name: 'keep', idempotencyKey: op(3) })],
      ['pins', () => w.cps.registryState()],
    ] as const) {
      expect(await codeOf(call), what).toBe('GF_CHECKPOINT_REGISTRY_CORRUPT');
    }
    expect(detailsOf(() => new CheckpointRegistryStore(w.dir).read())).toEqual({ code: 'GF_CHECKPOINT_REGISTRY_CORRUPT', file: 'registry', reason: 'pair_missing', evidence: 'locks/checkpoints.created' });
    // Nothing was written by the refused create and delete.
    expect(fs.readdirSync(path.join(w.dir, 'checkpoints'))).toEqual([]);

    // Cleanup prunes nothing while it is so: g1 is pinned only by the deleted registry.
    const report = await w.project.cleanup();
    expect(report.skipped).toBe(true);
    expect(report.skippedReason).toBe('GF_CHECKPOINT_REGISTRY_CORRUPT');
    await w.publish('g4');
    expect(generationsOnDisk(w)).toContain(g1);

    // gf doctor names the finding and the way back.
    const found = (await diagnose(w.dir)).filter((a) => a.path === 'checkpoints/registry.json');
    expect(found).toHaveLength(1);
    expect(found[0]?.problem).toContain('locks/checkpoints.created');
    expect(found[0]?.remedy).toContain('registry.json.sha256');
    expect(found[0]?.remedy).toContain('backup');
    expect(found[0]?.repairable).toBe(false);

    // Restoring the pair restores everything.
    fs.writeFileSync(reg, good.reg);
    fs.writeFileSync(sum, good.sum);
    expect(w.cps.listCheckpoints().rows.map((r) => r.name)).toEqual(['keep']);
    expect((await diagnose(w.dir)).filter((a) => a.path.startsWith('checkpoints/'))).toEqual([]);
  });

  it('pair, marker and lock all deleted: a lineage line that restored a checkpoint is the evidence', async () => {
    const tmp = tempDir('gf-pair-missing-');
    temps.push(tmp);
    const dir = path.join(tmp, 'demo');
    const project = await demoProject(dir, 40);
    const engine = new RevertEngine(project, { clock: counterClock(), memo: new ValidationMemo() });
    await project.publish({ parent: project.current()?.generationUuid ?? null, changes: [putConfigKeepingMode(project, 'later')] });
    const names = new CheckpointRegistryStore(dir).read().doc?.active.map((r) => r.name) ?? [];
    expect(names.length).toBeGreaterThan(0);
    await engine.revertToCheckpoint({ name: names[0] as string, reason: 'back', idempotencyKey: op(10) });
    for (const f of ['checkpoints/registry.json', 'checkpoints/registry.json.sha256', 'locks/checkpoints.created', 'locks/checkpoints.lock']) fs.rmSync(path.join(dir, f));
    expect(detailsOf(() => new CheckpointRegistryStore(dir).read())).toEqual({ code: 'GF_CHECKPOINT_REGISTRY_CORRUPT', file: 'registry', reason: 'pair_missing', evidence: 'history/lineage.jsonl' });
    const report = await project.cleanup();
    expect(report.skippedReason).toBe('GF_CHECKPOINT_REGISTRY_CORRUPT');
  }, 120_000);

  it('no false alarm: a workspace that never committed a checkpoint reads empty, even after a refused first create left the lock file', async () => {
    const w = await ws();
    await w.publish('g1');
    expect(w.cps.listCheckpoints().rows).toEqual([]);
    // A refused first create (an invalid name) may leave locks/checkpoints.lock, never the marker.
    expect(await codeOf(() => w.cps.checkpoint({ name: '', idempotencyKey: op(20) }))).not.toBe('accepted');
    expect(fs.existsSync(path.join(w.dir, 'locks', 'checkpoints.created'))).toBe(false);
    expect(w.cps.listCheckpoints().rows).toEqual([]);
    await w.cps.checkpoint({ name: 'first', idempotencyKey: op(21) });
    expect(fs.existsSync(path.join(w.dir, 'locks', 'checkpoints.created'))).toBe(true);
    expect(w.cps.listCheckpoints().rows.map((r) => r.name)).toEqual(['first']);
  });
});
