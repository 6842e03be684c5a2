import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GfError } from '../../../../core/errors';
import { FAILPOINT_NAMES, FORMAT_BYTES, armFailpointForTesting, committedAt, createProject, openProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import type { Project, ProjectOptions } from '../../../../core/project/index';
import { putConfig, putEdges, putNodes, testUuid } from '../../../support/project-fixtures';
import { LATER_HISTORY, scenarioRequest } from '../../../support/project-scenarios';
import { observe, treeDigest } from '../../../support/project-state';

let tmp: string;
let n = 0;
const fresh = (): string => path.join(tmp, `p${n++}`);

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-project-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function caught(f: () => unknown): Promise<GfError> {
  try {
    await f();
  } catch (e) {
    if (e instanceof GfError) return e;
    throw e;
  }
  throw new Error('expected a GfError');
}

async function withHistory(opts: Partial<ProjectOptions<Table>> = {}): Promise<{ dir: string; p: Project<Table> }> {
  const dir = fresh();
  const p = await createProject<Table>(dir, { catalog: registryCatalog, ...opts });
  for (const step of LATER_HISTORY) await p.publish(step(p.current()?.generationUuid ?? null));
  return { dir, p };
}

describe('container', () => {
  it('creates an uninitialized project with the exact FORMAT bytes', async () => {
    const dir = fresh();
    const p = await createProject(dir);
    expect(p.state()).toBe('uninitialized');
    expect(fs.readFileSync(path.join(dir, 'FORMAT'))).toEqual(Buffer.from('graphforge-project/v1\n'));
    expect(Buffer.from(FORMAT_BYTES).toString()).toBe('graphforge-project/v1\n');
    expect((await caught(() => p.lease())).code).toBe('GF_PROJECT_UNINITIALIZED');
    expect(fs.readdirSync(path.dirname(dir)).filter((f) => f.includes('gf-create'))).toEqual([]);
  });

  it('refuses a non-empty foreign directory before touching anything', async () => {
    const dir = fresh();
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    const before = treeDigest(dir);
    expect((await caught(() => createProject(dir))).code).toBe('GF_UNSUPPORTED_PROJECT_FORMAT');
    expect((await caught(() => openProject(dir))).code).toBe('GF_NO_WORKSPACE');
    fs.writeFileSync(path.join(dir, 'FORMAT'), 'graphforge-project/v2\n');
    expect((await caught(() => openProject(dir))).code).toBe('GF_UNSUPPORTED_PROJECT_FORMAT');
    fs.rmSync(path.join(dir, 'FORMAT'));
    expect(treeDigest(dir)).toEqual(before);
  });

  it('creates into an existing empty directory and refuses to create over a project', async () => {
    const dir = fresh();
    fs.mkdirSync(dir);
    await createProject(dir);
    const e = await caught(() => createProject(dir));
    expect(e.code).toBe('GF_VALIDATION');
    expect(e.committed).toBe(false);
  });
});

describe('publication', () => {
  it('writes CURRENT and the manifest byte for byte as specified', async () => {
    const dir = fresh();
    const p = await createProject<Table>(dir, { catalog: registryCatalog });
    const r = await p.publish({ parent: null, changes: [putNodes(3), putEdges(2)], transactionUuid: testUuid('t1') });
    const current = fs.readFileSync(path.join(dir, 'CURRENT'), 'utf8');
    expect(current).toBe(
      `{"format":"graphforge-project","format_version":1,"generation_uuid":"${r.generationUuid}","generation_manifest_sha256":"${r.manifestSha256}"}\n`,
    );
    const manifest = fs.readFileSync(path.join(dir, 'generations', r.generationUuid, 'manifest.json'));
    expect(manifest.at(-1)).toBe(0x0a);
    const doc = JSON.parse(manifest.toString()) as { participants: Record<string, unknown>[] };
    expect(Object.keys(doc)).toEqual(['format', 'format_version', 'generation_uuid', 'parent_generation_uuid', 'transaction_uuid', 'capabilities', 'participants']);
    expect(Object.keys(doc.participants[0] ?? {})).toEqual([
      'capability_id',
      'capability_version',
      'record_family_id',
      'record_version',
      'relative_path',
      'encoding',
      'byte_length',
      'row_count',
      'schema_fingerprint',
      'content_sha256',
    ]);
    // The mandatory workspace@1 documents are in the first generation too (explicit none defaults).
    expect(doc.participants.map((x) => x.relative_path)).toEqual(['graph/edge.arrow', 'graph/node.arrow', 'workspace/configuration.json', 'workspace/ontology.json']);
    for (const x of doc.participants) {
      const sha = String(x.content_sha256);
      expect(fs.statSync(path.join(dir, 'objects', 'sha256', sha.slice(0, 2), sha.slice(2))).size).toBe(x.byte_length);
    }
    const lease = p.lease();
    expect(lease.manifestSha256).toBe(r.manifestSha256);
    expect(lease.readTable('graph/node')?.numRows).toBe(3);
    lease.release();
  });

  it('a one-participant change writes that participant and a manifest, nothing else', async () => {
    const written: [string, number][] = [];
    const { dir, p } = await withHistory({ meter: { wrote: (rel, bytes) => written.push([rel, bytes]) }, retainAncestors: 10 });
    const change = putConfig('one');
    if (change.kind !== 'put') throw new Error('a put');
    const before = treeDigest(dir);
    written.length = 0;
    const r = await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [change] });
    const after = treeDigest(dir);
    const differs = Object.keys(after).filter((k) => before[k] !== after[k]).filter((k) => !k.endsWith('/'));
    const obj = differs.filter((k) => k.startsWith('objects/'));
    expect(obj).toHaveLength(1);
    expect(fs.statSync(path.join(dir, obj[0] as string)).size).toBe(change.bytes.length);
    expect(differs.filter((k) => !k.startsWith('objects/')).sort()).toEqual(
      ['CURRENT', `generations/${r.generationUuid}/lease.lock`, `generations/${r.generationUuid}/manifest.json`, 'history/lineage.jsonl', `transactions/${r.transactionUuid}.json`].sort(),
    );
    expect(Object.keys(before).filter((k) => !(k in after))).toEqual([]);
    // Bytes the engine wrote: the participant once, one manifest, CURRENT, one lineage line and five small journal states.
    const objectBytes = written.filter(([rel]) => rel.startsWith('objects/')).reduce((s, [, b]) => s + b, 0);
    expect(objectBytes).toBe(change.bytes.length);
    expect(written.map(([rel]) => rel.split('/')[0]).sort()).toEqual(
      ['CURRENT', 'generations', 'history', 'objects', 'transactions', 'transactions', 'transactions', 'transactions', 'transactions'].sort(),
    );
    const total = written.reduce((s, [, b]) => s + b, 0);
    expect(total).toBeLessThan(objectBytes + 8192);
    // The lineage line is one fixed-size record per publication (bounded, independent of the data's size).
    const lineageBytes = written.filter(([rel]) => rel === 'history/lineage.jsonl').reduce((s, [, b]) => s + b, 0);
    expect(lineageBytes).toBeGreaterThan(0);
    expect(lineageBytes).toBeLessThan(1024);
  });

  it('a dangling reference fails before anything is durable and the parent stays authoritative', async () => {
    const { dir, p } = await withHistory();
    const before = await observe(dir);
    const e = await caught(() => p.publish({ parent: before.generationUuid, changes: [putEdges(10, 'a')] }));
    expect(e.code).toBe('GF_VALIDATION');
    expect(e.committed).toBe(false);
    expect(e.details.rule).toBe('graph.edge.endpoint_exists');
    expect(await observe(dir)).toEqual(before);
    expect(p.listGenerations().filter((g) => g.status === 'incomplete')).toEqual([]);
  });

  it('removes a family, reuses an existing object without copying, and refuses a stale parent', async () => {
    const { p } = await withHistory();
    const l0 = p.lease();
    const parent = l0.generationUuid;
    const node = l0.participant('graph/node');
    l0.release();
    if (node === undefined) throw new Error('fixture has nodes');
    const r = await p.publish({ parent, changes: [{ kind: 'remove', capabilityId: 'graph', recordFamilyId: 'edge' }, { kind: 'reuse', participant: node }] });
    const l1 = p.lease();
    expect(l1.families()).toEqual(['graph/node', 'workspace/configuration', 'workspace/ontology']);
    expect(l1.participant('graph/node')?.contentSha256).toBe(node.contentSha256);
    l1.release();
    const stale = await caught(() => p.publish({ parent, changes: [putConfig('stale')] }));
    expect(stale.code).toBe('GF_TRANSACTION_FAILED');
    expect(stale.committed).toBe(false);
    expect(p.current()?.generationUuid).toBe(r.generationUuid);
    const missing = await caught(() => p.publish({ parent: r.generationUuid, changes: [{ kind: 'remove', capabilityId: 'graph', recordFamilyId: 'edge' }] }));
    expect(missing.code).toBe('GF_VALIDATION');
    const unknown = await caught(() =>
      p.publish({ parent: r.generationUuid, changes: [{ kind: 'put', capabilityId: 'graph', recordFamilyId: 'nope', bytes: new Uint8Array(1) }] }),
    );
    expect(unknown.code).toBe('GF_VALIDATION');
    const garbage = await caught(() =>
      p.publish({ parent: r.generationUuid, changes: [{ kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes: new Uint8Array(64) }] }),
    );
    expect(garbage.code).toBe('GF_VALIDATION');
    expect(garbage.committed).toBe(false);
  });

  it('records the journal extension durably and lists history with parents', async () => {
    const { p } = await withHistory();
    const txn = testUuid('ext');
    const r = await p.publish({ parent: p.current()?.generationUuid ?? null, changes: [putConfig('e')], transactionUuid: txn, journalExtension: { revert: { reason_digest: 'x', n: 1 } } });
    const j = await p.withWriter((w) => w.readJournal(txn));
    expect(j?.state).toBe('PUBLISHED');
    expect(j?.extension).toEqual({ revert: { n: 1, reason_digest: 'x' } });
    const h = p.history();
    expect(h[0]?.generationUuid).toBe(r.generationUuid);
    expect(h[0]?.isCurrent).toBe(true);
    expect(h[1]?.generationUuid).toBe(r.parentGenerationUuid);
    expect(h.length).toBe(3); // current + 2 retained ancestors
    const again = await caught(() => p.publish({ parent: r.generationUuid, changes: [], transactionUuid: txn }));
    expect(again.code).toBe('GF_IDEMPOTENCY_CONFLICT');
  });
});

