import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Dictionary, tableFromIPC } from 'apache-arrow';
import type { Table } from 'apache-arrow';
import { recordFingerprints, toHex } from '../../../../core/canonical';
import { DIFF_ADAPTERS } from '../../../../core/diff/plan-adapters';
import { RowFingerprinter } from '../../../../core/canonical/row-fingerprints';
import { diffAllRecords, diffEndpoints } from '../../../../core/diff/page-diff';
import { selectorsDigest } from '../../../../core/diff/page-token';
import { summaryRows } from '../../../../core/diff/plan-families';
import { validateRequest } from '../../../../core/api/dispatcher';
import { resolveDiffParams } from '../../../../core/diff/plan-request';
import type { ChangeCache } from '../../../../core/diff/changes-cache';
import type { DiffEndpoint } from '../../../../core/diff/plan-endpoint';
import type { DiffParams, DiffRequest } from '../../../../core/diff/plan-request';
import { GfError } from '../../../../core/errors';
import { GRAPH_EDGE, GRAPH_NODE, RECORD_FAMILIES, canonicalizeParticipant, tableFromRecords } from '../../../../core/participants';
import type { RecordFamily } from '../../../../core/participants';
import { sampleRecords } from '../participants/sample-workspace';
import { SECRET, endpoint, fam, reencoded, stored, storedRecords, uuidOf, workspace } from './diff-support';

const FROM = uuidOf('from');
const TO = uuidOf('to');
const binding = { selectorsSha256: selectorsDigest({ name: 'a' }, { name: 'b' }) };

function params(over: Partial<DiffRequest> = {}): DiffParams {
  return resolveDiffParams({ scope: 'all', detail: 'records', limit: 10_000, ...over });
}

function rowsOf(t: Table): Record<string, unknown>[] {
  return t.toArray().map((r) => {
    const o = r.toJSON() as Record<string, unknown>;
    for (const [k, v] of Object.entries(o)) if (v instanceof Uint8Array) o[k] = toHex(v);
    for (const [k, v] of Object.entries(o)) if (typeof v === 'bigint') o[k] = Number(v);
    return o;
  });
}

function catchGf(fn: () => unknown): GfError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GfError) return e;
    throw e;
  }
  throw new Error('expected a GfError');
}

/** A base workspace and a changed copy: node 2 modified, node 3 removed, node 9 added, one edge changed. */
function changedPair(): { base: Record<string, object[]>; next: Record<string, object[]> } {
  const base = sampleRecords() as Record<string, object[]>;
  const next = structuredClone(base) as Record<string, Record<string, unknown>[]>;
  const nodes = next['graph/node'] as Record<string, unknown>[];
  (nodes.find((n) => n.label === 'Émile') as Record<string, unknown>).label = 'Emile';
  next['graph/node'] = nodes.filter((n) => n.label !== 'Attention');
  next['graph/node'].push({ ...nodes[0], node_uuid: '00000000-0000-4000-8000-000000000009', label: 'New' });
  (next['graph/edge'] as Record<string, unknown>[])[2] = { ...(next['graph/edge'] as Record<string, unknown>[])[2], weight: 0.5 };
  return { base, next };
}

/**
 * The record-set fingerprint from its definition (core/diff/record-set.ts), with node:crypto:
 * GFFP envelope (domain `checkpoint-studio/<base>/record-set`) over schema fingerprint ‖ u64 count ‖ record fingerprints in identity order.
 */
function independentRecordSet(family: RecordFamily, records: readonly object[]): string {
  const sorted = canonicalizeParticipant(family, tableFromRecords(family, [...records]));
  const fps = Buffer.from(recordFingerprints(sorted, family.fingerprintDomain));
  const domain = Buffer.from(`checkpoint-studio/${family.capabilityId}.${family.recordFamilyId}@${family.recordVersion}/record-set`, 'ascii');
  const count = Buffer.alloc(8);
  count.writeBigUInt64BE(BigInt(sorted.numRows));
  const payload = Buffer.concat([Buffer.from(family.schemaFingerprint, 'hex'), count, fps]);
  const head = Buffer.alloc(4 + 1 + 2);
  head.write('GFFP', 0, 'ascii');
  head.writeUInt8(1, 4);
  head.writeUInt16BE(domain.length, 5);
  const version = Buffer.alloc(4);
  version.writeUInt32BE(1);
  const length = Buffer.alloc(8);
  length.writeBigUInt64BE(BigInt(payload.length));
  return createHash('sha256').update(Buffer.concat([head, domain, version, length, payload])).digest('hex');
}

