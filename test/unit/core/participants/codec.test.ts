import { Dictionary, Int32, RecordBatch, Schema, Struct, Table, Utf8, makeData, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalTableBytes, orderedJson, recordFingerprintsHex } from '../../../../core/canonical';
import type { GfError } from '../../../../core/errors';
import {
  GRAPH_EDGE,
  GRAPH_NODE,
  KNOWLEDGE_CONFIDENCE_ASSESSMENT,
  RECORD_FAMILIES,
  canonicalizeParticipant,
  decodeParticipant,
  encodeParticipant,
  encodeRecords,
  recordsFromTable,
  tableFromRecords,
} from '../../../../core/participants';
import { sampleRecords, u } from './sample-workspace';

function codeOf(fn: () => unknown): { code: string; details: GfError['details'] } {
  try {
    fn();
  } catch (e) {
    const g = e as GfError;
    return { code: g.code, details: g.details };
  }
  throw new Error('expected a GF error');
}

/** The canonical records of a family in identity order, as `recordsFromTable` would give them. */
function sortedRecords(key: string): Record<string, unknown>[] {
  const family = RECORD_FAMILIES.find((f) => f.key === key);
  if (family === undefined) throw new Error(key);
  return recordsFromTable(family, canonicalizeParticipant(family, tableFromRecords(family, sampleRecords()[key] ?? [])));
}