describe('.error failpoints (in process)', () => {
  it('every failpoint reports the stated committed value and leaves exactly parent or new generation', { timeout: 240_000 }, async () => {
    const { dir: fixture } = await withHistory();
    const before = await observe(fixture);
    const ref = fresh();
    fs.cpSync(fixture, ref, { recursive: true });
    const rp = await openProject<Table>(ref, { catalog: registryCatalog });
    await rp.publish(scenarioRequest('later', before.generationUuid));
    const after = await observe(ref);
    for (const name of FAILPOINT_NAMES) {
      if (name === 'project.after_format_fsync' || name === 'project.after_container_dir_fsync') {
        const dir = fresh();
        armFailpointForTesting(`${name}.error`);
        const e = await caught(() => createProject(dir));
        expect({ name, code: e.code, committed: e.committed }).toEqual({ name, code: 'GF_IO', committed: false });
        expect(fs.existsSync(dir)).toBe(false);
        continue;
      }
      const dir = fresh();
      fs.cpSync(fixture, dir, { recursive: true });
      const p = await openProject<Table>(dir, { catalog: registryCatalog });
      armFailpointForTesting(`${name}.error`);
      const e = await caught(() => p.publish(scenarioRequest('later', before.generationUuid)));
      armFailpointForTesting(undefined);
      expect({ name, code: e.code, committed: e.committed }).toEqual({ name, code: 'GF_IO', committed: committedAt(name) });
      expect({ name, state: await observe(dir) }).toEqual({ name, state: committedAt(name) ? after : before });
    }
  });
});

