import { Table } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GRAPH_EDGE,
  GRAPH_NODE,
  WORKSPACE_CONFIGURATION,
  canonicalJsonOrNull,
  decodeParticipant,
  encodeParticipant,
  encodeRecords,
  recordsFromTable,
  tableFromRecords,
} from '../../../../core/participants';
import type { RecordFamily } from '../../../../core/participants';

// Either case is accepted on input; UUIDs are stored and sorted lowercase.
const uuid = fc.tuple(fc.uuid(), fc.boolean()).map(([s, upper]) => (upper ? s.toUpperCase() : s));
const text = fc.string({ unit: 'grapheme', maxLength: 6 });
const micros = fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n });

const nodeArb = fc.record({
  node_uuid: uuid,
  class_id: fc.constantFrom('Paper', 'Person', 'Agent'),
  label: text,
  properties: fc.constantFrom(null, '{}', '{"a":1}'),
  created_at: micros,
  updated_at: fc.option(micros, { nil: null }),
});

const edgeArb = fc.record({
  source_node_uuid: fc.constantFrom('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'),
  target_node_uuid: fc.constantFrom('00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000004'),
  // Identity text, including astral and BMP-private-use characters whose UTF-16 order differs from UTF-8 order.
  kind: fc.constantFrom('a', 'b', 'ab', 'z', '\u{1F600}', '\uFF21', 'é', 'e\u0301'),
  weight: fc.option(fc.double({ noNaN: false }), { nil: null }),
  created_at: micros,
});

/** Records with unique identity, then a permutation of them and a chunking of that permutation. */
function layouts<T>(arb: fc.Arbitrary<T>, identity: (r: T) => string) {
  return fc
    .uniqueArray(arb, { maxLength: 24, selector: identity })
    .chain((rs) =>
      fc.tuple(
        fc.constant(rs),
        fc.shuffledSubarray(rs, { minLength: rs.length, maxLength: rs.length }),
        fc.array(fc.nat({ max: Math.max(rs.length, 1) }), { maxLength: 3 }),
      ),
    );
}

function chunked(family: RecordFamily, records: readonly object[], cuts: readonly number[]): Table {
  const points = [...new Set([0, ...cuts.filter((c) => c <= records.length), records.length])].sort((a, b) => a - b);
  const batches = [];
  for (let i = 1; i < points.length; i++) {
    batches.push(...tableFromRecords(family, records.slice(points[i - 1], points[i])).batches);
  }
  return new Table(family.schema, batches);
}

function utf8Order(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

describe('participants are written sorted by identity', () => {
  it('any input order and any chunking give the same node bytes, sorted by node_uuid', () => {
    fc.assert(
      fc.property(layouts(nodeArb, (r) => r.node_uuid.toLowerCase()), ([records, shuffled, cuts]) => {
        const reference = encodeRecords(GRAPH_NODE, records);
        const bytes = encodeParticipant(GRAPH_NODE, chunked(GRAPH_NODE, shuffled, cuts));
        expect(Buffer.from(bytes).equals(Buffer.from(reference))).toBe(true);
        const ids = recordsFromTable(GRAPH_NODE, decodeParticipant(GRAPH_NODE, bytes)).map((r) => r.node_uuid as string);
        expect(ids).toEqual(records.map((r) => r.node_uuid.toLowerCase()).sort());
      }),
      { numRuns: 40 },
    );
  });

  it('composite identities sort field by field, text in UTF-8 byte order', () => {
    const identity = (r: { source_node_uuid: string; target_node_uuid: string; kind: string }) =>
      `${r.source_node_uuid}|${r.target_node_uuid}|${r.kind}`;
    fc.assert(
      fc.property(layouts(edgeArb, identity), ([records, shuffled, cuts]) => {
        const bytes = encodeParticipant(GRAPH_EDGE, chunked(GRAPH_EDGE, shuffled, cuts));
        expect(Buffer.from(bytes).equals(Buffer.from(encodeRecords(GRAPH_EDGE, records)))).toBe(true);
        const back = recordsFromTable(GRAPH_EDGE, decodeParticipant(GRAPH_EDGE, bytes));
        for (let i = 1; i < back.length; i++) {
          const a = back[i - 1] as Record<string, string>;
          const b = back[i] as Record<string, string>;
          const c =
            utf8Order(a.source_node_uuid as string, b.source_node_uuid as string) ||
            utf8Order(a.target_node_uuid as string, b.target_node_uuid as string) ||
            utf8Order(a.kind as string, b.kind as string);
          expect(c).toBeLessThan(0);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('JSON participants are one canonical document whatever the record order', () => {
    // workspace_configuration@1 rows (field, canonical JSON value) in any order give one document.
    const value = fc
      .jsonValue({ maxDepth: 2 })
      .map((v) => canonicalJsonOrNull(v))
      .filter((v): v is string => v !== null);
    const fields = WORKSPACE_CONFIGURATION.documentFields ?? [];
    fc.assert(
      fc.property(fc.tuple(...fields.map(() => value)), fc.array(fc.nat(), { minLength: fields.length, maxLength: fields.length }), (values, keys) => {
        const records = fields.map((field, i) => ({ field, value: values[i] as string }));
        const shuffled = records.map((r, i) => [keys[i] as number, r] as const).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
        const a = encodeRecords(WORKSPACE_CONFIGURATION, records);
        const b = encodeRecords(WORKSPACE_CONFIGURATION, shuffled);
        expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
        const text = Buffer.from(a).toString('utf8');
        expect(Object.keys(JSON.parse(text) as object)).toEqual([...fields]);
        const back = recordsFromTable(WORKSPACE_CONFIGURATION, decodeParticipant(WORKSPACE_CONFIGURATION, a));
        expect(back.map((r) => r.field)).toEqual([...fields].sort(utf8Order));
        expect(back.map((r) => r.value)).toEqual(back.map((r) => records.find((x) => x.field === r.field)?.value));
      }),
      { numRuns: 40 },
    );
  });
});
