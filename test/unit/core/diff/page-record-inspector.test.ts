// recordChangeBetween / recordChangeOf on in-memory endpoints: a record found
// by the identity fingerprint a record-diff row carries, for families with and
// without a record_uuid (composite edge identity, text configuration key), and
// the refusals (not found, malformed, inconsistent, ambiguous requests).
import { describe, expect, it } from 'vitest';
import { toHex } from '../../../../core/canonical';
import { diffAllRecords } from '../../../../core/diff/page-diff';
import { recordChangeBetween, recordChangeOf } from '../../../../core/diff/page-record-inspector';
import type { DiffEndpoint } from '../../../../core/diff/plan-endpoint';
import type { RecordChangeResult } from '../../../../core/diff/page-record-inspector';
import { GfError } from '../../../../core/errors';
import { GRAPH_EDGE, GRAPH_NODE, WORKSPACE_CONFIGURATION } from '../../../../core/participants';
import { counting, endpoint, rangedEndpoint, storedRecords, uuidOf, configurationRows } from './diff-support';

const T0 = 1_750_000_000_000_000n;
const node = (i: number, label = `node ${i}`) => ({ node_uuid: uuidOf(`n-${i}`), class_id: 'Paper', label, properties: null, created_at: T0 + BigInt(i), updated_at: null });
const edge = (i: number, weight: number | null) => ({ source_node_uuid: uuidOf(`n-${i}`), target_node_uuid: uuidOf(`n-${i + 1}`), kind: 'cites', weight, created_at: T0 });

function endpoints(reads: string[] = []): { from: DiffEndpoint; to: DiffEndpoint } {
  const from = endpoint(uuidOf('cp-from'), [
    storedRecords(GRAPH_NODE, [0, 1, 2, 3].map((i) => node(i))),
    // Edges 0..5; edge 2 gets a weight, edge 0 is removed, edge 6 added.
    storedRecords(GRAPH_EDGE, [0, 1, 2, 3, 4, 5].map((i) => edge(i, null))),
    storedRecords(WORKSPACE_CONFIGURATION, configurationRows('model-a')),
  ], reads);
  const to = endpoint(uuidOf('cp-to'), [
    storedRecords(GRAPH_NODE, [node(0), node(1, 'renamed'), node(3), node(4)]),
    storedRecords(GRAPH_EDGE, [edge(1, null), edge(2, 0.5), edge(3, null), edge(4, null), edge(5, null), edge(6, null)]),
    storedRecords(WORKSPACE_CONFIGURATION, configurationRows('model-b')),
  ], reads);
  return { from, to };
}

interface DiffRow {
  readonly record_family_id: string;
  readonly record_uuid: string | null;
  readonly record_identity_fingerprint: string;
  readonly change_kind: string;
  readonly from_record_fingerprint: string | null;
  readonly to_record_fingerprint: string | null;
}

const uuidText = (hex: string): string => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

function diffRows(from: DiffEndpoint, to: DiffEndpoint): DiffRow[] {
  return diffAllRecords(from, to, 'all')
    .toArray()
    .map((r) => {
      const o = r.toJSON() as Record<string, unknown>;
      const hex = (k: string): string | null => (o[k] instanceof Uint8Array ? toHex(o[k] as Uint8Array) : null);
      const uuid = hex('record_uuid');
      return {
        record_family_id: o['record_family_id'] as string,
        record_uuid: uuid === null ? null : uuidText(uuid),
        record_identity_fingerprint: hex('record_identity_fingerprint') as string,
        change_kind: o['change_kind'] as string,
        from_record_fingerprint: hex('from_record_fingerprint'),
        to_record_fingerprint: hex('to_record_fingerprint'),
      };
    });
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof GfError) return `${e.code}:${String((e.details as { problem?: unknown }).problem ?? '')}`;
    throw e;
  }
  return 'no error';
}

