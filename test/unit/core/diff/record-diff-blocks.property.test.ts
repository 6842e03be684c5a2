import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RecordBatch, Schema, Struct, Table, makeData } from 'apache-arrow';
import { recordFingerprints, sha256Hex, toHex } from '../../../../core/canonical';
import { CHANGE_CACHE_DIR, DIFF_ADAPTERS, DiskChangeCache, diffAllRecords, diffEndpoints, selectorsDigest, validateDiffParams } from '../../../../core/diff';
import { FamilyDiff } from '../../../../core/diff/record-diff';
import { bindAlignedRanges, bindIdentity, prepareSide } from '../../../../core/diff/raw-rows';
import { familyByKey, tableFromRecords } from '../../../../core/participants';
import type { FieldSpec, RecordFamily } from '../../../../core/participants';
import { SECRET, endpoint, reencoded, stored, storedRecords, uuidOf } from './diff-support';

// The block merge (aligned runs compared column by column on raw buffers,
// only differing rows hashed) against a simple model — set difference on
// identities plus canonical record fingerprints — on tables large enough
// for long aligned runs, galloping, halving and native range comparisons,
// with edits that change bytes but not canonical values (-0/+0), nulls,
// non-ASCII text, and other physical layouts on one side.

type Rec = Record<string, unknown>;

const TEXT = ['a', 'b', 'B', 'é', 'e\u0301', '😀', 'ab', 'ba', 'a longer value that spans more bytes than a word'];
const FAMILIES = ['graph/node', 'graph/edge', 'capabilities/declaration', 'knowledge/evidence_link'].map((k) => familyByKey(k) as RecordFamily);

function valueArb(f: FieldSpec): fc.Arbitrary<unknown> {
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
function identityOf(family: RecordFamily, i: number): Rec {
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

function valuesArb(family: RecordFamily): fc.Arbitrary<Rec> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of family.fields) if (!family.identityFields.includes(f.name)) shape[f.name] = valueArb(f);
  return fc.record(shape) as fc.Arbitrary<Rec>;
}

const EDITS = ['modify', 'touch', 'touch', 'drop', 'insert', 'twin'] as const;

