import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { CheckpointRegistryStore } from '../../../../core/checkpoints/registry-store';
import { createDemoWithLaterChanges, LATER_CHANGE_FAMILIES } from '../../../support/demo-later-changes';
import { REGISTRY_FAILPOINTS, armRegistryFailpointForTesting } from '../../../../core/checkpoints/failpoints';
import type { RegistryFailpoint } from '../../../../core/checkpoints/failpoints';
import { GfError } from '../../../../core/errors';
import { creating, removeRoot, tempRoot, uuidN, writerOf } from './registry-support';
import { observeProject } from '../../../support/project-state';
import { codeOf, workspace } from './checkpoint-support';
import { ValidationMemo, leaseSnapshotByRows, validateCompleteSnapshot } from '../../../../core/checkpoints/snapshot-validation';
import { validationRecordPath, writeValidationRecord } from '../../../../core/checkpoints/validation-record';
import type { VerifiedObject } from '../../../../core/project/index';
import type { Workspace } from './checkpoint-support';

const here = path.dirname(fileURLToPath(import.meta.url));
const WRITER = path.join(here, 'fixtures', 'registry-writer.ts');

/** Failpoints at which the next revision is already visible (from the registry.json rename on). */
const NEXT_FROM = REGISTRY_FAILPOINTS.indexOf('checkpoint.registry.after_replace');

function expectedRevision(fp: RegistryFailpoint, previous: number): number {
  return REGISTRY_FAILPOINTS.indexOf(fp) >= NEXT_FROM ? previous + 1 : previous;
}

function runWriter(root: string, name: string, op: string, failpoint: string, kind: 'create' | 'delete' = 'create'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, root, name, op, kind], {
      env: { ...process.env, GF_FAILPOINT: failpoint },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

async function inBatches<T, R>(items: readonly T[], width: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(f))));
  return out;
}

const roots: string[] = [];
const spaces: Workspace[] = [];
afterAll(() => {
  for (const r of roots.splice(0)) removeRoot(r);
  for (const w of spaces.splice(0)) w.close();
});
afterEach(() => armRegistryFailpointForTesting(undefined));

/** Decoded rows of an Arrow IPC page, in the same JSON form as `observeProject`'s. */
function visibleRows(bytes: Uint8Array): string {
  return JSON.stringify(tableFromIPC(bytes).toArray().map((r) => r.toJSON()), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));
}

/** States of CURRENT's derived validation record the killed writer starts from. */
const CACHE_STATES = ['present', 'absent', 'torn'] as const;

/** Validates CURRENT completely and writes its record (`present`), writes none (`absent`) or a torn one (`torn`). */
function prepareRecord(w: Workspace, state: (typeof CACHE_STATES)[number]): void {
  if (state === 'absent') {
    fs.rmSync(path.join(w.dir, 'cache', 'validation'), { recursive: true, force: true });
    return;
  }
  const lease = w.project.lease();
  const opened: VerifiedObject[] = [];
  try {
    validateCompleteSnapshot(leaseSnapshotByRows(w.dir, lease, opened), new ValidationMemo());
    writeValidationRecord(w.dir, { generationUuid: lease.generationUuid, manifestSha256: lease.manifestSha256, participants: lease.manifest.participants }, w.project.caches.verifiedObjects);
    const file = validationRecordPath(w.dir, lease.manifestSha256);
    if (state === 'torn') fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
  } finally {
    for (const o of opened) o.close();
    lease.release();
  }
}

function dirEntries(root: string): string[] {
  const dir = path.join(root, 'checkpoints');
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}