describe('corruption is refused, never a fallback', () => {
  it('malformed CURRENT', async () => {
    const { dir, p } = await withHistory();
    const good = fs.readFileSync(path.join(dir, 'CURRENT'));
    for (const bad of [good.subarray(0, good.length - 1), Buffer.from(good.toString().replace('{"format"', '{ "format"')), Buffer.from('')]) {
      fs.writeFileSync(path.join(dir, 'CURRENT'), bad);
      expect((await caught(() => openProject(dir))).code).toBe('GF_PROJECT_CORRUPT');
      expect((await caught(() => p.lease())).code).toBe('GF_PROJECT_CORRUPT');
      expect((await caught(() => p.publish({ parent: null, changes: [] }))).code).toBe('GF_PROJECT_CORRUPT');
    }
  });

  it('manifest digest mismatch, missing and truncated objects', async () => {
    const { dir, p } = await withHistory();
    const lease = p.lease();
    const entry = lease.participant('graph/node');
    lease.release();
    if (entry === undefined) throw new Error('fixture has nodes');
    const obj = path.join(dir, 'objects', 'sha256', entry.contentSha256.slice(0, 2), entry.contentSha256.slice(2));
    const bytes = fs.readFileSync(obj);
    fs.writeFileSync(obj, bytes.subarray(0, bytes.length - 1));
    const l1 = p.lease();
    expect((await caught(() => l1.readParticipantBytes(entry))).code).toBe('GF_PROJECT_CORRUPT');
    fs.rmSync(obj);
    expect((await caught(() => l1.readTable('graph/node'))).code).toBe('GF_PROJECT_CORRUPT');
    l1.release();
    fs.writeFileSync(obj, bytes);
    const gen = p.current()?.generationUuid ?? '';
    const mf = path.join(dir, 'generations', gen, 'manifest.json');
    const m = fs.readFileSync(mf);
    fs.writeFileSync(mf, Buffer.from(m.toString().replace('"row_count":3', '"row_count":4')));
    expect((await caught(() => p.lease())).code).toBe('GF_PROJECT_CORRUPT');
    expect((await caught(() => openProject(dir))).code).toBe('GF_PROJECT_CORRUPT');
    fs.rmSync(path.join(dir, 'generations', gen), { recursive: true });
    expect((await caught(() => p.lease())).code).toBe('GF_PROJECT_CORRUPT');
  });

  it('a symlink at any machine-owned path is refused and its target is unchanged', async () => {
    const { dir, p } = await withHistory();
    const gen = p.current()?.generationUuid ?? '';
    const target = path.join(tmp, `target-${n++}`);
    const targets = ['CURRENT', `generations/${gen}/manifest.json`, `generations/${gen}/lease.lock`, 'locks/writer.lock', 'FORMAT'];
    for (const rel of targets) {
      const abs = path.join(dir, rel);
      fs.copyFileSync(abs, target);
      const saved = fs.readFileSync(target);
      fs.renameSync(abs, `${abs}.saved`);
      fs.symlinkSync(target, abs);
      const e = await caught(async () => {
        await openProject(dir, { catalog: registryCatalog });
        const q = await openProject(dir, { catalog: registryCatalog, recover: false });
        await q.publish({ parent: gen, changes: [putConfig('sym')] });
      });
      expect({ rel, code: e.code }).toEqual({ rel, code: 'GF_PROJECT_CORRUPT' });
      expect(fs.readFileSync(target)).toEqual(saved);
      fs.rmSync(abs);
      fs.renameSync(`${abs}.saved`, abs);
    }
    // A symlinked object: reading it is refused.
    const l = p.lease();
    const entry = l.participant('graph/node');
    if (entry === undefined) throw new Error('fixture has nodes');
    const obj = path.join(dir, 'objects', 'sha256', entry.contentSha256.slice(0, 2), entry.contentSha256.slice(2));
    fs.copyFileSync(obj, target);
    fs.renameSync(obj, `${obj}.saved`);
    fs.symlinkSync(target, obj);
    expect((await caught(() => l.readParticipantBytes(entry))).code).toBe('GF_PROJECT_CORRUPT');
    l.release();
    fs.rmSync(obj);
    fs.renameSync(`${obj}.saved`, obj);
    expect((await observe(dir)).generationUuid).toBe(gen);
  });
});

