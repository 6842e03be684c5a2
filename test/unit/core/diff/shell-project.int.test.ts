import fs from 'node:fs';
import { putConfig } from '../../../support/project-fixtures';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toHex } from '../../../../core/canonical';
import { TOKEN_SECRET_PATH } from '../../../../core/diff/token-secret';
import { currentEndpointUuid } from '../../../../core/diff/plan-endpoint';
import { diffCheckpoints, projectShell, recordChange } from '../../../../core/diff/index';
import type { DiffPage } from '../../../../core/diff/index';
import type { DiffDetail, DiffScope } from '../../../../core/contract/diff';
import { GRAPH_NODE, encodeRecords } from '../../../../core/participants';
import type { ParticipantChange } from '../../../../core/project';
import { codeOf, workspace } from '../checkpoints/checkpoint-support';
import type { Workspace } from '../checkpoints/checkpoint-support';
import { uuidOf } from './diff-support';

const T0 = 1_750_000_000_000_000n;

function nodes(n: number, relabel: (i: number) => string | null): object[] {
  const out: object[] = [];
  for (let i = 0; i < n; i++) {
    const label = relabel(i);
    if (label === null) continue;
    out.push({ node_uuid: uuidOf(`pn-${i}`), class_id: 'Paper', label, properties: null, created_at: T0 + BigInt(i), updated_at: null });
  }
  return out;
}

function put(records: object[], config: string): ParticipantChange[] {
  return [
    { kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes: encodeRecords(GRAPH_NODE, records) },
    putConfig(config),
  ];
}

let ws: Workspace | undefined;
afterEach(() => {
  ws?.close();
  ws = undefined;
});

async function publish(w: Workspace, records: object[], config: string): Promise<void> {
  await w.project.publish({ parent: w.project.current()?.generationUuid ?? null, changes: put(records, config) });
}

let op = 0;
function key(): string {
  op++;
  return `018f0f4e-7b8c-7000-8000-${op.toString(16).padStart(12, '0')}`;
}

async function walk(w: Workspace, req: { from: string; to: string; scope: DiffScope; detail: DiffDetail; limit: number }): Promise<string[]> {
  const rows: string[] = [];
  let after: string | null = null;
  for (;;) {
    const page: DiffPage = await diffCheckpoints({ ...req, after }, projectShell(w.cps));
    for (const r of page.table.toArray()) rows.push(JSON.stringify(r.toJSON(), (_k, v: unknown) => (v instanceof Uint8Array ? toHex(v) : typeof v === 'bigint' ? Number(v) : v)));
    if (page.nextPageToken === null) return rows;
    after = page.nextPageToken;
  }
}

