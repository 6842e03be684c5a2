// ADR-0014 checkpoint_diff_ignores_physical_layout: physical layout cannot
// affect the diff's output. The same records re-encoded in another Arrow
// layout (two record batches instead of one) are `unchanged` and give the
// same summary bytes, content identities included (the record-set
// fingerprint, core/diff/record-set.ts), although their stored objects'
// digests differ; a real edit of the same size is `modified` with another
// content identity.
import { Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { afterEach, describe, expect, it } from 'vitest';
import { diffCheckpoints, projectShell } from '../../../../core/diff/index';
import { GRAPH_NODE, encodeRecords } from '../../../../core/participants';
import { workspace } from '../checkpoints/checkpoint-support';
import type { Workspace } from '../checkpoints/checkpoint-support';
import { uuidOf } from './diff-support';

const T0 = 1_750_000_000_000_000n;
const nodes = (label: (i: number) => string): object[] =>
  Array.from({ length: 40 }, (_, i) => ({ node_uuid: uuidOf(`layout-${i}`), class_id: 'Paper', label: label(i), properties: null, created_at: T0 + BigInt(i), updated_at: null }));

/** The same canonical records, stored as an Arrow IPC file of two record batches. */
function reencoded(bytes: Uint8Array): Uint8Array {
  const t = tableFromIPC(bytes);
  const half = Math.floor(t.numRows / 2);
  const two = new Table([...t.slice(0, half).batches, ...t.slice(half).batches]);
  expect(two.batches.length).toBe(2);
  return tableToIPC(two, 'file');
}

let ws: Workspace | undefined;
afterEach(() => {
  ws?.close();
  ws = undefined;
});

async function publishNodes(w: Workspace, bytes: Uint8Array): Promise<void> {
  await w.project.publish({ parent: w.project.current()?.generationUuid ?? null, changes: [{ kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes }] });
}

async function nodeRow(w: Workspace, from: string, to: string): Promise<Record<string, unknown>> {
  const page = await diffCheckpoints({ from, to, scope: 'graph', detail: 'summary', limit: 100 }, projectShell(w.cps));
  const row = page.table.toArray().map((r) => r.toJSON() as Record<string, unknown>).find((r) => r['record_family_id'] === 'node');
  if (row === undefined) throw new Error('no graph/node summary row');
  return row;
}

describe('checkpoint_diff_ignores_physical_layout', () => {
  it('a re-encoded participant is unchanged in the summary; an edit of the same size is modified', async () => {
    const w = (ws = await workspace());
    const canonical = encodeRecords(GRAPH_NODE, nodes((i) => `Paper ${i}`));
    await publishNodes(w, canonical);
    await w.cps.checkpoint({ name: 'canonical', idempotencyKey: uuidOf('layout-key-1') });
    const other = reencoded(canonical);
    expect(Buffer.from(other).equals(Buffer.from(canonical))).toBe(false);
    await publishNodes(w, other);
    await w.cps.checkpoint({ name: 're-encoded', idempotencyKey: uuidOf('layout-key-2') });

    // Physically different objects …
    const objects = ['canonical', 're-encoded'].map((name) => {
      const view = w.cps.openCheckpoint(name);
      try {
        return view.participants.find((p) => p.recordFamilyId === 'node')?.contentSha256;
      } finally {
        view.release();
      }
    });
    expect(objects[0]).not.toBe(objects[1]);
    // … logically the same records: the same content identity, unchanged.
    const row = await nodeRow(w, 'canonical', 're-encoded');
    expect(row['from_content_sha256']).toEqual(row['to_content_sha256']);
    expect(row['change_kind']).toBe('unchanged');
    expect(await nodeRow(w, 're-encoded', 'canonical')).toMatchObject({ change_kind: 'unchanged' });
    // The whole summary page is the same bytes whichever layout an endpoint holds.
    const summary = async (from: string, to: string): Promise<unknown[]> => {
      const page = await diffCheckpoints({ from, to, scope: 'all', detail: 'summary', limit: 100 }, projectShell(w.cps));
      return page.table.toArray().map((r) => { const o = r.toJSON() as Record<string, unknown>; delete o['from_checkpoint_uuid']; delete o['to_checkpoint_uuid']; return JSON.stringify(o, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : typeof v === 'bigint' ? v.toString() : v)); });
    };
    expect(await summary('canonical', 're-encoded')).toEqual(await summary('canonical', 'canonical'));
    const records = await diffCheckpoints({ from: 'canonical', to: 're-encoded', scope: 'graph', detail: 'records', limit: 100 }, projectShell(w.cps));
    expect(records.table.numRows).toBe(0);

    // Control: one label edited, same row count, same layout kind → modified.
    await publishNodes(w, encodeRecords(GRAPH_NODE, nodes((i) => (i === 39 ? 'Edited' : `Paper ${i}`))));
    await w.cps.checkpoint({ name: 'edited', idempotencyKey: uuidOf('layout-key-3') });
    const edited = await nodeRow(w, 're-encoded', 'edited');
    expect(edited).toMatchObject({ change_kind: 'modified', from_row_count: 40n, to_row_count: 40n });
    expect(edited['from_content_sha256']).toEqual(row['to_content_sha256']);
    expect(edited['to_content_sha256']).not.toEqual(edited['from_content_sha256']);
  });
});
