import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Table } from 'apache-arrow';
import { Checkpoints } from '../../../../core/checkpoints/checkpoints';
import { ValidationMemo } from '../../../../core/checkpoints/snapshot-validation';
import {
  VALIDATOR_VERSION,
  adoptValidationRecord,
  encodeValidationRecord,
  readValidationRecord,
  validationRecordPath,
} from '../../../../core/checkpoints/validation-record';
import { GRAPH_EDGE, encodeRecords, registryCatalog } from '../../../../core/participants/index';
import { objectPlace, openProject } from '../../../../core/project/index';
import type { Lease, ParticipantCatalog } from '../../../../core/project/index';
import { RevertEngine } from '../../../../core/revert/index';
import { putConfig, putEdges, putNodes, testUuid } from '../../../support/project-fixtures';
import { counterClock, workspace } from './checkpoint-support';
import type { Workspace } from './checkpoint-support';

const spaces: Workspace[] = [];
async function ws(): Promise<Workspace> {
  const w = await workspace();
  spaces.push(w);
  return w;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterEach(() => {
  vi.useRealTimers();
  for (const w of spaces.splice(0)) w.close();
});

const op = (n: number): string => `018f0f4e-7b8c-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** Moves the wall clock past the racy-clean window, so verified identities may be remembered (and recorded). */
function ageFiles(): void {
  vi.setSystemTime(Date.now() + 5_000);
}

/** What a fresh process has: no verified-object memo, an empty validation memo. */
function freshProcess(w: Workspace): { cps: Checkpoints; memo: ValidationMemo } {
  w.project.caches.verifiedObjects.clear();
  const memo = new ValidationMemo();
  return { cps: new Checkpoints(w.project, { clock: counterClock(1_780_000_000_000_000), memo }), memo };
}

function currentGeneration(w: Workspace): { lease: Lease<Table>; generationUuid: string; manifestSha256: string } {
  const lease = w.project.lease();
  return { lease, generationUuid: lease.generationUuid, manifestSha256: lease.manifestSha256 };
}

async function publishedGraph(w: Workspace): Promise<void> {
  await w.project.publish({ parent: null, changes: [putNodes(4, 'a'), putEdges(3, 'a'), putConfig('a')] });
  ageFiles();
}

/** Same length, other bytes: the object no longer matches its name (its ctime moves). */
function tamperObject(root: string, sha: string): void {
  const file = objectPlace(root, sha).abs;
  const bytes = fs.readFileSync(file);
  bytes[bytes.length - 9] = (bytes[bytes.length - 9] as number) ^ 0xff;
  fs.chmodSync(file, 0o644);
  fs.writeFileSync(file, bytes);
}

describe('validation record (a generation validated once)', () => {
  it('the first create writes a checksummed record keyed by manifest digest and validator version; a fresh process then re-runs no validator', async () => {
    const w = await ws();
    await publishedGraph(w);
    const first = freshProcess(w);
    await first.cps.checkpoint({ name: 'one', idempotencyKey: op(1) });
    expect(first.memo.misses).toBeGreaterThan(0);
    const g = currentGeneration(w);
    try {
      const record = readValidationRecord(w.dir, g);
      if (typeof record === 'string') throw new Error(`no record: ${record}`);
      const text = fs.readFileSync(validationRecordPath(w.dir, g.manifestSha256), 'utf8');
      expect(text).toContain(`"validator_version":"${VALIDATOR_VERSION}"`);
      expect(text).toContain(`"manifest_sha256":"${g.manifestSha256}"`);
      // Every object was verified old enough for the racy-clean rule: each identity is recorded.
      expect([...record.objects.keys()].sort()).toEqual([...new Set(g.lease.manifest.participants.map((p) => p.contentSha256))].sort());

      const second = freshProcess(w);
      await second.cps.checkpoint({ name: 'two', idempotencyKey: op(2) });
      expect(second.memo.misses).toBe(0);
      expect(second.memo.size).toBeGreaterThan(0);
    } finally {
      g.lease.release();
    }
  });

  it('adopting a sound record takes over the recorded object identities (the fast path across processes)', async () => {
    const w = await ws();
    await publishedGraph(w);
    await freshProcess(w).cps.checkpoint({ name: 'one', idempotencyKey: op(1) });
    const g = currentGeneration(w);
    try {
      w.project.caches.verifiedObjects.clear();
      const shas = g.lease.manifest.participants.map((p) => p.contentSha256);
      expect(shas.some((s) => w.project.caches.verifiedObjects.has(s))).toBe(false);
      const used = adoptValidationRecord(w.dir, { ...g, participants: g.lease.manifest.participants }, new ValidationMemo(), w.project.caches.verifiedObjects);
      expect(typeof used).toBe('object');
      expect(shas.every((s) => w.project.caches.verifiedObjects.has(s))).toBe(true);
    } finally {
      g.lease.release();
    }
  });

  it('a tampered object is refused even with a sound record (GF_PROJECT_CORRUPT, committed false, no row)', async () => {
    const w = await ws();
    await publishedGraph(w);
    await freshProcess(w).cps.checkpoint({ name: 'one', idempotencyKey: op(1) });
    const g = currentGeneration(w);
    const node = g.lease.manifest.participants.find((p) => p.recordFamilyId === 'node');
    g.lease.release();
    if (node === undefined) throw new Error('no node participant');
    tamperObject(w.dir, node.contentSha256);
    ageFiles();
    const before = w.cps.registryState();
    const fresh = freshProcess(w);
    const err = await fresh.cps.checkpoint({ name: 'two', idempotencyKey: op(2) }).catch((e: unknown) => e as { code?: string; committed?: boolean });
    expect(err).toMatchObject({ code: 'GF_PROJECT_CORRUPT', committed: false });
    expect(w.cps.registryState()).toEqual(before);
  });

  const damages: readonly { readonly name: string; readonly miss: string; damage(file: string, other: string): void }[] = [
    { name: 'torn (truncated mid-write)', miss: 'corrupt', damage: (f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2)) },
    {
      name: 'edited (one byte of the body)',
      miss: 'corrupt',
      damage: (f) => {
        const b = fs.readFileSync(f);
        const at = b.indexOf('"objects"') + 3;
        b[at] = (b[at] as number) ^ 0x01;
        fs.writeFileSync(f, b);
      },
    },
    {
      name: 'from another validator version (checksum recomputed)',
      miss: 'other-validator',
      damage: (f) => {
        const body = fs.readFileSync(f, 'utf8').split('\n')[0] as string;
        const other = `${body.replace(VALIDATOR_VERSION, '0'.repeat(64))}\n`;
        fs.writeFileSync(f, `${other}${createHashHex(other)}\n`);
      },
    },
    { name: 'the record of another generation under this name', miss: 'other-generation', damage: (f, other) => fs.copyFileSync(other, f) },
    { name: 'a directory in its place', miss: 'corrupt', damage: (f) => (fs.rmSync(f), fs.mkdirSync(f)) },
  ];

  for (const d of damages) {
    it(`a record ${d.name} is detected, never trusted, and rebuilt by the next complete validation`, async () => {
      const w = await ws();
      await publishedGraph(w);
      await freshProcess(w).cps.checkpoint({ name: 'first', idempotencyKey: op(1) });
      const a = currentGeneration(w);
      a.lease.release();
      await w.project.publish({ parent: a.generationUuid, changes: [putConfig('b')] });
      ageFiles();
      await freshProcess(w).cps.checkpoint({ name: 'second', idempotencyKey: op(2) });
      const b = currentGeneration(w);
      b.lease.release();
      const file = validationRecordPath(w.dir, b.manifestSha256);
      const sound = fs.readFileSync(file);
      d.damage(file, validationRecordPath(w.dir, a.manifestSha256));
      expect(readValidationRecord(w.dir, b)).toBe(d.miss);
      const fresh = freshProcess(w);
      await fresh.cps.checkpoint({ name: 'third', idempotencyKey: op(3) });
      expect(fresh.memo.misses).toBeGreaterThan(0);
      if (fs.statSync(file).isFile()) expect(fs.readFileSync(file).equals(sound)).toBe(true);
    });
  }

  it('a generation that breaks a rule is refused whatever record lies next to it, unless that record is sound for it', async () => {
    const w = await ws();
    await w.project.publish({ parent: null, changes: [putNodes(4, 'a'), putEdges(3, 'a'), putConfig('a')] });
    const lax: ParticipantCatalog<Table> = { ...registryCatalog, validateParticipant: () => undefined, validateSnapshot: () => undefined };
    const old = await openProject<Table>(w.dir, { catalog: lax });
    const dangling = encodeRecords(GRAPH_EDGE, [{ source_node_uuid: testUuid('a-node-0'), target_node_uuid: testUuid('nowhere'), kind: 'cites', weight: 1, created_at: 1n }]);
    await old.publish({ parent: w.project.current()?.generationUuid ?? null, changes: [{ kind: 'put', capabilityId: 'graph', recordFamilyId: 'edge', bytes: dangling }] });
    ageFiles();
    const g = currentGeneration(w);
    g.lease.release();
    // What a validator of another version would have written for it (checksum right, version not ours).
    const foreign = `${new TextDecoder().decode(encodeValidationRecord({ manifestSha256: g.manifestSha256, generationUuid: g.generationUuid, objects: new Map() })).split('\n')[0]?.replace(VALIDATOR_VERSION, 'f'.repeat(64)) ?? ''}\n`;
    const file = validationRecordPath(w.dir, g.manifestSha256);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${foreign}${createHashHex(foreign)}\n`);
    const fresh = freshProcess(w);
    const err = await fresh.cps.checkpoint({ name: 'Broken', idempotencyKey: op(1) }).catch((e: unknown) => e as { code?: string; committed?: boolean });
    expect(err).toMatchObject({ code: 'GF_VALIDATION', committed: false });
    expect(readValidationRecord(w.dir, g)).toBe('other-validator');
  });
});

