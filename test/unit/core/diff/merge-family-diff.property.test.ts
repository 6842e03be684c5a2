import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RecordBatch, Schema, Struct, Table, makeData } from 'apache-arrow';
import { recordFingerprints, toHex } from '../../../../core/canonical';
import { diffAllRecords } from '../../../../core/diff/page-diff';
import { RECORD_FAMILIES, tableFromRecords } from '../../../../core/participants';
import type { FieldSpec, RecordFamily } from '../../../../core/participants';
import { endpoint, storedRecords, uuidOf } from './diff-support';

// Record diff against a simple model: set difference on identities plus
// fingerprint comparison, for every family's identity rule (UUID identity,
// composite identity, text identity), including families without record_uuid.

type Rec = Record<string, unknown>;

const UUIDS = Array.from({ length: 6 }, (_, i) => uuidOf(`p-${i}`));
const DIGESTS = Array.from({ length: 4 }, (_, i) => (i + 1).toString(16).padStart(64, 'c'));
const TEXT = ['a', 'b', 'B', 'é', 'e\u0301', '😀', 'ab', ''];

function cellArb(f: FieldSpec, identity: boolean): fc.Arbitrary<unknown> {
  const base = ((): fc.Arbitrary<unknown> => {
    if (f.enumValues !== undefined) return fc.constantFrom(...f.enumValues);
    if (f.json === true) return fc.constantFrom('{}', '{"a":1}', '[1,2]', '"x"');
    switch (f.kind) {
      case 'uuid':
        return fc.constantFrom(...UUIDS);
      case 'digest':
        return fc.constantFrom(...DIGESTS);
      case 'utf8':
        return identity ? fc.constantFrom(...TEXT.filter((t) => t !== '')) : fc.constantFrom(...TEXT);
      case 'bool':
        return fc.boolean();
      case 'int32':
        return fc.integer({ min: -3, max: 3 });
      case 'uint32':
        return fc.integer({ min: 0, max: 3 });
      case 'float64':
        return fc.constantFrom(0, -0, 0.5, 1, Number.NaN);
      case 'timestamp_us':
        return fc.constantFrom(0n, 1n, 1_750_000_000_000_000n);
    }
  })();
  return f.nullable && !identity ? fc.option(base, { nil: null }) : base;
}

function recordArb(family: RecordFamily): fc.Arbitrary<Rec> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of family.fields) shape[f.name] = cellArb(f, family.identityFields.includes(f.name));
  return fc.record(shape) as fc.Arbitrary<Rec>;
}

function idKey(family: RecordFamily, r: Rec): string {
  return JSON.stringify(family.identityFields.map((n) => r[n]));
}

function fps(family: RecordFamily, recs: readonly Rec[]): { rec: string[]; id: string[] } {
  if (recs.length === 0) return { rec: [], id: [] };
  const t = tableFromRecords(family, recs);
  const r = recordFingerprints(t, family.fingerprintDomain);
  const idFields = family.identityFields.map((n) => family.schema.fields.find((f) => f.name === n)!);
  // Identity fingerprint: the identity projection (identity fields, the family's schema metadata) as a one-row table.
  const schema = new Schema(idFields, family.schema.metadata);
  const children = family.identityFields.map((n) => t.getChild(n)!.data[0]!);
  const projected = new Table([new RecordBatch(schema, makeData({ type: new Struct(idFields), length: t.numRows, nullCount: 0, children }))]);
  const i = recordFingerprints(projected, family.identityFingerprintDomain);
  const hex = (all: Uint8Array): string[] => recs.map((_, k) => toHex(all.subarray(k * 32, k * 32 + 32)));
  return { rec: hex(r), id: hex(i) };
}

interface ModelRow {
  readonly kind: string;
  readonly uuid: string | null;
  readonly id: string;
  readonly fromFp: string | null;
  readonly toFp: string | null;
}

