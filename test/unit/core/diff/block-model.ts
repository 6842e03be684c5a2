// The simple model of a record diff (set difference on identities plus
// canonical record fingerprints, contract order) and generated participant
// pairs with sparse to dense edits, shared by the block-merge and windowed
// property tests.
import fc from 'fast-check';
import { RecordBatch, Schema, Struct, Table, makeData } from 'apache-arrow';
import { recordFingerprints, sha256Hex, toHex } from '../../../../core/canonical';
import { tableFromRecords } from '../../../../core/participants';
import type { FieldSpec, RecordFamily } from '../../../../core/participants';
import { reencoded, stored, storedRecords, uuidOf } from './diff-support';

export type Rec = Record<string, unknown>;

const TEXT = ['a', 'b', 'B', 'é', 'e\u0301', '😀', 'ab', 'ba', 'a longer value that spans more bytes than a word'];

export function valueArb(f: FieldSpec): fc.Arbitrary<unknown> {
  const base = ((): fc.Arbitrary<unknown> => {
    if (f.enumValues !== undefined) return fc.constantFrom(...f.enumValues);
    if (f.json === true) return fc.constantFrom('{}', '{"a":1}', '[1,2]');
    switch (f.kind) {
      case 'uuid':
        return fc.integer({ min: 0, max: 5 }).map((i) => uuidOf(`v-${i}`));
      case 'digest':
        return fc.integer({ min: 1, max: 4 }).map((i) => i.toString(16).padStart(64, 'd'));
      case 'utf8':
        return fc.constantFrom(...TEXT.filter((t) => t !== ''));
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
  return f.nullable ? fc.option(base, { nil: null, freq: 3 }) : base;
}

/** Identity cells of record `i`: distinct for every `i` (enums cycle, the other identity fields make it unique). */
export function identityOf(family: RecordFamily, i: number): Rec {
  const r: Rec = {};
  for (const name of family.identityFields) {
    const f = family.fields.find((x) => x.name === name) as FieldSpec;
    if (f.enumValues !== undefined) r[name] = f.enumValues[i % f.enumValues.length];
    else if (f.kind === 'uuid') r[name] = uuidOf(`${name}-${i}`);
    else if (f.kind === 'digest') r[name] = sha256Hex(new TextEncoder().encode(`${name}-${i}`));
    else r[name] = `${name}-${i}-é`;
  }
  return r;
}

export function valuesArb(family: RecordFamily): fc.Arbitrary<Rec> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of family.fields) if (!family.identityFields.includes(f.name)) shape[f.name] = valueArb(f);
  return fc.record(shape) as fc.Arbitrary<Rec>;
}

const EDITS = ['modify', 'touch', 'touch', 'drop', 'insert', 'twin'] as const;

/** A base table of `values.length` records and an edited copy (sparse edits, so aligned runs are long). */
export function pairArb(family: RecordFamily, maxRows = 400): fc.Arbitrary<{ from: Rec[]; to: Rec[]; layout: number }> {
  const vals = valuesArb(family);
  return fc
    .integer({ min: 40, max: maxRows })
    .chain((n) =>
      fc.record({
        values: fc.array(vals, { minLength: n, maxLength: n }),
        // Edit density per mille: sparse (long aligned runs, native range comparisons) to dense.
        density: fc.constantFrom(10, 40, 250),
        ops: fc.array(fc.tuple(fc.integer({ min: 0, max: 999 }), fc.constantFrom(...EDITS)), { minLength: n, maxLength: n }),
        repl: fc.array(vals, { minLength: n, maxLength: n }),
        layout: fc.constantFrom(0, 0, 1, 7),
      }),
    )
    .map(({ values, density, ops, repl, layout }) => {
      const from: Rec[] = [];
      const to: Rec[] = [];
      values.forEach((v, i) => {
        const rec = { ...identityOf(family, 2 * i), ...v };
        from.push(rec);
        const [dice, edit] = ops[i] as [number, (typeof EDITS)[number]];
        const op = dice < density ? edit : 'keep';
        if (op === 'drop') return;
        if (op === 'modify') to.push({ ...repl[i], ...identityOf(family, 2 * i) });
        else if (op === 'touch') {
          // One field only (e.g. one text cell whose bytes shift into its neighbour's).
          const names = Object.keys(v);
          const name = names[dice % Math.max(1, names.length)];
          // A family whose every field is identity has nothing to touch.
          to.push(name === undefined ? rec : { ...rec, [name]: (repl[i] as Rec)[name] });
        }
        else if (op === 'twin') {
          // Other bytes, same canonical values: -0 for 0, and a fresh copy of everything else.
          const t: Rec = { ...rec };
          for (const f of family.fields) if (f.kind === 'float64' && t[f.name] === 0) t[f.name] = -0;
          to.push(t);
        } else to.push(rec);
        if (op === 'insert') to.push({ ...identityOf(family, 2 * i + 1), ...repl[i] });
      });
      return { from, to, layout };
    });
}

export function fps(family: RecordFamily, recs: readonly Rec[]): { rec: string[]; id: string[]; uuid: (string | null)[] } {
  if (recs.length === 0) return { rec: [], id: [], uuid: [] };
  const t = tableFromRecords(family, recs);
  const r = recordFingerprints(t, family.fingerprintDomain);
  const idFields = family.identityFields.map((n) => family.schema.fields.find((f) => f.name === n)!);
  const schema = new Schema(idFields, family.schema.metadata);
  const children = family.identityFields.map((n) => t.getChild(n)!.data[0]!);
  const projected = new Table([new RecordBatch(schema, makeData({ type: new Struct(idFields), length: t.numRows, nullCount: 0, children }))]);
  const i = recordFingerprints(projected, family.identityFingerprintDomain);
  const hex = (all: Uint8Array): string[] => recs.map((_, k) => toHex(all.subarray(k * 32, k * 32 + 32)));
  const uuid = recs.map((x) => (family.recordUuidField === null ? null : (x[family.recordUuidField] as string).replace(/-/g, '')));
  return { rec: hex(r), id: hex(i), uuid };
}

export interface Row {
  readonly kind: string;
  readonly uuid: string | null;
  readonly id: string;
  readonly fromFp: string | null;
  readonly toFp: string | null;
}

/** The model: set difference on identities, then canonical fingerprint comparison; contract order. */
export function model(family: RecordFamily, from: readonly Rec[], to: readonly Rec[]): Row[] {
  const ff = fps(family, from);
  const tf = fps(family, to);
  const key = (r: Rec): string => JSON.stringify(family.identityFields.map((n) => r[n]));
  const a = new Map(from.map((r, k) => [key(r), k] as const));
  const b = new Map(to.map((r, k) => [key(r), k] as const));
  const rows: Row[] = [];
  for (const [k, i] of a) {
    const j = b.get(k);
    if (j === undefined) rows.push({ kind: 'removed', uuid: ff.uuid[i]!, id: ff.id[i]!, fromFp: ff.rec[i]!, toFp: null });
    else if (ff.rec[i] !== tf.rec[j]) rows.push({ kind: 'modified', uuid: ff.uuid[i]!, id: ff.id[i]!, fromFp: ff.rec[i]!, toFp: tf.rec[j]! });
  }
  for (const [k, j] of b) if (!a.has(k)) rows.push({ kind: 'added', uuid: tf.uuid[j]!, id: tf.id[j]!, fromFp: null, toFp: tf.rec[j]! });
  const cmp = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  return rows.sort((x, y) => cmp(x.uuid ?? '', y.uuid ?? '') || cmp(x.id, y.id));
}

export function rowsOf(t: Table): Row[] {
  return t.toArray().map((row) => {
    const o = row.toJSON() as Record<string, Uint8Array | string | null>;
    const hex = (v: unknown): string | null => (v instanceof Uint8Array ? toHex(v) : null);
    return { kind: o.change_kind as string, uuid: hex(o.record_uuid), id: hex(o.record_identity_fingerprint) as string, fromFp: hex(o.from_record_fingerprint), toFp: hex(o.to_record_fingerprint) };
  });
}

export function participant(family: RecordFamily, recs: readonly Rec[], layout: number): ReturnType<typeof storedRecords> {
  return layout === 0 ? storedRecords(family, recs) : stored(family, reencoded(family, recs, layout), {}, recs.length);
}

