// checkpoints.record_change through a real facade: both versions of one record
// between a checkpoint and CURRENT (no checkpoint names CURRENT), the fields
// that differ, values as JSON (timestamps as decimal text), and the refusals.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordChangeEntry } from '../../../../core/contract/operations';
import { createFacade, type Facade } from '../../../../core/api/facade';
import type { Envelope } from '../../../../core/contract/wire';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import { GRAPH_NODE, encodeRecords } from '../../../../core/participants/index';
import { createProject } from '../../../../core/project/index';
import { registryCatalog } from '../../../../core/participants/index';
import { testUuid } from '../../../support/project-fixtures';

const T0 = 1_700_000_000_000_000n;
const node = (i: number, edited: boolean) => ({
  node_uuid: testUuid(`record-change-node-${i}`),
  class_id: 'paper',
  label: edited ? `Paper ${i} (edited)` : `Paper ${i}`,
  properties: null,
  created_at: T0 + BigInt(i),
  updated_at: edited ? T0 + BigInt(i) + 5n : null,
});

let root: string;
let facade: Facade;
let project: string;
const call = (op: string, req: object): Promise<Envelope> => facade.dispatcher.dispatch(op, req);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-record-change-'));
  const dir = join(root, 'ws');
  await createProject(dir, { catalog: registryCatalog });
  const p = await openCheckpointedProject(dir);
  const put = (bytes: Uint8Array) => ({ kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes }) as const;
  const g1 = await p.publish({ parent: null, changes: [put(encodeRecords(GRAPH_NODE, [0, 1, 2, 3].map((i) => node(i, false))))] });
  await new Checkpoints(p, { clock: () => 1_767_225_600_000_000 }).checkpoint({ name: 'before', idempotencyKey: testUuid('record-change-before') });
  // CURRENT: node 1 edited, node 2 removed, node 4 added; no checkpoint names it.
  await p.publish({ parent: g1.generationUuid, changes: [put(encodeRecords(GRAPH_NODE, [node(0, false), node(1, true), node(3, false), node(4, false)]))] });
  facade = createFacade({ mode: 'library' });
  const opened = await call('project.open', { path: dir });
  if (!opened.ok) throw new Error(opened.error.code);
  project = (opened.value as { project: string }).project;
});

afterAll(async () => {
  await facade.close();
  rmSync(root, { recursive: true, force: true });
});

async function change(i: number, from = 'before', to = 'CURRENT'): Promise<RecordChangeEntry> {
  const env = await call('checkpoints.record_change', { project, from, to, record_family_id: 'node', identity: { node_uuid: testUuid(`record-change-node-${i}`) } });
  if (!env.ok) throw new Error(env.error.code);
  return env.value as RecordChangeEntry;
}