/** A base table of `values.length` records and an edited copy (sparse edits, so aligned runs are long). */
function pairArb(family: RecordFamily, maxRows = 400): fc.Arbitrary<{ from: Rec[]; to: Rec[]; layout: number }> {
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
          const name = names[dice % names.length] as string;
          to.push({ ...rec, [name]: (repl[i] as Rec)[name] });
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

function fps(family: RecordFamily, recs: readonly Rec[]): { rec: string[]; id: string[]; uuid: (string | null)[] } {
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

interface Row {
  readonly kind: string;
  readonly uuid: string | null;
  readonly id: string;
  readonly fromFp: string | null;
  readonly toFp: string | null;
}

/** The model: set difference on identities, then canonical fingerprint comparison; contract order. */
function model(family: RecordFamily, from: readonly Rec[], to: readonly Rec[]): Row[] {
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

function rowsOf(t: Table): Row[] {
  return t.toArray().map((row) => {
    const o = row.toJSON() as Record<string, Uint8Array | string | null>;
    const hex = (v: unknown): string | null => (v instanceof Uint8Array ? toHex(v) : null);
    return { kind: o.change_kind as string, uuid: hex(o.record_uuid), id: hex(o.record_identity_fingerprint) as string, fromFp: hex(o.from_record_fingerprint), toFp: hex(o.to_record_fingerprint) };
  });
}

function participant(family: RecordFamily, recs: readonly Rec[], layout: number): ReturnType<typeof storedRecords> {
  return layout === 0 ? storedRecords(family, recs) : stored(family, reencoded(family, recs, layout), {}, recs.length);
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('block merge on raw column buffers', () => {
  for (const family of FAMILIES) {
    it(`agrees with the set-difference + fingerprint model on large sparse edits: ${family.key}`, () => {
      fc.assert(
        fc.property(pairArb(family), ({ from, to, layout }) => {
          const a = endpoint(uuidOf('A'), [participant(family, from, 0)]);
          const b = endpoint(uuidOf('B'), [participant(family, to, layout)]);
          expect(rowsOf(diffAllRecords(a, b, 'all'))).toEqual(model(family, from, to));
        }),
        { numRuns: 6 },
      );
    });
  }

  it('marks every row whose bytes differ and never a pair it proves equal (aligned ranges vs row-by-row fingerprints)', () => {
    const family = familyByKey('graph/edge') as RecordFamily;
    const adapter = DIFF_ADAPTERS.find((x) => x.family === family)!;
    fc.assert(
      fc.property(pairArb(family), fc.integer({ min: 1, max: 300 }), ({ from, to }, maxRun) => {
        const sa = prepareSide(adapter, tableFromRecords(family, from));
        const sb = prepareSide(adapter, tableFromRecords(family, to));
        const ranges = bindAlignedRanges(sa, sb);
        const cmp = bindIdentity(sa, sb);
        const hexes = (t: Table): string[] => {
          const all = t.numRows === 0 ? new Uint8Array(0) : recordFingerprints(t, family.fingerprintDomain);
          return Array.from({ length: t.numRows }, (_, k) => toHex(all.subarray(k * 32, k * 32 + 32)));
        };
        const fa = { rec: hexes(sa.table) };
        const fb = { rec: hexes(sb.table) };
        let a = 0;
        let b = 0;
        const marks = new Uint8Array(maxRun);
        while (a < sa.rows && b < sb.rows) {
          const max = Math.min(maxRun, sa.rows - a, sb.rows - b);
          const run = ranges.alignedRun(a, b, max);
          // The run is exactly the longest prefix of equal identities.
          for (let k = 0; k < run; k++) expect(cmp(a + k, b + k)).toBe(0);
          if (run < max) expect(cmp(a + run, b + run)).not.toBe(0);
          if (run === 0) {
            if (cmp(a, b) < 0) a++;
            else b++;
            continue;
          }
          ranges.markDiffering(a, b, run, marks);
          for (let k = 0; k < run; k++) {
            // Sound: an unmarked pair is canonically equal. (A marked pair may still be equal, e.g. -0 and +0.)
            if (marks[k] === 0) expect(fa.rec[a + k]).toBe(fb.rec[b + k]);
            else if (fa.rec[a + k] !== fb.rec[b + k]) expect(marks[k]).toBe(1);
          }
          marks.fill(0);
          a += run;
          b += run;
        }
      }),
      { numRuns: 8 },
    );
  });

  it('a first page streamed to limit + 1 equals the start of the whole family diff', () => {
    const family = familyByKey('graph/node') as RecordFamily;
    const adapter = DIFF_ADAPTERS.find((x) => x.family === family)!;
    fc.assert(
      fc.property(pairArb(family), fc.integer({ min: 1, max: 40 }), ({ from, to }, limit) => {
        const pair = { adapter, from: prepareSide(adapter, tableFromRecords(family, from)), to: prepareSide(adapter, tableFromRecords(family, to)) };
        const whole = new FamilyDiff(pair);
        const all = whole.newList();
        expect([...whole.collect(all)].every((e) => e.effect === 'pause')).toBe(true);
        const part = new FamilyDiff(pair);
        const some = part.newList();
        const steps = part.collect(some, 0, 0, limit + 1);
        let r = steps.next();
        while (r.done !== true) r = steps.next();
        // Complete exactly when the stream reached the end of both sides (not known when it stopped right at limit + 1).
        if (all.length < limit + 1) expect(r.value).toBe(true);
        if (all.length > limit + 1) expect(r.value).toBe(false);
        expect(some.length).toBe(Math.min(all.length, limit + 1));
        for (let i = 0; i < some.length; i++) expect(some.at(i)).toEqual(all.at(i));
      }),
      { numRuns: 10 },
    );
  });
});

describe('page seeking', () => {
  it('walking every page (seeking from each token, with a cold, warm or dropped change cache) gives exactly the unpaged rows', () => {
    const node = familyByKey('graph/node') as RecordFamily;
    const edge = familyByKey('graph/edge') as RecordFamily;
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-diff-seek-'));
    dirs.push(root);
    fc.assert(
      fc.property(pairArb(node, 200), pairArb(edge, 120), fc.integer({ min: 4, max: 60 }), fc.constantFrom('none', 'cache', 'drop'), (n, e, limit, mode) => {
        const a = endpoint(uuidOf('A'), [storedRecords(node, n.from), storedRecords(edge, e.from)]);
        const b = endpoint(uuidOf('B'), [participant(node, n.to, n.layout), storedRecords(edge, e.to)]);
        const binding = { selectorsSha256: selectorsDigest('a', 'b') };
        const all = rowsOf(diffAllRecords(a, b, 'all'));
        const cacheDir = fs.mkdtempSync(path.join(root, 'c-'));
        const cache = mode === 'none' ? undefined : new DiskChangeCache(cacheDir);
        const walked: Row[] = [];
        let after: string | null = null;
        let pages = 0;
        do {
          if (mode === 'drop') fs.rmSync(path.join(cacheDir, ...CHANGE_CACHE_DIR), { recursive: true, force: true });
          const p = diffEndpoints(a, b, validateDiffParams({ scope: 'all', detail: 'records', limit, after }), binding, { secret: SECRET, cache });
          expect(p.table.numRows).toBeLessThanOrEqual(limit);
          walked.push(...rowsOf(p.table));
          after = p.nextPageToken;
          if (after !== null) expect(p.table.numRows).toBe(limit);
          pages++;
        } while (after !== null);
        expect(walked).toEqual(all);
        expect(pages).toBe(Math.max(1, Math.ceil(all.length / limit)));
      }),
      { numRuns: 5 },
    );
  });
});
