import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { tableFromIPC } from 'apache-arrow';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import fixtures from '../../../fixtures/checkpoint-api-v1.json' with { type: 'json' };
import type { Table } from 'apache-arrow';
import { Checkpoints } from '../../../../core/checkpoints/checkpoints';
import { planCreate, planDelete, prepareCreate, prepareDelete } from '../../../../core/checkpoints/registry-core';
import { GRAPH_EDGE, encodeRecords } from '../../../../core/participants/index';
import { Lease, openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import type { ParticipantCatalog } from '../../../../core/project/index';
import { ValidationMemo } from '../../../../core/revert/index';
import { putConfig, putEdges, putNodes, testUuid } from '../../../support/project-fixtures';
import { codeOf, counterClock, generationsOnDisk, workspace } from './checkpoint-support';
import type { Workspace } from './checkpoint-support';
import { withWriterLock } from './registry-support';

const V = fixtures.identity_golden_vector;
const spaces: Workspace[] = [];
async function ws(): Promise<Workspace> {
  const w = await workspace();
  spaces.push(w);
  return w;
}
afterEach(() => {
  for (const w of spaces.splice(0)) w.close();
});

const op = (n: number): string => `018f0f4e-7b8c-7000-8000-${n.toString(16).padStart(12, '0')}`;
const registryText = (w: Workspace): string => fs.readFileSync(path.join(w.dir, 'checkpoints', 'registry.json'), 'utf8');

describe('checkpoints through the public API', () => {
  it('reproduces the create identity vector and shows it in registry.json; delete follows the ADR formula', async () => {
    const w = await ws();
    const gen = await w.publish('a');
    const receipt = await w.cps.checkpoint({ name: V.name, description: V.description, idempotencyKey: V.create_operation_uuid, actorUuid: V.actor_uuid });
    expect(receipt.checkpoint_uuid).toBe(V.checkpoint_uuid);
    expect(receipt).toMatchObject({ operation: 'checkpoint', operation_uuid: V.create_operation_uuid, name: V.name, source_generation_uuid: gen, registry_revision: 1 });
    const text = registryText(w);
    expect(text).toContain(`"checkpoint_uuid":"${V.checkpoint_uuid}","name":"Release 1.0","generation_uuid":"${gen}"`);
    expect(text).toContain(`"create_operation_uuid":"${V.create_operation_uuid}","create_request_sha256":"${V.create_request_sha256}","created_revision":1`);

    // Delete fingerprint built here independently, byte by byte, from the ADR's formula.
    const delOp = op(0xd1);
    await w.cps.deleteCheckpoint({ name: V.name, idempotencyKey: delOp, actorUuid: V.actor_uuid });
    const uuidBytes = (u: string): Buffer => Buffer.from(u.replace(/-/g, ''), 'hex');
    const name = Buffer.from(V.name, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(name.length);
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from(fixtures.checkpoint_identity.delete_request_domain), uuidBytes(delOp), len, name, Buffer.from([1]), uuidBytes(V.actor_uuid)]))
      .digest('hex');
    const doc = JSON.parse(registryText(w)) as { tombstones: Array<Record<string, unknown>> };
    expect(doc.tombstones[0]).toMatchObject({ delete_operation_uuid: delOp, delete_request_sha256: expected, deleted_by: V.actor_uuid, deleted_revision: 2 });
  });

  it('checkpoint_idempotency_matrix', async () => {
    // A composed name ("alph" + U+00E1) and its decomposed spelling ("alpha" + U+0301): other code units, one NFC name.
    const NAME = 'alph\u00e1';
    const DECOMPOSED = 'alpha\u0301';
    expect(DECOMPOSED).not.toBe(NAME);
    const w = await ws();
    await w.publish('a');
    const A = op(1);
    const first = await w.cps.checkpoint({ name: NAME, description: 'd', idempotencyKey: A });
    const rev = (): number => w.cps.registryState().revision;
    const cases: Array<[string, () => Promise<unknown>, string]> = [
      ['create replay, identical bytes', () => w.cps.checkpoint({ name: NAME, description: 'd', idempotencyKey: A }), 'replay'],
      ['create replay, decomposed spelling normalizes to the same bytes', () => w.cps.checkpoint({ name: DECOMPOSED, description: 'd', idempotencyKey: A }), 'replay'],
      ['create, same key, other description', () => w.cps.checkpoint({ name: NAME, description: 'e', idempotencyKey: A }), 'GF_IDEMPOTENCY_CONFLICT'],
      ['create, same key, description absent vs present', () => w.cps.checkpoint({ name: NAME, idempotencyKey: A }), 'GF_IDEMPOTENCY_CONFLICT'],
      ['create, same key, actor added', () => w.cps.checkpoint({ name: NAME, description: 'd', idempotencyKey: A, actorUuid: op(0xaa) }), 'GF_IDEMPOTENCY_CONFLICT'],
      ['create, same key, other name', () => w.cps.checkpoint({ name: 'beta', description: 'd', idempotencyKey: A }), 'GF_IDEMPOTENCY_CONFLICT'],
      ['create, new key, existing name, same generation', () => w.cps.checkpoint({ name: NAME, description: 'd', idempotencyKey: op(2) }), 'GF_CHECKPOINT_EXISTS'],
      ['delete using a create key', () => w.cps.deleteCheckpoint({ name: NAME, idempotencyKey: A }), 'GF_IDEMPOTENCY_CONFLICT'],
      ['delete of an unknown name', () => w.cps.deleteCheckpoint({ name: 'nope', idempotencyKey: op(3) }), 'GF_CHECKPOINT_NOT_FOUND'],
      ['non-canonical key (uppercase)', () => w.cps.checkpoint({ name: 'gamma', idempotencyKey: A.toUpperCase() }), 'GF_VALIDATION'],
      ['arbitrary text key', () => w.cps.checkpoint({ name: 'gamma', idempotencyKey: 'my-key' }), 'GF_VALIDATION'],
      ['empty key', () => w.cps.checkpoint({ name: 'gamma', idempotencyKey: '' }), 'GF_VALIDATION'],
    ];
    for (const [label, run, want] of cases) {
      const before = rev();
      let got: string;
      try {
        const r = await run();
        got = JSON.stringify(r) === JSON.stringify(first) ? 'replay' : 'other receipt';
      } catch (e) {
        got = (e as { code: string }).code;
        if (want !== 'GF_VALIDATION') expect((e as { committed?: boolean }).committed, label).toBe(false);
      }
      expect(got, label).toBe(want);
      expect(rev(), `${label}: no mutation`).toBe(before);
    }

    // Delete, then its exact replay, then the conflicting and the distinct deletes.
    const D = op(10);
    const del = await w.cps.deleteCheckpoint({ name: NAME, idempotencyKey: D });
    expect(del).toMatchObject({ operation: 'delete_checkpoint', operation_uuid: D, checkpoint_uuid: first.checkpoint_uuid, registry_revision: 2 });
    expect(await w.cps.deleteCheckpoint({ name: NAME, idempotencyKey: D })).toEqual(del);
    expect(await codeOf(() => w.cps.deleteCheckpoint({ name: NAME, idempotencyKey: D, actorUuid: op(0xaa) }))).toBe('GF_IDEMPOTENCY_CONFLICT');
    expect(await codeOf(() => w.cps.deleteCheckpoint({ name: NAME, idempotencyKey: op(11) }))).toBe('GF_CHECKPOINT_NOT_FOUND');
    // The create stays replayable while its tombstone is retained; reusing the delete key for a create conflicts.
    expect(await w.cps.checkpoint({ name: NAME, description: 'd', idempotencyKey: A })).toEqual(first);
    expect(await codeOf(() => w.cps.checkpoint({ name: NAME, idempotencyKey: D }))).toBe('GF_IDEMPOTENCY_CONFLICT');
    // The name is free again for a new operation; a new checkpoint UUID results.
    const again = await w.cps.checkpoint({ name: NAME, description: 'd', idempotencyKey: op(12) });
    expect(again.checkpoint_uuid).not.toBe(first.checkpoint_uuid);
    expect(again.registry_revision).toBe(3);
    expect(rev()).toBe(3);
  });

  it('lists active checkpoints sorted by (name, checkpoint_uuid) with keyset pages', async () => {
    const w = await ws();
    await w.publish('a');
    for (const [i, n] of ['delta', 'Alpha', 'charlie', 'bravo'].entries()) await w.cps.checkpoint({ name: n, idempotencyKey: op(100 + i) });
    const p1 = w.cps.listCheckpoints({ limit: 3 });
    expect(p1.rows.map((r) => r.name)).toEqual(['Alpha', 'bravo', 'charlie']);
    const p2 = w.cps.listCheckpoints({ limit: 3, after: p1.next });
    expect(p2.rows.map((r) => r.name)).toEqual(['delta']);
    expect(p2.next).toBeNull();
    expect(w.cps.showCheckpoint('bravo').name).toBe('bravo');
    expect(await codeOf(() => w.cps.showCheckpoint('zulu'))).toBe('GF_CHECKPOINT_NOT_FOUND');
  });

  it('opens only active names: never a generation UUID, the CURRENT selector or a path', async () => {
    const w = await ws();
    const gen = await w.publish('a');
    await w.cps.checkpoint({ name: 'real', idempotencyKey: op(1) });
    expect(await codeOf(() => w.cps.openCheckpoint(gen))).toBe('GF_CHECKPOINT_NOT_FOUND');
    expect(await codeOf(() => w.cps.openCheckpoint('CURRENT'))).toBe('GF_CHECKPOINT_NOT_FOUND');
    expect(await codeOf(() => w.cps.openCheckpoint(path.join(w.dir, 'generations', gen)))).toBe('GF_VALIDATION');
    expect(await codeOf(() => w.cps.openCheckpoint('../generations'))).toBe('GF_VALIDATION');
    expect(Object.getOwnPropertyNames(Object.getPrototypeOf(w.cps)).filter((k) => /generation|path/i.test(k))).toEqual([]);
  });

  it('refuses to checkpoint an uninitialized project, changing nothing', async () => {
    const w = await ws();
    expect(await codeOf(() => w.cps.checkpoint({ name: 'x', idempotencyKey: op(1) }))).toBe('GF_PROJECT_UNINITIALIZED');
    expect(fs.existsSync(path.join(w.dir, 'checkpoints'))).toBe(false);
  });

  it('active_checkpoint_is_retention_root', async () => {
    const w = await ws();
    const g1 = await w.publish('g1');
    await w.cps.checkpoint({ name: 'keep', idempotencyKey: op(1) });
    const g2 = await w.publish('g2');
    const g3 = await w.publish('g3');
    // retainAncestors 0: g2 is neither current, pinned nor leased → removed; g1 survives only by its pin.
    expect(generationsOnDisk(w)).toEqual([g1, g3].sort());
    expect(generationsOnDisk(w)).not.toContain(g2);
    const view = w.cps.openCheckpoint('keep');
    expect(view.generationUuid).toBe(g1);
    view.release();
    await w.cps.deleteCheckpoint({ name: 'keep', idempotencyKey: op(2) });
    // Deletion releases only the root: nothing is removed synchronously …
    expect(generationsOnDisk(w)).toContain(g1);
    // … and the next cleanup may collect it.
    await w.project.cleanup();
    expect(generationsOnDisk(w)).toEqual([g3]);
  });

  it('checkpoint_registry_corruption_fails_closed', async () => {
    const w = await ws();
    const g1 = await w.publish('g1');
    await w.cps.checkpoint({ name: 'keep', idempotencyKey: op(1) });
    await w.publish('g2');
    const g3 = await w.publish('g3');
    const reg = path.join(w.dir, 'checkpoints', 'registry.json');
    const sum = path.join(w.dir, 'checkpoints', 'registry.json.sha256');
    const good = { reg: fs.readFileSync(reg), sum: fs.readFileSync(sum) };
    // Checksum/registry disagreement, and a sample of byte damage to each file.
    const damages: Array<[string, () => void]> = [
      ['checksum of other bytes', () => fs.writeFileSync(sum, `${'0'.repeat(64)}\n`)],
      ['checksum missing', () => fs.rmSync(sum)],
      ['registry missing', () => fs.rmSync(reg)],
      ['registry byte flipped', () => { const b = Buffer.from(good.reg); b[20] = (b[20] as number) ^ 1; fs.writeFileSync(reg, b); }],
      ['registry truncated', () => fs.writeFileSync(reg, good.reg.subarray(0, good.reg.length - 2))],
      ['checksum truncated', () => fs.writeFileSync(sum, good.sum.subarray(0, 64))],
      ['checksum uppercase', () => fs.writeFileSync(sum, good.sum.toString().toUpperCase())],
      ['registry is a symlink', () => { fs.renameSync(reg, `${reg}.real`); fs.symlinkSync(`${reg}.real`, reg); }],
      ['garbage intent', () => fs.writeFileSync(path.join(w.dir, 'checkpoints', 'registry.txn.json'), '{}\n')],
    ];
    for (const [label, damage] of damages) {
      damage();
      for (const [what, call] of [
        ['list', () => w.cps.listCheckpoints()],
        ['open', () => w.cps.openCheckpoint('keep')],
        ['create', () => w.cps.checkpoint({ name: 'other', idempotencyKey: op(2) })],
        ['delete', () => w.cps.deleteCheckpoint({ name: 'keep', idempotencyKey: op(3) })],
        ['pins', () => w.cps.registryState()],
      ] as const) {
        expect(await codeOf(call), `${label}: ${what}`).toBe('GF_CHECKPOINT_REGISTRY_CORRUPT');
      }
      // Cleanup deletes nothing while the registry is corrupt (g1 is pinned only by the registry).
      const report = await w.project.cleanup();
      expect(report.skipped, label).toBe(true);
      expect(report.skippedReason, label).toBe('GF_CHECKPOINT_REGISTRY_CORRUPT');
      expect(generationsOnDisk(w), label).toContain(g1);
      // Restore the good pair for the next case.
      for (const f of fs.readdirSync(path.join(w.dir, 'checkpoints'))) fs.rmSync(path.join(w.dir, 'checkpoints', f));
      fs.writeFileSync(reg, good.reg);
      fs.writeFileSync(sum, good.sum);
      expect(w.cps.listCheckpoints().rows.map((r) => r.name), label).toEqual(['keep']);
    }
    expect(generationsOnDisk(w)).toEqual([g1, g3].sort());
  });

  it('deleted_checkpoint_keeps_open_lease', async () => {
    const w = await ws();
    const g1 = await w.publish('g1', 5);
    await w.cps.checkpoint({ name: 'snap', idempotencyKey: op(1) });
    const view = w.cps.openCheckpoint('snap');
    const before = view.readRecords('graph/node', { limit: 10 });
    await w.cps.deleteCheckpoint({ name: 'snap', idempotencyKey: op(2) });
    await w.publish('g2');
    await w.publish('g3');
    await w.project.cleanup();
    // The view still pins g1 and reads the same bytes; the name no longer opens anything.
    expect(generationsOnDisk(w)).toContain(g1);
    expect(view.readRecords('graph/node', { limit: 10 }).bytes).toEqual(before.bytes);
    expect(tableFromIPC(before.bytes).numRows).toBe(5);
    expect(await codeOf(() => w.cps.openCheckpoint('snap'))).toBe('GF_CHECKPOINT_NOT_FOUND');
    view.release();
    expect(await codeOf(() => view.readRecords('graph/node'))).toBe('GF_PAGE_SNAPSHOT_GONE');
    await w.project.cleanup();
    expect(generationsOnDisk(w)).not.toContain(g1);
  });

  it('checkpoint_reopens_exact_generation', async () => {
    const w = await ws();
    const g1 = await w.publish('g1', 4);
    const receipt = await w.cps.checkpoint({ name: 'Release 1.0', idempotencyKey: op(1) });
    const row = w.cps.showCheckpoint('Release 1.0');
    const first = w.cps.openCheckpoint('Release 1.0');
    const pages = first.readRecords('graph/node', { limit: 100 }).bytes;
    first.release();
    await w.publish('g2', 9);
    // Restart: a new project instance and facade resolve the name to the same generation and bytes.
    const again = await w.reopen();
    const view = again.cps.openCheckpoint('Release 1.0');
    expect(view.checkpointUuid).toBe(receipt.checkpoint_uuid);
    expect(view.generationUuid).toBe(g1);
    expect(view.manifestSha256).toBe(row.generation_manifest_sha256);
    expect(view.registryRevision).toBe(1);
    expect(view.readRecords('graph/node', { limit: 100 }).bytes).toEqual(pages);
    expect(again.project.current()?.generationUuid).not.toBe(g1);
    view.release();
  });

});