describe('retention', () => {
  it('keeps current + N ancestors, leased and pinned generations with their objects; removes the rest', async () => {
    const { dir, p } = await withHistory();
    const gens = p.history().map((g) => g.generationUuid);
    const all = p.listGenerations().map((g) => g.generationUuid);
    expect(all.length).toBe(3);
    const leased = p.lease(); // pins the current generation forever (for this test)
    const pinnedGen = gens[2] as string;
    const q = await openProject<Table>(dir, { catalog: registryCatalog, pins: { pinnedGenerations: () => new Set([pinnedGen]) } });
    for (let i = 0; i < 4; i++) await q.publish({ parent: q.current()?.generationUuid ?? null, changes: [putConfig(`r${i}`)] });
    const kept = new Set(q.listGenerations().map((g) => g.generationUuid));
    expect(kept.has(leased.generationUuid)).toBe(true);
    expect(kept.has(pinnedGen)).toBe(true);
    expect(kept.size).toBe(5); // current + 2 ancestors + leased + pinned
    leased.verifyParticipants();
    expect(leased.readTable('graph/node')?.numRows).toBe(3);
    // Every object referenced by a kept manifest exists; nothing else does.
    const referenced = new Set<string>();
    for (const g of q.listGenerations()) {
      const m = JSON.parse(fs.readFileSync(path.join(dir, 'generations', g.generationUuid, 'manifest.json'), 'utf8')) as { participants: { content_sha256: string }[] };
      for (const x of m.participants) referenced.add(x.content_sha256);
    }
    const onDisk = new Set<string>();
    for (const fan of fs.readdirSync(path.join(dir, 'objects', 'sha256'))) {
      for (const o of fs.readdirSync(path.join(dir, 'objects', 'sha256', fan))) onDisk.add(fan + o);
    }
    expect(onDisk).toEqual(referenced);
    // Finished journals of removed generations are pruned: one journal per kept generation.
    expect(fs.readdirSync(path.join(dir, 'transactions')).length).toBe(kept.size);
    leased.release();
    const report = await q.cleanup();
    expect(report.removedGenerations).toContain(gens[0]);
  });

  it('a corrupt checkpoint registry makes cleanup delete nothing; unknown entries are reported, not touched', async () => {
    const { dir } = await withHistory();
    const corruptPins = {
      pinnedGenerations: (): ReadonlySet<string> => {
        throw new GfError('GF_CHECKPOINT_REGISTRY_CORRUPT', 'registry checksum mismatch');
      },
    };
    const p = await openProject<Table>(dir, { catalog: registryCatalog, pins: corruptPins, retainAncestors: 0 });
    fs.mkdirSync(path.join(dir, 'generations', 'not-a-generation'));
    const outside = path.join(tmp, `outside-${n++}`);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'keep.txt'), 'keep');
    fs.symlinkSync(outside, path.join(dir, 'generations', testUuid('link')));
    const before = treeDigest(dir);
    const r = await p.cleanup();
    expect(r.skipped).toBe(true);
    expect(r.skippedReason).toBe('GF_CHECKPOINT_REGISTRY_CORRUPT');
    expect(treeDigest(dir)).toEqual(before);
    const q = await openProject<Table>(dir, { catalog: registryCatalog, retainAncestors: 0 });
    const r2 = await q.cleanup();
    expect(r2.unknown).toEqual(expect.arrayContaining(['generations/not-a-generation', `generations/${testUuid('link')}`]));
    expect(r2.removedGenerations.length).toBe(2);
    expect(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('keep');
    expect(fs.lstatSync(path.join(dir, 'generations', testUuid('link'))).isSymbolicLink()).toBe(true);
  });
});
