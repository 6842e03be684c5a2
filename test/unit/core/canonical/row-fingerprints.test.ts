import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Dictionary, Int32, RecordBatch, Struct, Table, Utf8, makeData, vectorFromArray } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { recordFingerprints, toHex } from '../../../../core/canonical';
import { RowFingerprinter, rowFingerprinter } from '../../../../core/canonical/row-fingerprints';
import { GfError } from '../../../../core/errors';
import { GRAPH_NODE, RECORD_FAMILIES, tableFromRecords } from '../../../../core/participants';
import { sampleRecords } from '../participants/sample-workspace';
import { uuidOf } from '../diff/diff-support';

const T0 = 1_750_000_000_000_000n;

function columnsOf(t: ReturnType<typeof tableFromRecords>): Data[] {
  return (t.batches[0] as { data: { children: Data[] } }).data.children;
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof GfError) return e.code;
    throw e;
  }
  return 'none';
}

/** Node records with nulls, non-ASCII text and varied lengths. */
const nodesArb = fc.array(
  fc.record({
    i: fc.integer({ min: 0, max: 1_000_000 }),
    label: fc.string({ unit: 'grapheme', maxLength: 40 }),
    properties: fc.option(fc.constantFrom('{}', '{"a":1}', '{"é":"😀"}'), { nil: null }),
    updated: fc.option(fc.bigInt({ min: 0n, max: 1n << 40n }), { nil: null }),
  }),
  { minLength: 1, maxLength: 60 },
);

describe('RowFingerprinter', () => {
  it('writes every field of every registered family flat and matches recordFingerprints row by row', () => {
    const recs = sampleRecords();
    for (const f of RECORD_FAMILIES) {
      const t = tableFromRecords(f, recs[f.key] ?? []);
      if (t.numRows === 0) continue;
      const all = recordFingerprints(t, f.fingerprintDomain);
      const fp = new RowFingerprinter(f.schema.fields, f.schema.metadata, columnsOf(t), f.fingerprintDomain);
      expect(fp.flatFields).toBe(f.schema.fields.length);
      for (let r = t.numRows - 1; r >= 0; r--) expect(toHex(fp.of(r))).toBe(toHex(all.subarray(r * 32, r * 32 + 32)));
    }
  });

  it('agrees with recordFingerprints on generated rows (nulls, non-ASCII, long text)', () => {
    fc.assert(
      fc.property(nodesArb, (raw) => {
        const seen = new Set<number>();
        const recs = raw
          .filter((r) => !seen.has(r.i) && seen.add(r.i) !== undefined)
          .map((r) => ({
            node_uuid: uuidOf(`n-${r.i}`),
            class_id: 'Paper',
            label: r.label.length === 0 ? 'x' : r.label,
            properties: r.properties,
            created_at: T0,
            updated_at: r.updated,
          }));
        const t = tableFromRecords(GRAPH_NODE, recs);
        const cols = columnsOf(t);
        const fields = GRAPH_NODE.schema.fields;
        const fp = rowFingerprinter(fields, GRAPH_NODE.schema.metadata, cols, GRAPH_NODE.fingerprintDomain);
        const all = recordFingerprints(t, GRAPH_NODE.fingerprintDomain);
        for (let r = 0; r < t.numRows; r++) expect(toHex(fp.of(r))).toBe(toHex(all.subarray(r * 32, r * 32 + 32)));
      }),
      { numRuns: 25 },
    );
  });

  it('validates only the rows it hashes: invalid UTF-8 is GF_CANONICAL_UTF8 there, and nowhere else', () => {
    const recs = [0, 1, 2].map((i) => ({ node_uuid: uuidOf(`u-${i}`), class_id: 'Paper', label: `L${i}`, properties: null, created_at: T0, updated_at: null }));
    const t = tableFromRecords(GRAPH_NODE, recs);
    const cols = [...columnsOf(t)];
    const labelAt = GRAPH_NODE.schema.fields.findIndex((f) => f.name === 'label');
    const label = cols[labelAt] as Data;
    const bytes = new Uint8Array(label.values as Uint8Array);
    const o = label.valueOffsets as Int32Array;
    bytes[o[1] as number] = 0xff; // row 1's label is no longer UTF-8
    cols[labelAt] = makeData({ type: new Utf8(), length: 3, data: bytes, valueOffsets: o, nullCount: 0 });
    const fp = new RowFingerprinter(GRAPH_NODE.schema.fields, GRAPH_NODE.schema.metadata, cols, GRAPH_NODE.fingerprintDomain);
    expect(fp.flatFields).toBe(GRAPH_NODE.schema.fields.length);
    expect(codeOf(() => fp.of(0))).toBe('none');
    expect(codeOf(() => fp.of(2))).toBe('none');
    expect(codeOf(() => fp.of(1))).toBe('GF_CANONICAL_UTF8');
    // The canonical module (whole table) refuses the same bytes the same way.
    expect(codeOf(() => recordFingerprints(new Table([new RecordBatch(GRAPH_NODE.schema, makeData({ type: new Struct(GRAPH_NODE.schema.fields), length: 3, nullCount: 0, children: cols }))]), GRAPH_NODE.fingerprintDomain))).toBe('GF_CANONICAL_UTF8');
  });

  it('writes a layout it does not read flat (dictionary column) through the canonical encoder, window by window, with the same fingerprints', () => {
    const recs = [0, 1, 2, 3].map((i) => ({ node_uuid: uuidOf(`d-${i}`), class_id: 'Paper', label: `L${i % 2}`, properties: null, created_at: T0, updated_at: null }));
    const t = tableFromRecords(GRAPH_NODE, recs);
    const cols = [...columnsOf(t)];
    const labelAt = GRAPH_NODE.schema.fields.findIndex((f) => f.name === 'label');
    cols[labelAt] = vectorFromArray(['L0', 'L1', 'L0', 'L1'], new Dictionary(new Utf8(), new Int32())).data[0] as Data;
    const fields = GRAPH_NODE.schema.fields.map((f, k) => (k === labelAt ? f.clone({ type: new Dictionary(new Utf8(), new Int32()) }) : f));
    const all = recordFingerprints(t, GRAPH_NODE.fingerprintDomain);
    // Whole-batch binding and tiny windows (sliced chunks) of the encoded column agree with the canonical module.
    for (const window of [4096, 1, 3]) {
      const fp = new RowFingerprinter(fields, GRAPH_NODE.schema.metadata, cols, GRAPH_NODE.fingerprintDomain, window);
      expect(fp.flatFields).toBe(fields.length - 1);
      for (let r = 3; r >= 0; r--) expect(toHex(fp.of(r))).toBe(toHex(all.subarray(r * 32, r * 32 + 32)));
    }
  });
});