describe('checkpoint_validates_complete_selected_generation', () => {
  it('refuses to name a generation that breaks a cross-domain rule: typed error, committed false, no row', async () => {
    const w = await ws();
    await w.project.publish({ parent: null, changes: [putNodes(4, 'a'), putEdges(3, 'a'), putConfig('a')] });
    // A generation written by an engine without the edge → node reference rule: an edge names a node that does not exist.
    const lax: ParticipantCatalog<Table> = { ...registryCatalog, validateParticipant: () => undefined, validateSnapshot: () => undefined };
    const old = await openProject<Table>(w.dir, { catalog: lax });
    const dangling = encodeRecords(GRAPH_EDGE, [{ source_node_uuid: testUuid('a-node-0'), target_node_uuid: testUuid('nowhere'), kind: 'cites', weight: 1, created_at: 1n }]);
    await old.publish({ parent: w.project.current()?.generationUuid ?? null, changes: [{ kind: 'put', capabilityId: 'graph', recordFamilyId: 'edge', bytes: dangling }] });
    const before = w.cps.registryState();
    const cps = new Checkpoints(w.project, { clock: counterClock(), memo: new ValidationMemo() });
    const err = await cps.checkpoint({ name: 'Broken', idempotencyKey: op(1) }).catch((e: unknown) => e as { code?: string; committed?: boolean; details?: Record<string, unknown> });
    expect(err).toMatchObject({ code: 'GF_VALIDATION', committed: false, details: { capability_id: 'graph', record_family_id: 'edge' } });
    expect(cps.registryState()).toEqual(before);
    expect(fs.existsSync(path.join(w.dir, 'checkpoints', 'registry.json'))).toBe(false);
  });

  it('reads Arrow participants by row ranges: a checkpoint decodes no graph participant whole', async () => {
    const w = await ws();
    await w.project.publish({ parent: null, changes: [putNodes(4, 'a'), putEdges(3, 'a'), putConfig('a')] });
    const decoded = vi.spyOn(Lease.prototype, 'readTable');
    try {
      const memo = new ValidationMemo();
      const cps = new Checkpoints(w.project, { clock: counterClock(), memo });
      await cps.checkpoint({ name: 'ranged', idempotencyKey: op(1) });
      expect(memo.misses).toBeGreaterThan(0);
      expect(decoded.mock.calls.map(([key]) => key).filter((key) => key.startsWith('graph/'))).toEqual([]);
    } finally {
      decoded.mockRestore();
    }
  });

  it('uses the content-keyed memo: a second name for the same generation re-runs no validator', async () => {
    const w = await ws();
    await w.project.publish({ parent: null, changes: [putNodes(4, 'a'), putEdges(3, 'a'), putConfig('a')] });
    const memo = new ValidationMemo();
    const cps = new Checkpoints(w.project, { clock: counterClock(), memo });
    await cps.checkpoint({ name: 'one', idempotencyKey: op(1) });
    expect(memo.misses).toBeGreaterThan(0);
    const cold = { hits: memo.hits, misses: memo.misses };
    // Without the durable validation record (its own tests: validation-record.int.test.ts), the in-process memo answers.
    fs.rmSync(path.join(w.dir, 'cache', 'validation'), { recursive: true });
    await cps.checkpoint({ name: 'two', idempotencyKey: op(2) });
    expect(memo.misses).toBe(cold.misses);
    expect(memo.hits).toBeGreaterThan(cold.hits);
  });
});