describe('checkpoints.record_change', () => {
  it('a modified record against CURRENT: both versions, the changed fields, timestamps as decimal text', async () => {
    const r = await change(1);
    expect(r.change_kind).toBe('modified');
    expect(r.record_family_id).toBe('node');
    expect(r.capability_id).toBe('graph');
    expect(r.changed_fields).toEqual(['label', 'updated_at']);
    expect(r.timestamp_fields).toEqual(['created_at', 'updated_at']);
    expect(r.from?.['label']).toBe('Paper 1');
    expect(r.to?.['label']).toBe('Paper 1 (edited)');
    expect(r.from?.['updated_at']).toBeNull();
    expect(r.to?.['updated_at']).toBe(String(T0 + 1n + 5n));
    expect(r.to?.['created_at']).toBe(String(T0 + 1n));
    expect(r.from_record_fingerprint).not.toBe(r.to_record_fingerprint);
    // The JSON form survives the wire unchanged.
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });

  it('removed, added and unchanged records', async () => {
    const removed = await change(2);
    expect(removed.change_kind).toBe('removed');
    expect(removed.to).toBeNull();
    expect(removed.from?.['label']).toBe('Paper 2');
    const added = await change(4);
    expect(added.change_kind).toBe('added');
    expect(added.from).toBeNull();
    expect(added.to?.['label']).toBe('Paper 4');
    const same = await change(0);
    expect(same.change_kind).toBe('unchanged');
    expect(same.changed_fields).toEqual([]);
  });

  it('by a record-diff row: its identity fingerprint (with or without its record uuid) names the record; exactly one of identity and fingerprint', async () => {
    const env = await call('checkpoints.diff', { project, from: 'before', to: 'CURRENT', scope: 'graph', detail: 'records', record_family_id: 'node' });
    if (!env.ok) throw new Error(env.error.code);
    const t = tableFromIPC((env.value as { bytes: Uint8Array }).bytes);
    expect(t.numRows).toBe(3);
    const hex = (v: unknown) => Buffer.from(v as Uint8Array).toString('hex');
    for (let i = 0; i < t.numRows; i++) {
      const fp = hex(t.getChild('record_identity_fingerprint')!.get(i));
      const u = hex(t.getChild('record_uuid')!.get(i));
      const uuid = `${u.slice(0, 8)}-${u.slice(8, 12)}-${u.slice(12, 16)}-${u.slice(16, 20)}-${u.slice(20)}`;
      const byFp = await call('checkpoints.record_change', { project, from: 'before', to: 'CURRENT', record_family_id: 'node', record_identity_fingerprint: fp });
      const withUuid = await call('checkpoints.record_change', { project, from: 'before', to: 'CURRENT', record_family_id: 'node', record_identity_fingerprint: fp, record_uuid: uuid });
      if (!byFp.ok || !withUuid.ok) throw new Error('record_change failed');
      expect(withUuid.value).toEqual(byFp.value);
      const r = byFp.value as RecordChangeEntry;
      expect(r.change_kind).toBe(t.getChild('change_kind')!.get(i));
      expect(r.from_record_fingerprint).toBe(t.getChild('from_record_fingerprint')!.get(i) === null ? null : hex(t.getChild('from_record_fingerprint')!.get(i)));
      expect((r.from ?? r.to)?.['node_uuid']).toBe(uuid);
    }
    const both = await call('checkpoints.record_change', { project, from: 'before', to: 'CURRENT', record_family_id: 'node', identity: { node_uuid: testUuid('record-change-node-1') }, record_identity_fingerprint: 'a'.repeat(64) });
    expect(both.ok ? null : both.error.code).toBe('GF_VALIDATION');
    const none = await call('checkpoints.record_change', { project, from: 'before', to: 'CURRENT', record_family_id: 'node' });
    expect(none.ok ? null : none.error.code).toBe('GF_VALIDATION');
    const missing = await call('checkpoints.record_change', { project, from: 'before', to: 'CURRENT', record_family_id: 'node', record_identity_fingerprint: 'a'.repeat(64) });
    expect(missing.ok ? null : missing.error.code).toBe('GF_VALIDATION');
  });

  it('refuses an unknown checkpoint, an unknown family and wrong identity fields with stable codes', async () => {
    const unknown = await call('checkpoints.record_change', { project, from: 'nope', to: 'CURRENT', record_family_id: 'node', identity: { node_uuid: testUuid('x') } });
    expect(unknown.ok ? null : unknown.error.code).toBe('GF_CHECKPOINT_NOT_FOUND');
    const family = await call('checkpoints.record_change', { project, from: 'before', to: 'CURRENT', record_family_id: 'no_such_family', identity: { node_uuid: testUuid('x') } });
    expect(family.ok ? null : family.error.code).toBe('GF_VALIDATION');
    const fields = await call('checkpoints.record_change', { project, from: 'before', to: 'CURRENT', record_family_id: 'node', identity: { edge_uuid: testUuid('x') } });
    expect(fields.ok ? null : fields.error.code).toBe('GF_VALIDATION');
  });
});
