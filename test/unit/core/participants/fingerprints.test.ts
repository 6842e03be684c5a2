import { describe, expect, it } from 'vitest';
import { toHex } from '../../../../core/canonical';
import {
  GRAPH_EDGE,
  GRAPH_NODE,
  RECORD_FAMILIES,
  canonicalizeParticipant,
  identityFingerprints,
  recordUuids,
  tableFromRecords,
  wholeRecordFingerprints,
} from '../../../../core/participants';
import type { RecordFamily } from '../../../../core/participants';
import { sampleRecords, u } from './sample-workspace';

function rows(bytes: Uint8Array): string[] {
  const out: string[] = [];
  for (let i = 0; i < bytes.length; i += 32) out.push(toHex(bytes.subarray(i, i + 32)));
  return out;
}

function sorted(family: RecordFamily, records: object[]) {
  return canonicalizeParticipant(family, tableFromRecords(family, records));
}

describe('identity and record fingerprints', () => {
  it('identity fingerprints follow identity only; record fingerprints follow every field', () => {
    const nodes = sampleRecords()['graph/node'] ?? [];
    const before = sorted(GRAPH_NODE, nodes);
    const after = sorted(
      GRAPH_NODE,
      nodes.map((n) => (n.node_uuid === u(2) ? { ...n, label: 'Émile D.' } : n)),
    );
    const idA = rows(identityFingerprints(GRAPH_NODE, before));
    const idB = rows(identityFingerprints(GRAPH_NODE, after));
    expect(idA).toEqual(idB);
    expect(new Set(idA).size).toBe(idA.length);
    const recA = rows(wholeRecordFingerprints(GRAPH_NODE, before));
    const recB = rows(wholeRecordFingerprints(GRAPH_NODE, after));
    // Sorted by node_uuid: u(1), u(2), u(3); only the second changed.
    expect(recA.map((h, i) => h === recB[i])).toEqual([true, false, true]);
    expect(recordUuids(GRAPH_NODE, before)).toEqual([u(1), u(2), u(3)]);
  });

  it('composite identities have no record_uuid but distinct identity fingerprints', () => {
    const edges = sorted(GRAPH_EDGE, sampleRecords()['graph/edge'] ?? []);
    expect(recordUuids(GRAPH_EDGE, edges)).toEqual([null, null, null]);
    expect(new Set(rows(identityFingerprints(GRAPH_EDGE, edges))).size).toBe(3);
  });

  it('separates families by domain even for equal bytes', () => {
    for (const f of RECORD_FAMILIES) {
      const t = sorted(f, sampleRecords()[f.key] ?? []);
      const id = rows(identityFingerprints(f, t));
      const rec = rows(wholeRecordFingerprints(f, t));
      expect(id.length).toBe(t.numRows);
      expect(rec.length).toBe(t.numRows);
      for (const h of id) expect(rec).not.toContain(h);
    }
  });
});