describe('diff on a real project (checkpoint views and CURRENT leases)', () => {
  it('pages through a record diff between checkpoints; deletion or re-creation between pages is GF_PAGE_SNAPSHOT_GONE', async () => {
    ws = await workspace();
    const w = ws;
    await publish(w, nodes(40, (i) => `node ${i}`), 'one');
    await w.cps.checkpoint({ name: 'one', idempotencyKey: key() });
    await publish(w, nodes(45, (i) => (i % 10 === 3 ? null : i % 7 === 0 ? `edited ${i}` : `node ${i}`)), 'two');
    await w.cps.checkpoint({ name: 'two', idempotencyKey: key() });

    const req = { from: 'one', to: 'two', scope: 'all', detail: 'records' } as const;
    const all = await diffCheckpoints({ ...req, limit: 10_000 }, projectShell(w.cps));
    const kinds = all.table.getChild('change_kind')!.toArray() as string[];
    expect(kinds.filter((k) => k === 'added').length).toBe(4);
    expect(kinds.filter((k) => k === 'removed').length).toBe(4);
    expect(kinds.filter((k) => k === 'modified').length).toBeGreaterThan(4);
    expect((await walk(w, { ...req, limit: 3 })).length).toBe(all.table.numRows + 0);

    // The page-token key: 32 bytes under cache/, never inside a token.
    const keyFile = path.join(w.dir, ...TOKEN_SECRET_PATH);
    const secret = fs.readFileSync(keyFile);
    expect(secret.length).toBe(32);
    const p1 = await diffCheckpoints({ ...req, limit: 3 }, projectShell(w.cps));
    const token = p1.nextPageToken as string;
    expect(Buffer.from(token.split('.')[0] as string, 'base64url').includes(secret)).toBe(false);
    expect(token.includes(secret.toString('base64url'))).toBe(false);

    // Deleted between pages.
    await w.cps.deleteCheckpoint({ name: 'one', idempotencyKey: key() });
    expect(await codeOf(() => diffCheckpoints({ ...req, limit: 3, after: token }, projectShell(w.cps)))).toBe('GF_PAGE_SNAPSHOT_GONE');
    // Re-created under the same name for another generation.
    await publish(w, nodes(40, (i) => `node ${i}`), 'three');
    await w.cps.checkpoint({ name: 'one', idempotencyKey: key() });
    expect(await codeOf(() => diffCheckpoints({ ...req, limit: 3, after: token }, projectShell(w.cps)))).toBe('GF_PAGE_SNAPSHOT_GONE');
    // A fresh walk works against the new target.
    expect((await diffCheckpoints({ ...req, limit: 3 }, projectShell(w.cps))).table.numRows).toBe(3);
  });

  it('diffs a checkpoint against CURRENT with the synthetic endpoint UUID; CURRENT moving is GF_PAGE_SNAPSHOT_GONE', async () => {
    ws = await workspace();
    const w = ws;
    await publish(w, nodes(20, (i) => `node ${i}`), 'one');
    await w.cps.checkpoint({ name: 'base', idempotencyKey: key() });
    await publish(w, nodes(20, (i) => (i < 5 ? `changed ${i}` : `node ${i}`)), 'two');
    const cur = w.project.current()!;
    const synthetic = currentEndpointUuid(cur.generationUuid, cur.manifestSha256);

    const summary = await diffCheckpoints({ from: 'base', to: 'CURRENT', scope: 'all', detail: 'summary' }, projectShell(w.cps));
    expect(summary.to.checkpointUuid).toBe(synthetic);
    const kinds = Object.fromEntries(summary.table.toArray().map((r) => [r.record_family_id as string, r.change_kind as string]));
    // Both generations hold the mandatory documents: the configuration document changed with the label, the ontology did not.
    expect(kinds).toEqual({ node: 'modified', configuration: 'modified', ontology: 'unchanged' });

    const page = await diffCheckpoints({ from: 'base', to: 'CURRENT', scope: 'graph', detail: 'records', limit: 2 }, projectShell(w.cps));
    expect(page.table.numRows).toBe(2);
    expect(toHex(page.table.getChild('to_checkpoint_uuid')!.get(0) as Uint8Array)).toBe(synthetic.replace(/-/g, ''));
    // The synthetic UUID is not a checkpoint reference.
    expect(await codeOf(() => w.cps.openCheckpoint(synthetic))).not.toBe('accepted');

    await publish(w, nodes(20, (i) => `again ${i}`), 'three');
    expect(await codeOf(() => diffCheckpoints({ from: 'base', to: 'CURRENT', scope: 'graph', detail: 'records', limit: 2, after: page.nextPageToken }, projectShell(w.cps)))).toBe(
      'GF_PAGE_SNAPSHOT_GONE',
    );
  });

  it('recordChange shows both versions of one record and the differing fields', async () => {
    ws = await workspace();
    const w = ws;
    await publish(w, nodes(10, (i) => `node ${i}`), 'one');
    await w.cps.checkpoint({ name: 'a', idempotencyKey: key() });
    await publish(w, nodes(12, (i) => (i === 4 ? 'renamed' : i === 2 ? null : `node ${i}`)), 'two');
    const change = recordChange({ from: 'a', to: 'CURRENT', record_family_id: 'node', identity: { node_uuid: uuidOf('pn-4') } }, projectShell(w.cps));
    expect(change.change_kind).toBe('modified');
    expect(change.changed_fields).toEqual(['label']);
    expect(change.from?.label).toBe('node 4');
    expect(change.to?.label).toBe('renamed');
    expect(change.from_record_fingerprint).not.toBe(change.to_record_fingerprint);
    const removed = recordChange({ from: 'a', to: 'CURRENT', record_family_id: 'node', identity: { node_uuid: uuidOf('pn-2') } }, projectShell(w.cps));
    expect([removed.change_kind, removed.to]).toEqual(['removed', null]);
    const added = recordChange({ from: 'a', to: 'CURRENT', record_family_id: 'node', identity: { node_uuid: uuidOf('pn-11') } }, projectShell(w.cps));
    expect(added.change_kind).toBe('added');
    const same = recordChange({ from: 'a', to: 'CURRENT', record_family_id: 'node', identity: { node_uuid: uuidOf('pn-5') } }, projectShell(w.cps));
    expect([same.change_kind, same.changed_fields]).toEqual(['unchanged', []]);
    // The record diff's fingerprint for that record is the one recordChange reports.
    const diff = await diffCheckpoints({ from: 'a', to: 'CURRENT', scope: 'graph', detail: 'records', limit: 100 }, projectShell(w.cps));
    const fps = diff.table.getChild('to_record_fingerprint')!.toArray().map((v: Uint8Array | null) => (v === null ? null : toHex(v)));
    expect(fps).toContain(change.to_record_fingerprint);
    expect(await codeOf(() => recordChange({ from: 'a', to: 'CURRENT', record_family_id: 'node', identity: { node_uuid: uuidOf('nope') } }, projectShell(w.cps)))).toBe('GF_VALIDATION');
    expect(await codeOf(() => recordChange({ from: 'a', to: 'CURRENT', record_family_id: 'node', identity: { label: 'x' } }, projectShell(w.cps)))).toBe('GF_VALIDATION');
    expect(await codeOf(() => recordChange({ from: 'gone', to: 'CURRENT', record_family_id: 'node', identity: { node_uuid: uuidOf('pn-4') } }, projectShell(w.cps)))).toBe(
      'GF_CHECKPOINT_NOT_FOUND',
    );
  });
});