describe('registry pair-commit under SIGKILL', () => {
  it('every failpoint, first create and replacement: reopen shows exactly the previous or the next revision', async () => {
    const scenarios = REGISTRY_FAILPOINTS.flatMap((fp) => (['first', 'replace'] as const).map((kind) => ({ fp, kind }))).map((s, i) => ({ ...s, cache: CACHE_STATES[i % CACHE_STATES.length] }));
    const results = await inBatches(
      scenarios,
      4,
      async ({ fp, kind, cache }) => {
        if (cache === undefined) throw new Error('a cache state per scenario');
        const w = await workspace();
        spaces.push(w);
        await w.publish('g1');
        if (kind === 'replace') {
          await w.cps.checkpoint({ name: 'before', idempotencyKey: uuidN(1) });
          await w.publish('g2'); // later changes: the new checkpoint names a newer generation
        }
        prepareRecord(w, cache);
        const before = w.cps.registryState();
        const target = w.project.current()!;
        const evidence = observeProject(w.project);
        const exit = await runWriter(w.dir, 'after', uuidN(2), fp);
        return { fp, kind, cache, w, before, target, evidence, exit };
      },
    );
    for (const { fp, kind, cache, w, before, target, evidence, exit } of results) {
      const label = `${fp} (${kind}, validation record ${cache})`;
      expect(exit.signal, label).toBe('SIGKILL');
      const again = await w.reopen();
      const want = expectedRevision(fp, before.revision);
      // A reader sees the settled outcome before any writer has acted …
      const seen = again.cps.registryState();
      expect(seen.revision, label).toBe(want);
      const names = (seen.doc?.active ?? []).map((r) => r.name);
      expect(names, label).toEqual(want > before.revision ? (kind === 'first' ? ['after'] : ['after', 'before']) : kind === 'first' ? [] : ['before']);
      if (want === before.revision) expect(seen.sha256, label).toBe(before.sha256);
      else {
        // … the new row names exactly the generation CURRENT named, and opens it.
        const view = again.cps.openCheckpoint('after');
        expect([view.generationUuid, view.manifestSha256], label).toEqual([target.generationUuid, target.manifestSha256]);
        // Participant fingerprints and visible rows are exactly those CURRENT had when the writer started.
        expect(view.participants.map((p) => ({ family: `${p.capabilityId}/${p.recordFamilyId}`, sha256: p.contentSha256 })), label).toEqual(
          evidence.participants.map((p) => ({ family: p.family, sha256: p.sha256 })),
        );
        for (const p of evidence.participants) expect(visibleRows(view.readRecords(p.family, { limit: 10_000 }).bytes), `${label} ${p.family}`).toBe(p.rows);
        view.release();
      }
      // Recovery under the writer makes the disk say the same thing, leaving exactly the pair.
      expect(await again.cps.recoverRegistry(), label).toEqual(seen);
      const files = want === 0 ? [] : ['registry.json', 'registry.json.sha256'];
      expect(dirEntries(w.dir), label).toEqual(files);
      // The interrupted operation can be retried with the same key: replay or completion, never a conflict.
      const receipt = await again.cps.checkpoint({ name: 'after', idempotencyKey: uuidN(2) });
      expect(receipt.registry_revision, label).toBe(before.revision + 1);
      expect(receipt.source_generation_uuid, label).toBe(target.generationUuid);
      expect(again.cps.registryState().revision, label).toBe(before.revision + 1);
    }
  }, 300_000);

  it('every failpoint, create on a workspace whose later changes touch every scope (the demo): reopen shows exactly the previous or the next revision', async () => {
    // One demo, copied per failpoint: after its first checkpoint the demo changes graph, ontology, knowledge,
    // epistemic, provenance and configuration records (checked, so the fixture cannot quietly narrow).
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-reg-crash-demo-'));
    roots.push(base);
    const changed = await createDemoWithLaterChanges(path.join(base, 'demo'));
    expect([...changed].filter((f) => LATER_CHANGE_FAMILIES.includes(f)).sort()).toEqual([...LATER_CHANGE_FAMILIES].sort());
    const results = await inBatches(REGISTRY_FAILPOINTS, 4, async (fp) => {
      const dir = path.join(base, fp);
      fs.cpSync(path.join(base, 'demo'), dir, { recursive: true });
      const project = await openCheckpointedProject(dir);
      const cps = new Checkpoints(project);
      const before = cps.registryState();
      const target = project.current()!;
      const evidence = observeProject(project);
      const exit = await runWriter(dir, 'after', uuidN(40), fp);
      return { fp, dir, before, target, evidence, exit };
    });
    for (const { fp, dir, before, target, evidence, exit } of results) {
      const label = `${fp} (every scope)`;
      expect(exit.signal, label).toBe('SIGKILL');
      const cps = new Checkpoints(await openCheckpointedProject(dir));
      const want = expectedRevision(fp, before.revision);
      const seen = cps.registryState();
      expect(seen.revision, label).toBe(want);
      const names = (seen.doc?.active ?? []).map((r) => r.name).sort();
      const was = (before.doc?.active ?? []).map((r) => r.name);
      expect(names, label).toEqual(want > before.revision ? [...was, 'after'].sort() : [...was].sort());
      if (want === before.revision) expect(seen.sha256, label).toBe(before.sha256);
      else {
        const view = cps.openCheckpoint('after');
        expect([view.generationUuid, view.manifestSha256], label).toEqual([target.generationUuid, target.manifestSha256]);
        expect(view.participants.map((p) => ({ family: `${p.capabilityId}/${p.recordFamilyId}`, sha256: p.contentSha256 })), label).toEqual(
          evidence.participants.map((p) => ({ family: p.family, sha256: p.sha256 })),
        );
        for (const p of evidence.participants) expect(visibleRows(view.readRecords(p.family, { limit: 10_000 }).bytes), `${label} ${p.family}`).toBe(p.rows);
        view.release();
      }
      expect(await cps.recoverRegistry(), label).toEqual(seen);
      expect(dirEntries(dir), label).toEqual(['registry.json', 'registry.json.sha256']);
      const receipt = await cps.checkpoint({ name: 'after', idempotencyKey: uuidN(40) });
      expect([receipt.registry_revision, receipt.source_generation_uuid], label).toEqual([before.revision + 1, target.generationUuid]);
    }
  }, 300_000);

  it('every failpoint, delete: reopen shows exactly the previous or the next revision; the same delete then completes or replays', async () => {
    const results = await inBatches(REGISTRY_FAILPOINTS, 4, async (fp) => {
      const w = await workspace();
      spaces.push(w);
      await w.publish('g1');
      await w.cps.checkpoint({ name: 'keep', idempotencyKey: uuidN(1) });
      await w.publish('g2');
      await w.cps.checkpoint({ name: 'gone', idempotencyKey: uuidN(2) });
      const before = w.cps.registryState();
      const exit = await runWriter(w.dir, 'gone', uuidN(3), fp, 'delete');
      return { fp, w, before, exit };
    });
    for (const { fp, w, before, exit } of results) {
      const label = `${fp} (delete)`;
      expect(exit.signal, label).toBe('SIGKILL');
      const again = await w.reopen();
      const want = expectedRevision(fp, before.revision);
      const seen = again.cps.registryState();
      expect(seen.revision, label).toBe(want);
      expect((seen.doc?.active ?? []).map((r) => r.name).sort(), label).toEqual(want > before.revision ? ['keep'] : ['gone', 'keep']);
      expect((seen.doc?.tombstones ?? []).map((r) => r.name), label).toEqual(want > before.revision ? ['gone'] : []);
      if (want === before.revision) expect(seen.sha256, label).toBe(before.sha256);
      expect(await again.cps.recoverRegistry(), label).toEqual(seen);
      expect(dirEntries(w.dir), label).toEqual(['registry.json', 'registry.json.sha256']);
      const receipt = await again.cps.deleteCheckpoint({ name: 'gone', idempotencyKey: uuidN(3) });
      expect([receipt.operation, receipt.registry_revision], label).toEqual(['delete_checkpoint', before.revision + 1]);
      expect(again.cps.registryState().revision, label).toBe(before.revision + 1);
      expect(await codeOf(() => again.cps.openCheckpoint('gone')), label).toBe('GF_CHECKPOINT_NOT_FOUND');
    }
  }, 300_000);

  it('.error variants report committed truthfully and leave a settled registry', () => {
    for (const fp of REGISTRY_FAILPOINTS) {
      const root = tempRoot('gf-err-');
      roots.push(root);
      const store = new CheckpointRegistryStore(root);
      store.mutate(writerOf(store.root), creating('before', uuidN(1)));
      armRegistryFailpointForTesting(`${fp}.error`);
      let err: GfError | undefined;
      try {
        store.mutate(writerOf(store.root), creating('after', uuidN(2)));
      } catch (e) {
        err = e as GfError;
      }
      const committed = REGISTRY_FAILPOINTS.indexOf(fp) >= NEXT_FROM;
      expect(err?.code, fp).toBe('GF_IO');
      expect(err?.committed, fp).toBe(committed);
      expect(store.read().revision, fp).toBe(committed ? 2 : 1);
      expect(dirEntries(root), fp).toEqual(['registry.json', 'registry.json.sha256']);
    }
  });
});