describe('participant codec', () => {
  it.each(RECORD_FAMILIES.filter((f) => f.encoding === 'arrow').map((f) => [f.key, f] as const))(
    '%s reads and re-encodes a sliced table (Arrow JS slices value buffers, not validity) like the same rows built alone',
    (_key, family) => {
      const records = sortedRecords(family.key);
      if (records.length < 3) return;
      const whole = tableFromRecords(family, records);
      const sliced = whole.slice(1, records.length - 1);
      const alone = tableFromRecords(family, records.slice(1, -1));
      expect(recordsFromTable(family, sliced)).toEqual(recordsFromTable(family, alone));
      expect(Buffer.from(encodeParticipant(family, sliced)).equals(Buffer.from(encodeParticipant(family, alone)))).toBe(true);
    },
  );

  it.each(RECORD_FAMILIES.map((f) => [f.key, f] as const))('%s round-trips with identical bytes and records', (_key, family) => {
    const records = sampleRecords()[family.key] ?? [];
    expect(records.length).toBeGreaterThan(0);
    const table = tableFromRecords(family, records);
    const bytes = encodeParticipant(family, table);
    const decoded = decodeParticipant(family, bytes, { schemaFingerprint: family.schemaFingerprint });
    expect(decoded.numRows).toBe(records.length);
    // Identical canonical bytes (graphforge-canonical/1) before and after the round trip.
    const sorted = canonicalizeParticipant(family, table);
    expect(Buffer.from(canonicalTableBytes(decoded)).equals(Buffer.from(canonicalTableBytes(sorted)))).toBe(true);
    expect(recordFingerprintsHex(decoded, family.fingerprintDomain)).toEqual(recordFingerprintsHex(sorted, family.fingerprintDomain));
    // Same logical records (in identity order), and re-encoding is byte-identical.
    expect(recordsFromTable(family, decoded)).toEqual(sortedRecords(family.key));
    expect(Buffer.from(encodeParticipant(family, decoded)).equals(Buffer.from(bytes))).toBe(true);
    if (family.encoding === 'arrow') {
      expect(Buffer.from(bytes.subarray(0, 6)).toString('latin1')).toBe('ARROW1');
    } else {
      const text = Buffer.from(bytes).toString('utf8');
      expect(text.endsWith('}\n')).toBe(true);
      // One-document families keep the ADR's top-level field order; inside, keys are sorted as canonical JSON.
      expect(text.slice(0, -1)).toBe(family.documentFields === undefined ? canonicalJson(JSON.parse(text)) : orderedJson(JSON.parse(text)));
    }
  });

  it('sorts by identity and rejects a duplicate identity with GF_VALIDATION', () => {
    const edges = sampleRecords()['graph/edge'] ?? [];
    const sorted = recordsFromTable(GRAPH_EDGE, decodeParticipant(GRAPH_EDGE, encodeRecords(GRAPH_EDGE, edges)));
    expect(sorted.map((r) => [r.source_node_uuid, r.target_node_uuid, r.kind])).toEqual([
      [u(1), u(2), 'cites'],
      [u(1), u(3), 'authored'],
      [u(2), u(3), 'authored'],
    ]);
    const dup = [...edges, { ...edges[0], weight: 7 }];
    const e = codeOf(() => encodeRecords(GRAPH_EDGE, dup));
    expect(e.code).toBe('GF_VALIDATION');
    expect(e.details.rule).toBe('participant.identity_unique');
    expect(e.details.record_family_id).toBe('edge');
  });

  it('makes physical layout irrelevant: chunking and dictionary columns give the same bytes', () => {
    const nodes = sampleRecords()['graph/node'] ?? [];
    const one = encodeRecords(GRAPH_NODE, nodes);
    const a = tableFromRecords(GRAPH_NODE, nodes.slice(0, 1));
    const b = tableFromRecords(GRAPH_NODE, nodes.slice(1));
    const chunked = new Table(GRAPH_NODE.schema, [...a.batches, ...b.batches]);
    expect(chunked.batches.length).toBe(2);
    expect(Buffer.from(encodeParticipant(GRAPH_NODE, chunked)).equals(Buffer.from(one))).toBe(true);

    // Same logical table with class_id dictionary-encoded.
    const plain = tableFromRecords(GRAPH_NODE, nodes);
    const dictType = new Dictionary(new Utf8(), new Int32());
    const classVector = vectorFromArray(
      nodes.map((n) => n.class_id as string),
      dictType,
    );
    const fields = GRAPH_NODE.schema.fields.map((f) => (f.name === 'class_id' ? f.clone({ type: dictType }) : f));
    const schema = new Schema(fields, GRAPH_NODE.schema.metadata);
    const children = GRAPH_NODE.schema.fields.map((f) =>
      f.name === 'class_id' ? (classVector.data[0] as Data) : (plain.getChild(f.name)?.data[0] as Data),
    );
    const struct = makeData({ type: new Struct(fields), length: nodes.length, nullCount: 0, children });
    const dictTable = new Table([new RecordBatch(schema, struct)]);
    expect(dictTable.schema.fields[1]?.type).toBeInstanceOf(Dictionary);
    expect(Buffer.from(encodeParticipant(GRAPH_NODE, dictTable)).equals(Buffer.from(one))).toBe(true);
  });

  it('writes one NaN whatever the payload of the input NaN', () => {
    const f = KNOWLEDGE_CONFIDENCE_ASSESSMENT;
    const records = (sampleRecords()[f.key] ?? []).map((r, i) => (i === 1 ? { ...r, confidence: Number.NaN } : r));
    const reference = encodeRecords(f, records);
    const table = canonicalizeParticipant(f, tableFromRecords(f, records));
    const values = table.getChild('confidence')?.data[0]?.values as Float64Array;
    const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    raw.set([1, 0, 0, 0, 0, 0, 0xf8, 0xff], 8); // negative NaN with a payload, row 1
    expect(Number.isNaN(values[1])).toBe(true);
    expect(Buffer.from(encodeParticipant(f, table)).equals(Buffer.from(reference))).toBe(true);
  });

  it('keeps microsecond timestamps exact beyond double precision', () => {
    const t = 9_007_199_254_740_993_123n; // not representable as a double
    const node = { node_uuid: u(9), class_id: 'Paper', label: 'x', properties: null, created_at: t, updated_at: null };
    const back = recordsFromTable(GRAPH_NODE, decodeParticipant(GRAPH_NODE, encodeRecords(GRAPH_NODE, [node])));
    expect(back[0]?.created_at).toBe(t);
  });

  it('turns bad cells into GF_VALIDATION with a rule and a row, never the value', () => {
    const nodes = sampleRecords()['graph/node'] ?? [];
    const cases: [Record<string, unknown>, string][] = [
      [{ ...nodes[0], node_uuid: 'not-a-uuid' }, 'participant.field_type'],
      [{ ...nodes[0], label: null }, 'participant.required_field'],
      [{ ...nodes[0], created_at: 1.5 }, 'participant.field_type'],
      [{ ...nodes[0], secret_column: 'x' }, 'participant.unknown_field'],
      // A lone surrogate has no UTF-8 form: refused, never replaced.
      [{ ...nodes[0], label: 'a\uD800' }, 'participant.field_type'],
      [{ ...nodes[0], created_at: 2n ** 63n }, 'participant.field_type'],
    ];
    for (const [bad, rule] of cases) {
      const e = codeOf(() => tableFromRecords(GRAPH_NODE, [nodes[1] as object, bad]));
      expect(e.code).toBe('GF_VALIDATION');
      expect(e.details.rule).toBe(rule);
      expect(e.details.row).toBe(1);
      expect(JSON.stringify(e.details)).not.toContain('not-a-uuid');
      expect(JSON.stringify(e.details)).not.toContain('secret_column');
    }
  });

  it('reports damaged stored bytes as GF_PROJECT_CORRUPT and a foreign schema as GF_SCHEMA_MISMATCH', () => {
    const nodes = encodeRecords(GRAPH_NODE, sampleRecords()['graph/node'] ?? []);
    expect(codeOf(() => decodeParticipant(GRAPH_NODE, new Uint8Array(0))).code).toBe('GF_PROJECT_CORRUPT');
    expect(codeOf(() => decodeParticipant(GRAPH_NODE, nodes.subarray(0, 100))).code).toBe('GF_PROJECT_CORRUPT');
    const stream = tableToIPC(tableFromIPC(nodes), 'stream');
    expect(codeOf(() => decodeParticipant(GRAPH_NODE, stream)).details.problem).toBe('not_arrow_file');
    // Edge bytes read as nodes: wrong schema.
    const edges = encodeRecords(GRAPH_EDGE, sampleRecords()['graph/edge'] ?? []);
    const mismatch = codeOf(() => decodeParticipant(GRAPH_NODE, edges));
    expect(mismatch.code).toBe('GF_SCHEMA_MISMATCH');
    expect(mismatch.details.actual_schema_fingerprint).toBe(GRAPH_EDGE.schemaFingerprint);
    // A manifest that declares another fingerprint.
    expect(codeOf(() => decodeParticipant(GRAPH_NODE, nodes, { schemaFingerprint: GRAPH_EDGE.schemaFingerprint })).code).toBe(
      'GF_SCHEMA_MISMATCH',
    );
    expect(codeOf(() => encodeParticipant(GRAPH_NODE, tableFromIPC(edges))).code).toBe('GF_SCHEMA_MISMATCH');
  });

  // The JSON families are the two workspace documents: their exact bytes, non-canonical cells and damaged
  // documents are covered by test/unit/core/workspace/document-operations.test.ts.
});