describe('summary diff', () => {
  it('lists every participant in contract order with logical content identities, reading each object once and none again through a cache', () => {
    const { base, next } = changedPair();
    const reads: string[] = [];
    const from = endpoint(FROM, workspace(base), reads);
    const to = endpoint(TO, workspace(next), reads);
    const entries = new Map<string, Uint8Array>();
    const cache: ChangeCache = { load: () => undefined, store: () => undefined, loadRecordSet: (k) => entries.get(k), storeRecordSet: (k, b) => void entries.set(k, b) };
    const page = diffEndpoints(from, to, params({ detail: 'summary' }), binding, { secret: SECRET, cache });
    // Each object is read once: an unchanged family's one object once, a changed family's two objects once each.
    const counts = new Map<string, number>();
    for (const r of reads) counts.set(r, (counts.get(r) ?? 0) + 1);
    expect(Object.fromEntries([...counts].filter(([, n]) => n !== 1))).toEqual({ 'graph/edge': 2, 'graph/node': 2 });
    expect(page.schema).toBe('checkpoint_summary_diff@1');
    const rows = rowsOf(page.table);
    expect(rows.length).toBe(RECORD_FAMILIES.length);
    const keys = rows.map((r) => [r.scope, r.capability_id, r.record_family_id].join('|'));
    expect(keys).toEqual([...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    const kinds = Object.fromEntries(rows.map((r) => [`${String(r.capability_id)}/${String(r.record_family_id)}`, r.change_kind]));
    expect(kinds['graph/node']).toBe('modified');
    expect(kinds['graph/edge']).toBe('modified');
    expect(kinds['knowledge/assertion']).toBe('unchanged');
    const node = rows.find((r) => r.record_family_id === 'node') as Record<string, unknown>;
    expect(node.from_row_count).toBe(3);
    expect(node.to_row_count).toBe(3);
    expect(node.from_schema_fingerprint).toBe(GRAPH_NODE.schemaFingerprint);
    // The content identity is the record-set fingerprint, recomputed here from its definition, not the object digest.
    expect(node.from_content_sha256).toBe(independentRecordSet(GRAPH_NODE, base['graph/node'] ?? []));
    expect(node.to_content_sha256).toBe(independentRecordSet(GRAPH_NODE, next['graph/node'] ?? []));
    const nodeEntry = from.participants.find((p) => p.recordFamilyId === 'node');
    expect(node.from_content_sha256).not.toBe(nodeEntry?.contentSha256);
    for (const r of rows) if (r.change_kind === 'unchanged') expect(r.from_content_sha256).toBe(r.to_content_sha256);
    // A second summary through the same cache reads no participant and gives the same bytes.
    reads.length = 0;
    const again = diffEndpoints(from, to, params({ detail: 'summary' }), binding, { secret: SECRET, cache });
    expect(reads).toEqual([]);
    expect(rowsOf(again.table)).toEqual(rows);
  });

  it('reports added and removed participants with nulls on the absent side, and filters by scope', () => {
    const nodes = sampleRecords()['graph/node'] ?? [];
    const from = endpoint(FROM, [storedRecords(GRAPH_NODE, nodes)]);
    const to = endpoint(TO, [storedRecords(GRAPH_EDGE, [])]);
    const rows = summaryRows(from, to, 'graph');
    expect(rows.map((r) => [r.recordFamilyId, r.changeKind, r.fromRowCount, r.toRowCount])).toEqual([
      ['edge', 'added', null, 0],
      ['node', 'removed', 3, null],
    ]);
    expect(summaryRows(from, to, 'knowledge')).toEqual([]);
  });
});

describe('record diff', () => {
  it('emits only changed records, ADR kinds, contract order, fingerprints and no values', () => {
    const { base, next } = changedPair();
    const reads: string[] = [];
    const from = endpoint(FROM, workspace(base), reads);
    const to = endpoint(TO, workspace(next), reads);
    const page = diffEndpoints(from, to, params(), binding, { secret: SECRET });
    expect(page.schema).toBe('checkpoint_record_diff@1');
    expect(page.nextPageToken).toBeNull();
    // Only the two changed participants were read, once per side.
    expect([...reads].sort()).toEqual(['graph/edge', 'graph/edge', 'graph/node', 'graph/node']);
    const rows = rowsOf(page.table);
    expect(rows.map((r) => [r.record_family_id, r.change_kind])).toEqual([
      ['edge', 'modified'],
      ['node', 'modified'],
      ['node', 'removed'],
      ['node', 'added'],
    ]);
    const nodeRows = rows.filter((r) => r.record_family_id === 'node');
    expect(nodeRows.map((r) => r.record_uuid)).toEqual([
      '00000000000040008000000000000002',
      '00000000000040008000000000000003',
      '00000000000040008000000000000009',
    ]);
    const edge = rows[0] as Record<string, unknown>;
    expect(edge.record_uuid).toBeNull();
    // Fingerprints are the canonical record fingerprints of the family.
    const nextNodes = tableFromRecords(GRAPH_NODE, [...(next['graph/node'] ?? [])]);
    const fps = recordFingerprints(nextNodes, GRAPH_NODE.fingerprintDomain);
    const idx = (next['graph/node'] as Record<string, unknown>[]).findIndex((n) => n.label === 'New');
    expect(nodeRows[2]?.to_record_fingerprint).toBe(toHex(fps.subarray(idx * 32, idx * 32 + 32)));
    expect(nodeRows[2]?.from_record_fingerprint).toBeNull();
    expect(nodeRows[1]?.to_record_fingerprint).toBeNull();
    expect(nodeRows[0]?.from_record_fingerprint).not.toBe(nodeRows[0]?.to_record_fingerprint);
    // Values never appear: no label, class or property text in the envelope bytes.
    const text = JSON.stringify(rows);
    for (const v of ['Emile', 'Émile', 'Attention', 'New', 'Person', 'authored']) expect(text.includes(v)).toBe(false);
  });

  it('checkpoint_diff_ignores_physical_layout', () => {
    const { base, next } = changedPair();
    const layouts = (recs: Record<string, object[]>, batchRows: number): ReturnType<typeof storedRecords>[] =>
      RECORD_FAMILIES.map((f) =>
        f.encoding === 'arrow'
          ? stored(f, reencoded(f, recs[f.key] ?? [], batchRows), {}, (recs[f.key] ?? []).length)
          : storedRecords(f, recs[f.key] ?? []),
      );
    const canonicalFrom = endpoint(FROM, workspace(base));
    const canonicalTo = endpoint(TO, workspace(next));
    const expected = rowsOf(diffEndpoints(canonicalFrom, canonicalTo, params(), binding, { secret: SECRET }).table);
    expect(expected.length).toBe(4);
    for (const batchRows of [1, 2]) {
      const oddFrom = endpoint(FROM, layouts(base, batchRows));
      const oddTo = endpoint(TO, layouts(next, batchRows));
      // Same logical data, other layout: physical bytes differ, the record diff is empty.
      const nodeBytes = oddFrom.readParticipantBytes(oddFrom.participants.find((p) => p.recordFamilyId === 'node')!);
      const decoded = tableFromIPC(nodeBytes);
      expect(decoded.batches.length).toBe(Math.ceil(3 / batchRows));
      expect(decoded.schema.fields.find((f) => f.name === 'label')?.type).toBeInstanceOf(Dictionary);
      expect(oddFrom.participants[0]?.contentSha256).not.toBe(canonicalFrom.participants[0]?.contentSha256);
      const none = diffEndpoints(canonicalFrom, oddFrom, params(), binding, { secret: SECRET });
      expect(none.table.numRows).toBe(0);
      // And a real change diffs to identical rows and fingerprints, whatever the layout on either side.
      expect(rowsOf(diffEndpoints(oddFrom, oddTo, params(), binding, { secret: SECRET }).table)).toEqual(expected);
      expect(rowsOf(diffEndpoints(canonicalFrom, oddTo, params(), binding, { secret: SECRET }).table)).toEqual(expected);
    }
  });

  it('treats every participant of a family absent on one side as added or removed records', () => {
    const nodes = sampleRecords()['graph/node'] ?? [];
    const from = endpoint(FROM, []);
    const to = endpoint(TO, [storedRecords(GRAPH_NODE, nodes)]);
    const t = diffAllRecords(from, to, 'graph');
    expect(rowsOf(t).map((r) => r.change_kind)).toEqual(['added', 'added', 'added']);
    const back = diffAllRecords(to, from, 'graph');
    expect(rowsOf(back).map((r) => r.change_kind)).toEqual(['removed', 'removed', 'removed']);
  });

  it('fails structurally with GF_SCHEMA_MISMATCH for unregistered, duplicate, version- and schema-mismatched participants', () => {
    const nodes = sampleRecords()['graph/node'] ?? [];
    const good = storedRecords(GRAPH_NODE, nodes);
    const changed = storedRecords(GRAPH_NODE, nodes.slice(1));
    const cases: [string, ReturnType<typeof storedRecords>[]][] = [
      ['unregistered', [changed, stored(GRAPH_NODE, good.bytes, { recordFamilyId: 'mystery' })]],
      ['duplicate', [changed, changed]],
      ['version_mismatch', [stored(GRAPH_NODE, changed.bytes, { recordVersion: 2 })]],
      ['schema_mismatch', [stored(GRAPH_NODE, changed.bytes, { schemaFingerprint: 'ab'.repeat(32) })]],
    ];
    for (const [problem, parts] of cases) {
      const e = catchGf(() => diffEndpoints(endpoint(FROM, [good]), endpoint(TO, parts), params(), binding, { secret: SECRET }));
      expect(e.code).toBe('GF_SCHEMA_MISMATCH');
      expect(e.details.problem).toBe(problem);
    }
    // Even an unchanged participant with a version mismatch fails record detail.
    const bad = stored(GRAPH_NODE, good.bytes, { capabilityVersion: 9 });
    const e = catchGf(() => diffEndpoints(endpoint(FROM, [bad]), endpoint(TO, [bad]), params(), binding, { secret: SECRET }));
    expect(e.code).toBe('GF_SCHEMA_MISMATCH');
    // A duplicate registration in the adapter registry is structural too.
    const dup = [...DIFF_ADAPTERS, DIFF_ADAPTERS.find((a) => a.recordFamilyId === 'node')!];
    const d = catchGf(() => diffEndpoints(endpoint(FROM, [good]), endpoint(TO, [changed]), params(), binding, { secret: SECRET, adapters: dup }));
    expect(d.code).toBe('GF_SCHEMA_MISMATCH');
    expect(d.details.problem).toBe('duplicate');
  });

  it('has one adapter per registered family, with owner-declared identity (omission test)', () => {
    expect(DIFF_ADAPTERS.length).toBe(RECORD_FAMILIES.length);
    for (const f of RECORD_FAMILIES) {
      const a = DIFF_ADAPTERS.filter((x) => x.capabilityId === f.capabilityId && x.recordFamilyId === f.recordFamilyId);
      expect(a.length).toBe(1);
      expect(a[0]?.contract).toBe('checkpoint-diff-adapter/1');
      expect(a[0]?.identityFields).toEqual(f.identityFields);
      expect(a[0]?.recordUuidField).toBe(f.recordUuidField);
      expect(a[0]?.schemaFingerprint).toBe(f.schemaFingerprint);
    }
  });
});

describe('RowFingerprinter', () => {
  it('matches recordFingerprints of the canonical module row by row, for every family', () => {
    const recs = sampleRecords();
    for (const f of RECORD_FAMILIES) {
      const t = tableFromRecords(f, recs[f.key] ?? []);
      if (t.numRows === 0) continue;
      const all = recordFingerprints(t, f.fingerprintDomain);
      const cols = (t.batches[0] as { data: { children: unknown[] } }).data.children as never[];
      // Whole-batch binding and tiny windows (sliced chunks) must agree with the canonical module.
      for (const window of [4096, 1, 2]) {
        const fp = new RowFingerprinter(f.schema.fields, f.schema.metadata, cols, f.fingerprintDomain, window);
        for (let r = t.numRows - 1; r >= 0; r--) expect(toHex(fp.of(r))).toBe(toHex(all.subarray(r * 32, r * 32 + 32)));
      }
    }
  });
});

describe('request validation', () => {
  it('accepts limits 1..10000 (default 100) and refuses everything else with GF_VALIDATION', () => {
    expect(resolveDiffParams({ scope: 'all', detail: 'summary' }).limit).toBe(100);
    expect(resolveDiffParams({ scope: 'all', detail: 'summary', limit: 1 }).limit).toBe(1);
    expect(resolveDiffParams({ scope: 'all', detail: 'summary', limit: 10_000 }).limit).toBe(10_000);
    // Types and ranges are the contract's (every surface parses a request with it before the engine runs); field combinations are the engine's.
    const around = { project: '00000000-0000-4000-8000-000000000001', from: 'a', to: 'b' };
    for (const limit of [0, 10_001, 1.5, -1, '5', Number.NaN]) {
      expect(catchGf(() => validateRequest('checkpoints.diff', { ...around, scope: 'all', detail: 'summary', limit })).code).toBe('GF_VALIDATION');
    }
    for (const bad of [{ scope: 'everything', detail: 'summary' }, { scope: 'all', detail: 'rows' }]) {
      expect(catchGf(() => validateRequest('checkpoints.diff', { ...around, ...bad })).code).toBe('GF_VALIDATION');
    }
    expect(catchGf(() => resolveDiffParams({ scope: 'summary', detail: 'records' })).code).toBe('GF_VALIDATION');
  });

  it('diffs nothing when both endpoints are the same snapshot', () => {
    const ws = workspace(sampleRecords());
    const reads: string[] = [];
    const e: DiffEndpoint = endpoint(FROM, ws, reads);
    expect(diffEndpoints(e, e, params(), binding, { secret: SECRET }).table.numRows).toBe(0);
    expect(reads).toEqual([]);
    void fam;
  });
});