describe('open_checkpoint_restarts_when_the_row_changes', () => {
  it('a name re-pointed between the resolve and the re-read is resolved again: the view is the new row, never the stale one', async () => {
    const w = await ws();
    const g1 = await w.publish('g1');
    await w.cps.checkpoint({ name: 'moving', idempotencyKey: op(1) });
    const g2 = await w.publish('g2');
    const cur = w.project.current();
    const store = w.cps.store;
    const realRead = store.read.bind(store);
    let reads = 0;
    // A concurrent writer re-points the name right after the first resolve (delete + create in two registry replacements).
    (store as unknown as { read: typeof store.read }).read = () => {
      const state = realRead();
      reads++;
      if (reads === 1) {
        withWriterLock(w.dir, (proof) => store.mutate(proof, (doc) => planDelete(doc, prepareDelete({ name: 'moving', idempotencyKey: op(2) }), 1_760_000_000_000_001)));
        withWriterLock(w.dir, (proof) => store.mutate(proof, (doc) => planCreate(doc, prepareCreate({ name: 'moving', idempotencyKey: op(3) }), { generationUuid: cur?.generationUuid ?? '', manifestSha256: cur?.manifestSha256 ?? '' }, 1_760_000_000_000_002)));
      }
      return state;
    };
    const view = w.cps.openCheckpoint('moving');
    try {
      expect(view.generationUuid).toBe(g2);
      expect(view.generationUuid).not.toBe(g1);
      // First attempt: resolve + re-read (mismatch) → restart: resolve + re-read (match).
      expect(reads).toBe(4);
      expect(view.checkpointUuid).toBe(w.cps.showCheckpoint('moving').checkpoint_uuid);
    } finally {
      view.release();
    }
  });
});