describe('recordChange by identity fingerprint', () => {
  it('finds every changed record of every family by the diff row it came from, with and without a record_uuid', () => {
    const { from, to } = endpoints();
    const rows = diffRows(from, to);
    expect(new Set(rows.map((r) => r.record_family_id))).toEqual(new Set(['configuration', 'edge', 'node']));
    for (const row of rows) {
      const byFp = recordChangeBetween(from, to, row.record_family_id, { identityFingerprint: row.record_identity_fingerprint });
      expect([byFp.change_kind, byFp.from_record_fingerprint, byFp.to_record_fingerprint]).toEqual([row.change_kind, row.from_record_fingerprint, row.to_record_fingerprint]);
      // With the row's record UUID (UUID families): the same answer by binary search.
      if (row.record_uuid !== null) {
        expect(recordChangeBetween(from, to, row.record_family_id, { identityFingerprint: row.record_identity_fingerprint, recordUuid: row.record_uuid })).toEqual(byFp);
      }
    }
    // A modified composite-identity edge: its values and the one field that changed.
    const edge2 = rows.find((r) => r.record_family_id === 'edge' && r.change_kind === 'modified')!;
    const e = recordChangeBetween(from, to, 'edge', { identityFingerprint: edge2.record_identity_fingerprint });
    expect(e.changed_fields).toEqual(['weight']);
    expect([e.from?.['weight'], e.to?.['weight'], e.to?.['source_node_uuid']]).toEqual([null, 0.5, uuidOf('n-2')]);
    // The same record named by its identity values gives the same answer.
    const byValues: RecordChangeResult = recordChangeBetween(from, to, 'edge', { identity: { source_node_uuid: uuidOf('n-2'), target_node_uuid: uuidOf('n-3'), kind: 'cites' } });
    expect(byValues).toEqual(e);
    // A text-keyed configuration document field: modified, the other fields unchanged (a document keeps its fields).
    const kinds = rows
      .filter((r) => r.record_family_id === 'configuration')
      .map((r) => {
        const c = recordChangeBetween(from, to, 'configuration', { identityFingerprint: r.record_identity_fingerprint });
        return [c.change_kind, c.from?.['field'] ?? c.to?.['field'], c.changed_fields.join(','), c.from?.['value'] ?? null, c.to?.['value'] ?? null];
      });
    expect(kinds).toEqual([['modified', 'embedding_configuration', 'value', '{"model_id":"model-a"}', '{"model_id":"model-b"}']]);
    expect(kinds).toHaveLength(1);
  });

  it('refuses an unknown fingerprint, a malformed one, an inconsistent record UUID and an ambiguous request with GF_VALIDATION', () => {
    const reads: string[] = [];
    const { from, to } = endpoints(reads);
    const rows = diffRows(from, to);
    const nodeRow = rows.find((r) => r.record_family_id === 'node' && r.change_kind === 'modified')!;
    const edgeRow = rows.find((r) => r.record_family_id === 'edge')!;
    // A fingerprint of no record on either side (the node's fingerprint is not an edge identity).
    expect(code(() => recordChangeBetween(from, to, 'edge', { identityFingerprint: nodeRow.record_identity_fingerprint }))).toBe('GF_VALIDATION:no_such_record');
    expect(code(() => recordChangeBetween(from, to, 'configuration', { identityFingerprint: 'ab'.repeat(32) }))).toBe('GF_VALIDATION:no_such_record');
    reads.length = 0;
    for (const bad of ['AB'.repeat(32), 'ab'.repeat(31), 42, '']) {
      expect(code(() => recordChangeBetween(from, to, 'edge', { identityFingerprint: bad }))).toBe('GF_VALIDATION:record_identity_fingerprint');
    }
    // The record UUID hint must be that identity's, and only for a family with a record UUID.
    expect(code(() => recordChangeBetween(from, to, 'node', { identityFingerprint: nodeRow.record_identity_fingerprint, recordUuid: uuidOf('n-3') }))).toBe('GF_VALIDATION:identity_mismatch');
    expect(code(() => recordChangeBetween(from, to, 'edge', { identityFingerprint: edgeRow.record_identity_fingerprint, recordUuid: uuidOf('n-1') }))).toBe('GF_VALIDATION:record_uuid');
    expect(code(() => recordChangeBetween(from, to, 'no_such', { identityFingerprint: edgeRow.record_identity_fingerprint }))).toBe('GF_VALIDATION:record_family_id');
    expect(reads).toEqual([]); // refused before reading a participant
    // Exactly one of identity / fingerprint through the resolver surface.
    const resolver = { open: (s: unknown) => ({ ...(s === 'CURRENT' ? to : from), release: () => undefined }) };
    const req = { from: 'a', to: 'CURRENT', record_family_id: 'edge' };
    expect(code(() => recordChangeOf({ ...req }, resolver))).toBe('GF_VALIDATION:identity_or_fingerprint');
    expect(code(() => recordChangeOf({ ...req, identity: { kind: 'x' }, record_identity_fingerprint: edgeRow.record_identity_fingerprint }, resolver))).toBe(
      'GF_VALIDATION:identity_or_fingerprint',
    );
    expect(recordChangeOf({ ...req, record_identity_fingerprint: edgeRow.record_identity_fingerprint }, resolver).change_kind).toBe(edgeRow.change_kind);
    // A cancelled lookup returns nothing.
    const c = new AbortController();
    c.abort();
    expect(code(() => recordChangeBetween(from, to, 'edge', { identityFingerprint: edgeRow.record_identity_fingerprint }, { signal: c.signal }))).toMatch(/^GF_CANCELLED/);
  });

  it('looks a record-UUID family up by ranged reads (a few rows of bytes), with the same answer as decoding both objects', () => {
    const n = 20_000;
    const from = Array.from({ length: n }, (_, i) => node(i)).sort((x, y) => (x.node_uuid < y.node_uuid ? -1 : 1));
    const to = from.filter((_, i) => i !== 10).map((r, i) => (i === 500 ? { ...r, label: 'renamed' } : r));
    const whole = { from: endpoint(uuidOf('A'), [storedRecords(GRAPH_NODE, from)]), to: endpoint(uuidOf('B'), [storedRecords(GRAPH_NODE, to)]) };
    const opened: ReturnType<typeof counting>[] = [];
    const ranged = { from: rangedEndpoint(uuidOf('A'), [storedRecords(GRAPH_NODE, from)], opened), to: rangedEndpoint(uuidOf('B'), [storedRecords(GRAPH_NODE, to)], opened) };
    const rows = diffRows(whole.from, whole.to);
    expect(rows.map((r) => r.change_kind).sort()).toEqual(['modified', 'removed']);
    for (const row of rows) {
      opened.length = 0;
      const lookup = { identityFingerprint: row.record_identity_fingerprint, recordUuid: row.record_uuid };
      const got = recordChangeBetween(ranged.from, ranged.to, 'node', lookup);
      expect(got).toEqual(recordChangeBetween(whole.from, whole.to, 'node', lookup));
      expect(got.change_kind).toBe(row.change_kind);
      expect(opened).toHaveLength(2);
      for (const o of opened) expect(o.stats.bytes).toBeLessThan(o.byteLength / 20);
    }
    // By identity values too; an unknown UUID is on neither side.
    const renamed = recordChangeBetween(ranged.from, ranged.to, 'node', { identity: { node_uuid: to[500]!.node_uuid } });
    expect([renamed.change_kind, renamed.changed_fields, renamed.to?.['label']]).toEqual(['modified', ['label'], 'renamed']);
    expect(code(() => recordChangeBetween(ranged.from, ranged.to, 'node', { identity: { node_uuid: uuidOf('nowhere') } }))).toBe('GF_VALIDATION:no_such_record');
  });
});