function model(family: RecordFamily, from: readonly Rec[], to: readonly Rec[]): ModelRow[] {
  const ff = fps(family, from);
  const tf = fps(family, to);
  const a = new Map(from.map((r, k) => [idKey(family, r), k] as const));
  const b = new Map(to.map((r, k) => [idKey(family, r), k] as const));
  const uuidOfRec = (r: Rec): string | null =>
    family.recordUuidField === null ? null : (r[family.recordUuidField] as string).replace(/-/g, '');
  const rows: ModelRow[] = [];
  for (const [key, i] of a) {
    const j = b.get(key);
    const r = from[i] as Rec;
    if (j === undefined) rows.push({ kind: 'removed', uuid: uuidOfRec(r), id: ff.id[i] as string, fromFp: ff.rec[i] as string, toFp: null });
    else if (ff.rec[i] !== tf.rec[j]) rows.push({ kind: 'modified', uuid: uuidOfRec(r), id: ff.id[i] as string, fromFp: ff.rec[i] as string, toFp: tf.rec[j] as string });
  }
  for (const [key, j] of b) {
    if (a.has(key)) continue;
    const r = to[j] as Rec;
    rows.push({ kind: 'added', uuid: uuidOfRec(r), id: tf.id[j] as string, fromFp: null, toFp: tf.rec[j] as string });
  }
  // Contract order within one family: record_uuid, then identity fingerprint.
  const cmp = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  return rows.sort((x, y) => cmp(x.uuid ?? '', y.uuid ?? '') || cmp(x.id, y.id));
}

function uniqueBy(family: RecordFamily, recs: readonly Rec[]): Rec[] {
  const seen = new Set<string>();
  return recs.filter((r) => {
    const k = idKey(family, r);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

describe('record diff matches the set-difference + fingerprint model', () => {
  // One-document families (the workspace documents) have a fixed row set, one row per document field; their
  // field-by-field diff is exercised in test/unit/core/workspace/adopt-ontology.int.test.ts.
  for (const family of RECORD_FAMILIES.filter((f) => f.documentFields === undefined)) {
    it(`${family.key} (identity ${family.identityFields.join(', ')}${family.recordUuidField === null ? ', no record_uuid' : ''})`, () => {
      const rec = recordArb(family);
      fc.assert(
        fc.property(
          fc.array(rec, { maxLength: 12 }),
          fc.array(fc.constantFrom('keep', 'modify', 'drop'), { minLength: 12, maxLength: 12 }),
          fc.array(rec, { maxLength: 12 }),
          fc.array(rec, { maxLength: 6 }),
          (fromRaw, ops, replacements, extra) => {
            const from = uniqueBy(family, fromRaw);
            const to: Rec[] = [];
            from.forEach((r, k) => {
              const op = ops[k];
              if (op === 'drop') return;
              if (op === 'modify' && replacements[k] !== undefined) {
                const m: Rec = { ...(replacements[k] as Rec) };
                for (const n of family.identityFields) m[n] = r[n];
                to.push(m);
              } else to.push(r);
            });
            const next = uniqueBy(family, [...to, ...extra]);
            const a = endpoint(uuidOf('A'), [storedRecords(family, from)]);
            const b = endpoint(uuidOf('B'), [storedRecords(family, next)]);
            const got = diffAllRecords(a, b, 'all')
              .toArray()
              .map((row) => {
                const o = row.toJSON() as Record<string, Uint8Array | string | null>;
                const hex = (v: unknown): string | null => (v instanceof Uint8Array ? toHex(v) : null);
                return {
                  kind: o.change_kind as string,
                  uuid: hex(o.record_uuid),
                  id: hex(o.record_identity_fingerprint) as string,
                  fromFp: hex(o.from_record_fingerprint),
                  toFp: hex(o.to_record_fingerprint),
                };
              });
            expect(got).toEqual(model(family, from, next));
          },
        ),
        { numRuns: 12 },
      );
    });
  }
});
