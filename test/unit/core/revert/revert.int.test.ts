import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { planCreate, prepareCreate } from '../../../../core/checkpoints/registry-core';
import { diffCheckpoints, projectShell } from '../../../../core/diff/index';
import { GRAPH_EDGE, WORKSPACE_RESTORATION_TRANSITION, encodeRecords, recordsFromTable } from '../../../../core/participants/index';
import { openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import type { ParticipantCatalog, Project } from '../../../../core/project/index';
import { RevertEngine, ValidationMemo, revertTransactionUuid } from '../../../../core/revert/index';
import { createProject } from '../../../../core/project/index';
import { putConfig, putEdges, putNodes, testUuid } from '../../../support/project-fixtures';
import { treeDigest } from '../../../support/project-state';
import { codeOf, counterClock, demoProject, laterChangesEverywhere, logicalRows, tempDir } from './revert-support';
import { leaseRecordedGeneration } from '../../../../core/project/named-lease';


let tmp: string;
let project: Project<Table>;
let dir: string;

beforeAll(async () => {
  tmp = tempDir('gf-revert-');
  dir = path.join(tmp, 'demo');
  project = await demoProject(dir);
  await laterChangesEverywhere(project);
}, 120_000);

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const KEY = (n: number): string => testUuid(`revert-key-${n}`).replace(/^(.{14})./, '$18');

function engine(p: Project<Table> = project, clock = counterClock()): RevertEngine {
  return new RevertEngine(p, { clock, memo: new ValidationMemo() });
}

/** SHA-256 over the concatenation, computed here without the module under test. */
function h(...parts: (string | Uint8Array)[]): Buffer {
  const c = createHash('sha256');
  for (const p of parts) c.update(typeof p === 'string' ? Buffer.from(p, 'utf8') : p);
  return c.digest();
}
function u(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}
function v8(d: Buffer): string {
  const b = Buffer.from(d.subarray(0, 16));
  b[6] = ((b[6] as number) & 0x0f) | 0x80;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const x = b.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

describe('revert', () => {
  it('revert_restores_complete_workspace: every participant of every scope equals the checkpoint, history kept, registry untouched', async () => {
    const cps = new Checkpoints(project);
    const registryBefore = cps.registryState();
    const prior = project.current();
    const view = cps.openCheckpoint('Graph imported');
    // Later changes exist in every scope between the checkpoint and CURRENT.
    const before = await diffCheckpoints({ from: 'CURRENT', to: 'Graph imported', scope: 'summary', detail: 'summary', limit: 1000 }, projectShell(cps));
    const changedScopes = new Set(before.table.toArray().filter((r) => r.toJSON()['change_kind'] !== 'unchanged').map((r) => String(r.toJSON()['scope'])));
    // (Not `workspace`: the demo's own revert record is not carried into the later generations.)
    expect([...changedScopes].sort()).toEqual(['capabilities', 'configuration', 'epistemic', 'graph', 'knowledge', 'ontology', 'provenance']);

    const receipt = await engine().revertToCheckpoint({ name: 'Graph imported', reason: '  Undo the imports for review  ', idempotencyKey: KEY(1) });
    // The same project instance reads the restored generation at once.
    const now = project.lease();
    try {
      expect(now.generationUuid).toBe(receipt.result_generation_uuid);
      expect(now.manifest.parentGenerationUuid).toBe(prior?.generationUuid);
      const restoredKeys = now.families().filter((k) => k !== WORKSPACE_RESTORATION_TRANSITION.key);
      expect(restoredKeys).toEqual(view.participants.map((p) => `${p.capabilityId}/${p.recordFamilyId}`));
      const source = leaseRecordedGeneration(project, view.generationUuid, view.manifestSha256);
      for (const p of view.participants) {
        const key = `${p.capabilityId}/${p.recordFamilyId}`;
        // Referenced by content address: the very same object, and the same logical rows.
        expect(now.participant(key)?.contentSha256, key).toBe(p.contentSha256);
        expect(logicalRows(now.readTable(key)), key).toBe(logicalRows(source.readTable(key)));
      }
      source.release();
      const rows = recordsFromTable(WORKSPACE_RESTORATION_TRANSITION, now.readTable(WORKSPACE_RESTORATION_TRANSITION.key) as Table);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.['reason']).toBe('Undo the imports for review');
    } finally {
      now.release();
    }
    // The logical diff CURRENT → checkpoint is empty in every user scope; only the restoration record differs.
    const after = await diffCheckpoints({ from: 'CURRENT', to: 'Graph imported', scope: 'summary', detail: 'summary', limit: 1000 }, projectShell(cps));
    const changed = after.table.toArray().map((r) => r.toJSON()).filter((r) => r['change_kind'] !== 'unchanged');
    expect(changed.map((r) => [r['scope'], r['record_family_id'], r['change_kind']])).toEqual([['workspace', 'restoration_transition', 'removed']]);
    // History is preserved: the prior current is the parent and still readable; the registry is byte-identical.
    expect(project.history()[1]?.generationUuid).toBe(prior?.generationUuid);
    expect(cps.registryState()).toEqual(registryBefore);
    // The view opened before the revert stays on its pin.
    expect(view.generationUuid).toBe(receipt.source_generation_uuid);
    view.release();
  });

  it('recomputes the restoration row and the receipt from the inputs with the ADR formulas', async () => {
    const cps = new Checkpoints(project);
    const row = cps.showCheckpoint('Before curation');
    const prior = project.current();
    const actor = '018f0f4e-7b8c-7000-8000-0000000000aa';
    const key = KEY(2);
    const at = 1_770_000_000_123_456;
    const receipt = await new RevertEngine(project, { clock: () => at, memo: new ValidationMemo() }).revertToCheckpoint({ name: 'Before curation', reason: 'Réouverture ✓', idempotencyKey: key, actorUuid: actor });

    const name = Buffer.from('Before curation', 'utf8');
    const reason = Buffer.from('Réouverture ✓', 'utf8');
    const request = h(
      'graphforge-checkpoint-revert-request/1', u(key), u32(name.length), name, u(row.checkpoint_uuid), u(row.generation_uuid),
      Buffer.from(row.generation_manifest_sha256, 'hex'), u32(reason.length), reason, Buffer.of(1), u(actor),
    );
    const txn = v8(h('graphforge-checkpoint-revert-transaction/1', u(key)));
    const restoration = v8(h('graphforge-restoration-transition-uuid/1', u(key), request));
    const ts = Buffer.alloc(8);
    ts.writeBigInt64BE(BigInt(at));
    const restored = v8(h(
      'graphforge-checkpoint-restored-generation/1', u(txn), u(row.checkpoint_uuid), u(row.generation_uuid),
      Buffer.from(row.generation_manifest_sha256, 'hex'), u(prior?.generationUuid ?? ''), ts, request,
    ));
    expect(receipt).toEqual({
      operation: 'revert_to_checkpoint',
      operation_uuid: key,
      checkpoint_uuid: row.checkpoint_uuid,
      name: 'Before curation',
      source_generation_uuid: row.generation_uuid,
      prior_current_generation_uuid: prior?.generationUuid,
      result_generation_uuid: restored,
      registry_revision: cps.registryState().revision,
      committed_at: at,
    });
    const lease = project.lease();
    try {
      expect(lease.manifest.transactionUuid).toBe(txn);
      expect(txn).toBe(revertTransactionUuid(key));
      const rows = recordsFromTable(WORKSPACE_RESTORATION_TRANSITION, lease.readTable(WORKSPACE_RESTORATION_TRANSITION.key) as Table);
      expect(rows).toEqual([{
        restoration_uuid: restoration,
        checkpoint_uuid: row.checkpoint_uuid,
        source_generation_uuid: row.generation_uuid,
        source_manifest_sha256: row.generation_manifest_sha256,
        prior_current_generation_uuid: prior?.generationUuid,
        restored_generation_uuid: restored,
        operation_uuid: key,
        actor_uuid: actor,
        reason: 'Réouverture ✓',
        restored_at: BigInt(at),
        contract_version: 1,
      }]);
    } finally {
      lease.release();
    }
  });

  it('replays the original receipt without resampling the clock; a different request under the key conflicts', async () => {
    let calls = 0;
    const clock = (): number => 1_780_000_000_000_000 + ++calls;
    const e = new RevertEngine(project, { clock, memo: new ValidationMemo() });
    const first = await e.revertToCheckpoint({ name: 'Strict ontology', reason: 'r', idempotencyKey: KEY(3) });
    const gensBefore = project.history().length;
    const again = await e.revertToCheckpoint({ name: 'Strict ontology', reason: ' r\n', idempotencyKey: KEY(3) });
    expect(again).toEqual(first);
    expect(calls).toBe(1);
    expect(project.current()?.generationUuid).toBe(first.result_generation_uuid);
    expect(project.history().length).toBe(gensBefore);
    const tree = treeDigest(dir);
    expect(await codeOf(() => e.revertToCheckpoint({ name: 'Strict ontology', reason: 'other', idempotencyKey: KEY(3) }))).toBe('GF_IDEMPOTENCY_CONFLICT');
    expect(await codeOf(() => e.revertToCheckpoint({ name: 'Release 1.0', reason: 'r', idempotencyKey: KEY(3) }))).toBe('GF_IDEMPOTENCY_CONFLICT');
    expect(await codeOf(() => e.revertToCheckpoint({ name: 'Strict ontology', reason: 'r', idempotencyKey: KEY(3), actorUuid: KEY(99) }))).toBe('GF_IDEMPOTENCY_CONFLICT');
    expect(treeDigest(dir)).toEqual(tree);
  });

  it('reverting twice, to the checkpoint of the current generation, and to a deleted checkpoint', async () => {
    const e = engine();
    const a = await e.revertToCheckpoint({ name: 'Release 1.0', reason: 'first', idempotencyKey: KEY(4) });
    const b = await e.revertToCheckpoint({ name: 'Release 1.0', reason: 'second', idempotencyKey: KEY(5) });
    // Each revert publishes a new generation forward; the second's parent is the first.
    expect(b.prior_current_generation_uuid).toBe(a.result_generation_uuid);
    expect(b.result_generation_uuid).not.toBe(a.result_generation_uuid);
    expect(b.source_generation_uuid).toBe(a.source_generation_uuid);
    const lease = project.lease();
    const rows = recordsFromTable(WORKSPACE_RESTORATION_TRANSITION, lease.readTable(WORKSPACE_RESTORATION_TRANSITION.key) as Table);
    lease.release();
    expect(rows.map((r) => r['reason'])).toEqual(['second']);
    // Checkpoint the restored generation and revert to it: still a new generation (CURRENT never moves backward or stays).
    const cps = new Checkpoints(project, { clock: counterClock(1_790_000_000_000_000) });
    await cps.checkpoint({ name: 'Here', idempotencyKey: KEY(6) });
    const c = await e.revertToCheckpoint({ name: 'Here', reason: 'same place', idempotencyKey: KEY(7) });
    expect(c.source_generation_uuid).toBe(b.result_generation_uuid);
    expect(c.prior_current_generation_uuid).toBe(b.result_generation_uuid);
    expect(c.result_generation_uuid).not.toBe(b.result_generation_uuid);
    const restored = project.lease();
    const src = leaseRecordedGeneration(project, c.source_generation_uuid, cps.showCheckpoint('Here').generation_manifest_sha256);
    for (const p of src.manifest.participants) {
      if (p.recordFamilyId === 'restoration_transition') continue;
      expect(restored.participant(`${p.capabilityId}/${p.recordFamilyId}`)?.contentSha256).toBe(p.contentSha256);
    }
    restored.release();
    src.release();
    // A deleted name: not found, nothing changes; the completed revert of that name still replays.
    await cps.deleteCheckpoint({ name: 'Here', idempotencyKey: KEY(8) });
    const tree = treeDigest(dir);
    expect(await codeOf(() => e.revertToCheckpoint({ name: 'Here', reason: 'again', idempotencyKey: KEY(9) }))).toBe('GF_CHECKPOINT_NOT_FOUND');
    expect(await codeOf(() => e.revertToCheckpoint({ name: 'Curation scratch', reason: 'deleted by the demo', idempotencyKey: KEY(10) }))).toBe('GF_CHECKPOINT_NOT_FOUND');
    expect(treeDigest(dir)).toEqual(tree);
    expect(await e.revertToCheckpoint({ name: 'Here', reason: 'same place', idempotencyKey: KEY(7) })).toEqual(c);
  });

  it('refuses bad input with GF_VALIDATION before touching anything', async () => {
    const e = engine();
    const tree = treeDigest(dir);
    const ok = { name: 'Release 1.0', reason: 'ok', idempotencyKey: KEY(11) };
    expect(await codeOf(() => e.revertToCheckpoint({ ...ok, reason: '   \n\t ' }))).toBe('GF_VALIDATION');
    expect(await codeOf(() => e.revertToCheckpoint({ ...ok, reason: '' }))).toBe('GF_VALIDATION');
    expect(await codeOf(() => e.revertToCheckpoint({ ...ok, reason: 'é'.repeat(513) }))).toBe('GF_VALIDATION');
    expect(await codeOf(() => e.revertToCheckpoint({ ...ok, reason: undefined }))).toBe('GF_VALIDATION');
    expect(await codeOf(() => e.revertToCheckpoint({ ...ok, reason: '\ud800' }))).toBe('GF_VALIDATION');
    expect(await codeOf(() => e.revertToCheckpoint({ ...ok, idempotencyKey: 'not-a-uuid' }))).toBe('GF_VALIDATION');
    expect(await codeOf(() => e.revertToCheckpoint({ ...ok, idempotencyKey: KEY(11).toUpperCase() }))).toBe('GF_VALIDATION');
    expect(await codeOf(() => e.revertToCheckpoint({ ...ok, actorUuid: 'x' }))).toBe('GF_VALIDATION');
    expect(await codeOf(() => e.revertToCheckpoint({ ...ok, name: '../x' }))).toBe('GF_VALIDATION');
    expect(treeDigest(dir)).toEqual(tree);
    // 1,024 bytes after trimming is accepted, and stored trimmed.
    const r = await e.revertToCheckpoint({ ...ok, reason: ` ${'é'.repeat(512)} ` });
    const lease = project.lease();
    const rows = recordsFromTable(WORKSPACE_RESTORATION_TRANSITION, lease.readTable(WORKSPACE_RESTORATION_TRANSITION.key) as Table);
    lease.release();
    expect(rows[0]?.['reason']).toBe('é'.repeat(512));
    expect(rows[0]?.['restored_generation_uuid']).toBe(r.result_generation_uuid);
  });

  it('preview is the diff CURRENT → checkpoint with the identities the revert would use', async () => {
    const e = engine();
    const preview = await e.previewRevert('Graph imported');
    const cp = new Checkpoints(project).showCheckpoint('Graph imported');
    expect(preview.checkpoint_uuid).toBe(cp.checkpoint_uuid);
    expect(preview.source_generation_uuid).toBe(cp.generation_uuid);
    expect(preview.current_generation_uuid).toBe(project.current()?.generationUuid);
    expect(preview.diff.schema).toBe('checkpoint_summary_diff@1');
    const direct = await diffCheckpoints({ from: 'CURRENT', to: 'Graph imported', scope: 'all', detail: 'summary' }, projectShell(new Checkpoints(project)));
    expect(logicalRows(preview.diff.table)).toBe(logicalRows(direct.table));
    expect(preview.diff.table.toArray().some((r) => r.toJSON()['change_kind'] !== 'unchanged')).toBe(true);
    expect(await codeOf(() => e.previewRevert('Curation scratch'))).toBe('GF_CHECKPOINT_NOT_FOUND');
  });
});

describe('revert_revalidates_composite_snapshot', () => {
  it('refuses a checkpoint whose composite holds a dangling cross-domain reference; nothing is published', async () => {
    const d = path.join(tmp, 'dangling');
    const p = await createProject<Table>(d, { catalog: registryCatalog });
    await p.publish({ parent: null, changes: [putNodes(4, 'a'), putEdges(3, 'a'), putConfig('a')] });
    // A generation written by an engine without the edge → node reference rule (validation off):
    // its edges name a node that does not exist.
    const lax: ParticipantCatalog<Table> = { ...registryCatalog, validateParticipant: () => undefined, validateSnapshot: () => undefined };
    const old = await openProject<Table>(d, { catalog: lax });
    const dangling = encodeRecords(GRAPH_EDGE, [{ source_node_uuid: testUuid('a-node-0'), target_node_uuid: testUuid('nowhere'), kind: 'cites', weight: 1, created_at: 1n }]);
    await old.publish({ parent: p.current()?.generationUuid ?? null, changes: [{ kind: 'put', capabilityId: 'graph', recordFamilyId: 'edge', bytes: dangling }] });
    const project2 = await openCheckpointedProject(d);
    const cps = new Checkpoints(project2, { clock: counterClock() });
    // `checkpoint` now refuses such a generation; a registry row written by an older engine still names it.
    expect(await codeOf(() => cps.checkpoint({ name: 'Broken', idempotencyKey: KEY(20) }))).toBe('GF_VALIDATION');
    const broken = project2.current();
    await project2.withWriter((w) =>
      cps.store.mutate(w.lockProof, (doc) => planCreate(doc, prepareCreate({ name: 'Broken', idempotencyKey: KEY(20) }), { generationUuid: broken?.generationUuid ?? '', manifestSha256: broken?.manifestSha256 ?? '' }, 1_750_000_000_000_000)),
    );
    // An ordinary publication that touches neither graph family does not re-check edges …
    await project2.publish({ parent: project2.current()?.generationUuid ?? null, changes: [putConfig('b')] });
    const current = project2.current();
    const tree = treeDigest(d);
    const memo = new ValidationMemo();
    const e = new RevertEngine(project2, { clock: counterClock(), memo });
    // … but revert validates the complete composite snapshot.
    let err: unknown;
    try {
      await e.revertToCheckpoint({ name: 'Broken', reason: 'try', idempotencyKey: KEY(21) });
    } catch (x) {
      err = x;
    }
    expect((err as { code?: string }).code).toBe('GF_VALIDATION');
    expect((err as { committed?: boolean }).committed).toBe(false);
    expect((err as { details?: Record<string, unknown> }).details?.['record_family_id']).toBe('edge');
    expect(JSON.stringify((err as { details?: unknown }).details)).not.toContain('try');
    expect(project2.current()).toEqual(current);
    expect(project2.listGenerations().map((g) => g.generationUuid)).not.toContain(undefined);
    expect(Object.keys(treeDigest(d)).filter((k) => k.startsWith('generations/') && k.endsWith('manifest.json'))).toEqual(
      Object.keys(tree).filter((k) => k.startsWith('generations/') && k.endsWith('manifest.json')),
    );
    // A replay with the same key fails the same way (the durable extension is reused, not a new sample).
    expect(await codeOf(() => e.revertToCheckpoint({ name: 'Broken', reason: 'try', idempotencyKey: KEY(21) }))).toBe('GF_VALIDATION');
    expect(memo.size).toBeGreaterThan(0);
  });

  it('reuses validator results keyed by content digests, yet re-checks every rule whose inputs changed', async () => {
    const d = path.join(tmp, 'memo');
    const p = await createProject<Table>(d, { catalog: registryCatalog });
    await p.publish({ parent: null, changes: [putNodes(4, 'a'), putEdges(3, 'a'), putConfig('a')] });
    const project2 = await openCheckpointedProject(d);
    await new Checkpoints(project2, { clock: counterClock() }).checkpoint({ name: 'Good', idempotencyKey: KEY(30) });
    await project2.publish({ parent: project2.current()?.generationUuid ?? null, changes: [putConfig('b')] });
    const memo = new ValidationMemo();
    const e = new RevertEngine(project2, { clock: counterClock(), memo });
    await e.revertToCheckpoint({ name: 'Good', reason: 'one', idempotencyKey: KEY(31) });
    const cold = { hits: memo.hits, misses: memo.misses };
    expect(cold.misses).toBeGreaterThan(0);
    await e.revertToCheckpoint({ name: 'Good', reason: 'two', idempotencyKey: KEY(32) });
    // Second revert to the same participant set: every checkpoint-participant check is a hit; only the new
    // restoration row's checks are re-run (its domain rules and its containing-generation rule).
    expect(memo.hits - cold.hits).toBeGreaterThan(0);
    expect(memo.misses - cold.misses).toBe(2);
  });
});