describe('validation record and revert', () => {
  it('a revert adopts the checkpoint generation record and writes one for the restored generation: the next create re-runs no validator', async () => {
    const w = await ws();
    await publishedGraph(w);
    await freshProcess(w).cps.checkpoint({ name: 'base', idempotencyKey: op(1) });
    await w.project.publish({ parent: w.project.current()?.generationUuid ?? null, changes: [putNodes(6, 'b'), putEdges(3, 'b')] });
    ageFiles();
    w.project.caches.verifiedObjects.clear();
    const memo = new ValidationMemo();
    await new RevertEngine(w.project, { clock: counterClock(1_790_000_000_000_000), memo }).revertToCheckpoint({ name: 'base', reason: 'record test', idempotencyKey: op(2) });
    const restored = currentGeneration(w);
    restored.lease.release();
    expect(typeof readValidationRecord(w.dir, restored)).toBe('object');
    ageFiles();
    const fresh = freshProcess(w);
    await fresh.cps.checkpoint({ name: 'after revert', idempotencyKey: op(3) });
    expect(fresh.memo.misses).toBe(0);
  });

  it('a revert to a checkpoint whose object was tampered with is refused with a sound record: CURRENT unchanged', async () => {
    const w = await ws();
    await publishedGraph(w);
    await freshProcess(w).cps.checkpoint({ name: 'base', idempotencyKey: op(1) });
    const base = currentGeneration(w);
    const node = base.lease.manifest.participants.find((p) => p.recordFamilyId === 'node');
    base.lease.release();
    if (node === undefined) throw new Error('no node participant');
    await w.project.publish({ parent: base.generationUuid, changes: [putNodes(6, 'b'), putEdges(3, 'b')] });
    tamperObject(w.dir, node.contentSha256);
    ageFiles();
    const before = w.project.current()?.generationUuid;
    w.project.caches.verifiedObjects.clear();
    const err = await new RevertEngine(w.project, { clock: counterClock(1_790_000_000_000_000), memo: new ValidationMemo() })
      .revertToCheckpoint({ name: 'base', reason: 'record test', idempotencyKey: op(2) })
      .catch((e: unknown) => e as { code?: string; committed?: boolean });
    expect(err).toMatchObject({ code: 'GF_PROJECT_CORRUPT', committed: false });
    expect(w.project.current()?.generationUuid).toBe(before);
  });
});

function createHashHex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
