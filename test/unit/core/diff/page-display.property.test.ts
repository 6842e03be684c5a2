import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Table } from 'apache-arrow';
import { compareCells, displayFieldsOf, familyByKey } from '../../../../core/participants';
import type { CellValue, FieldSpec, RecordFamily } from '../../../../core/participants';
import { changedFieldList, parseDisplay } from '../../../../core/contract/diff';
import { microsIso } from '../../../../core/contract/time';
import { diffStat, displayPage } from '../../../../core/diff/page-display';
import { diffTuning } from '../../../../core/diff/tuning';
import { resolveDiffParams } from '../../../../core/diff/plan-request';
import type { ChangeCache } from '../../../../core/diff/changes-cache';
import type { DiffEndpoint } from '../../../../core/diff/plan-endpoint';
import { hasCode } from '../../../../core/errors';
import { SECRET, endpoint, rangedEndpoint, storedRecords, uuidOf } from './diff-support';

// The reviewer diff against a brute-force model on generated workspaces:
// exact counts and changed cells per field (checkpoints.diff_stat), display
// pages walked with and without engine-side filters, jumps, and search.
// Floats avoid -0 and NaN here: the merge marks a field changed on byte
// difference, and those are the only byte-different equal values.

type Rec = Record<string, CellValue>;

const FAMILIES = ['graph/node', 'graph/edge', 'epistemic/hypothesis', 'workspace/restoration_transition'] as const;
const NODE_IDS = Array.from({ length: 24 }, (_, i) => uuidOf(`dn-${i}`));
const WORDS = ['alpha', 'Beta', 'gamma', 'délta', 'Ω', 'x'];

function cellArb(f: FieldSpec): fc.Arbitrary<CellValue> {
  const base = ((): fc.Arbitrary<CellValue> => {
    if (f.enumValues !== undefined) return fc.constantFrom(...f.enumValues);
    if (f.json === true) return fc.constantFrom('{}', '{"a":1}');
    switch (f.kind) {
      case 'uuid':
        return fc.constantFrom(...NODE_IDS);
      case 'digest':
        return fc.constantFrom('a'.repeat(64), 'b'.repeat(64));
      case 'utf8':
        return fc.constantFrom(...WORDS);
      case 'bool':
        return fc.boolean();
      case 'int32':
      case 'uint32':
        return fc.integer({ min: 0, max: 3 });
      case 'float64':
        return fc.constantFrom(0.5, 1, 2);
      case 'timestamp_us':
        return fc.constantFrom(1n, 1_750_000_000_000_004n, -1n);
    }
  })();
  return f.nullable ? fc.option(base, { nil: null }) : base;
}

function fam(key: string): RecordFamily {
  return familyByKey(key) as RecordFamily;
}

/** Records with unique identities (the first of a duplicate identity kept). */
function uniqueBy(family: RecordFamily, recs: Rec[]): Rec[] {
  const seen = new Set<string>();
  return recs.filter((r) => {
    const k = idKey(family, r);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function idKey(family: RecordFamily, r: Rec): string {
  return JSON.stringify(family.identityFields.map((n) => String(r[n])));
}

/** A family's two sides: `from`, and `to` = some removed, some edited, some added. */
function sidesArb(family: RecordFamily): fc.Arbitrary<{ from: Rec[]; to: Rec[] }> {
  const rec = fc.record(Object.fromEntries(family.fields.map((f) => [f.name, cellArb(f)]))) as fc.Arbitrary<Rec>;
  return fc
    .record({
      from: fc.array(rec, { maxLength: 18 }),
      edits: fc.array(fc.tuple(fc.nat(), fc.constantFrom('keep', 'drop', 'edit'), rec), { maxLength: 18 }),
      added: fc.array(rec, { maxLength: 6 }),
    })
    .map(({ from, edits, added }) => {
      const a = uniqueBy(family, from);
      const byEdit = new Map(edits.map(([k, op, r]) => [k % Math.max(1, a.length), { op, r }] as const));
      const b: Rec[] = [];
      a.forEach((r, k) => {
        const e = byEdit.get(k);
        if (e?.op === 'drop') return;
        if (e?.op === 'edit') {
          // Same identity, other values.
          const next = { ...e.r };
          for (const n of family.identityFields) next[n] = r[n] as CellValue;
          b.push(next);
          return;
        }
        b.push(r);
      });
      return { from: a, to: uniqueBy(family, [...b, ...added]) };
    });
}

function same(a: CellValue, b: CellValue): boolean {
  return typeof a === typeof b && compareCells(a, b) === 0;
}

interface ModelRow {
  readonly id: string;
  readonly kind: 'added' | 'removed' | 'modified';
  readonly rec: Rec;
  readonly changed: readonly string[];
  /** The `from` version of a modified record. */
  readonly old?: Rec;
}

/** Brute force: identity sets, then field-by-field comparison of the records present on both sides. */
function model(family: RecordFamily, from: Rec[], to: Rec[]): ModelRow[] {
  const a = new Map(from.map((r) => [idKey(family, r), r] as const));
  const b = new Map(to.map((r) => [idKey(family, r), r] as const));
  const rows: ModelRow[] = [];
  for (const [k, r] of a) if (!b.has(k)) rows.push({ id: k, kind: 'removed', rec: r, changed: [] });
  for (const [k, r] of b) {
    const old = a.get(k);
    if (old === undefined) rows.push({ id: k, kind: 'added', rec: r, changed: [] });
    else {
      const changed = family.fields.map((f) => f.name).filter((n) => !same(old[n] ?? null, r[n] ?? null));
      if (changed.length > 0) rows.push({ id: k, kind: 'modified', rec: r, changed, old });
    }
  }
  return rows;
}

/** A plain Map change cache (the derived store's port, in memory) that records the row count of every table it gives out. */
function memoryCache(loaded: number[] = []): ChangeCache {
  const m = new Map<string, Table>();
  return {
    load: (k) => {
      const t = m.get(k);
      if (t !== undefined) loaded.push(t.numRows);
      return t;
    },
    store: (k, t) => void m.set(k, t),
  };
}

/** Rows per stored chunk of a whole change list here: small, so jumps cross chunks. */
const TUNING = diffTuning({ chunkRows: 4 });

interface Row {
  readonly kind: string;
  readonly uuid: string | null;
  readonly idfp: string;
  readonly rowNumber: number;
  readonly total: string | null;
  readonly display: Readonly<Record<string, string | null>>;
  readonly changed: readonly string[];
  /** `checkpoint_record_diff_values@1` only: the changed fields' values before and after (raw JSON text). */
  readonly before?: string | null;
  readonly after?: string | null;
}

function rowsOf(t: Table): Row[] {
  const g = (n: string, i: number): unknown => t.getChild(n)?.get(i) ?? null;
  const hex = (v: unknown): string | null => (v === null ? null : Buffer.from(v as Uint8Array).toString('hex'));
  return Array.from({ length: t.numRows }, (_, i) => ({
    kind: String(g('change_kind', i)),
    uuid: hex(g('record_uuid', i)),
    idfp: hex(g('record_identity_fingerprint', i)) as string,
    rowNumber: Number(g('row_number', i)),
    total: g('total_rows', i) === null ? null : String(g('total_rows', i)),
    display: parseDisplay(g('display', i) as string),
    changed: changedFieldList(g('changed_fields', i) as string | null),
    ...(t.getChild('before') === null ? {} : { before: g('before', i) as string | null, after: g('after', i) as string | null }),
  }));
}

/**
 * The expected `before`/`after` cell of a model row: a modified record's
 * changed fields on each side; an added record's every field after, a removed
 * record's every field before (schema order), null on the side it lacks.
 */
function expectedValues(family: RecordFamily, m: ModelRow, side: 'old' | 'rec'): string | null {
  const text = (v: CellValue | undefined): string | null => (v === null || v === undefined ? null : typeof v === 'bigint' ? microsIso(v) : String(v));
  if (m.kind !== 'modified') {
    if ((m.kind === 'added') !== (side === 'rec')) return null;
    return JSON.stringify(Object.fromEntries(family.fields.map((f) => [f.name, text(m.rec[f.name])])));
  }
  const rec = (side === 'old' ? m.old : m.rec) as Rec;
  return JSON.stringify(Object.fromEntries(m.changed.map((f) => [f, text(rec[f])])));
}

interface Env {
  readonly a: DiffEndpoint;
  readonly b: DiffEndpoint;
  readonly family: RecordFamily;
  readonly cache: ChangeCache | undefined;
}

const BINDING = { selectorsSha256: '0'.repeat(64) };

function page(env: Env, extra: Record<string, unknown>, after: string | null = null) {
  const params = resolveDiffParams({
    scope: 'all',
    detail: 'records',
    record_family_id: env.family.recordFamilyId,
    display: true,
    limit: 3,
    after,
    ...extra,
  });
  return displayPage(env.a, env.b, params, BINDING, { secret: SECRET, cache: env.cache, tuning: TUNING });
}

/** Every row of a display view, page by page through tokens. */
function walk(env: Env, extra: Record<string, unknown> = {}): Row[] {
  const out: Row[] = [];
  let after: string | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const p = page(env, extra, after);
    out.push(...rowsOf(p.table));
    if (p.nextPageToken === null) return out;
    after = p.nextPageToken;
  }
  throw new Error('walk did not end');
}

/** The expected display text of a field of a model record (labels resolved in the same endpoint's nodes). */
function expectedDisplay(family: RecordFamily, rec: Rec, nodes: ReadonlyMap<string, Rec>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const f of displayFieldsOf(family)) {
    let v = rec[f.field] ?? null;
    if (v === null && f.orField !== undefined) v = rec[f.orField] ?? null;
    else if (v !== null && f.labelOf !== undefined) v = (nodes.get(String(v))?.[f.labelOf.show] as CellValue | undefined) ?? v;
    out[f.name] = v === null ? null : typeof v === 'bigint' ? microsIso(v) : String(v);
  }
  return out;
}

const scenario = fc.record({
  key: fc.constantFrom(...FAMILIES),
  ranged: fc.boolean(),
  cached: fc.boolean(),
  nodes: fc.array(fc.constantFrom(...WORDS), { minLength: NODE_IDS.length, maxLength: NODE_IDS.length }),
  seed: fc.nat(),
});

describe('reviewer diff against a brute-force model', () => {
  it('exact counts and changed cells per field; filtered walks, jumps and search equal the model', () => {
    fc.assert(
      fc.property(
        scenario.chain((s) => sidesArb(fam(s.key)).map((sides) => ({ ...s, ...sides }))),
        ({ key, ranged, cached, nodes, seed, from, to }) => {
          const family = fam(key);
          // Node labels for label display fields (the same nodes on both sides).
          const nodeRecs = NODE_IDS.map((id, i) => ({ node_uuid: id, class_id: 'Paper', label: nodes[i], properties: null, created_at: 1n, updated_at: null }));
          const nodeMap = new Map(nodeRecs.map((r) => [r.node_uuid, r as Rec] as const));
          const withNodes = (recs: Rec[]) => (key === 'graph/node' ? [storedRecords(family, recs)] : [storedRecords(family, recs), storedRecords(fam('graph/node'), nodeRecs)]);
          const opened: never[] = [];
          const mk = (id: string, recs: Rec[]) => (ranged ? rangedEndpoint(id, withNodes(recs), opened) : endpoint(id, withNodes(recs)));
          const loaded: number[] = [];
          const env: Env = { a: mk(uuidOf('from'), from), b: mk(uuidOf('to'), to), family, cache: cached ? memoryCache(loaded) : undefined };
          const want = model(family, from, to);

          // Exact statistics.
          const stat = diffStat(env.a, env.b, 'all', { capabilityId: family.capabilityId, recordFamilyId: family.recordFamilyId }, { cache: env.cache, tuning: TUNING });
          const fs = stat.families.find((f) => f.record_family_id === family.recordFamilyId);
          expect(fs).toBeDefined();
          const count = (k: string): number => want.filter((r) => r.kind === k).length;
          expect([fs?.added, fs?.removed, fs?.modified]).toEqual([count('added'), count('removed'), count('modified')]);
          const cells = family.fields
            .map((f) => ({ field: f.name, records: want.filter((r) => r.changed.includes(f.name)).length }))
            .filter((c) => c.records > 0);
          expect(fs?.changed_cells).toEqual(cells);
          expect(fs?.bookkeeping).toBe(family.scope === 'workspace');

          // The unfiltered walk: every model row once, with its display values and changed fields.
          // With the list stored (cached runs), each page of it reads the stored chunks holding it, never the whole list.
          loaded.length = 0;
          const all = walk(env);
          if (cached && want.length > TUNING.chunkRows) {
            expect(loaded.length).toBeGreaterThan(0);
            expect(Math.max(...loaded)).toBeLessThanOrEqual(TUNING.chunkRows);
          }
          expect(all.length).toBe(want.length);
          expect(all.map((r) => r.rowNumber)).toEqual(all.map((_, i) => i + 1));
          const byId = new Map(want.map((w) => [w.id, w] as const));
          for (const r of all) {
            const w = [...byId.values()].find((m) => m.kind === r.kind && JSON.stringify(expectedDisplay(family, m.rec, nodeMap)) === JSON.stringify(r.display) && JSON.stringify(m.changed) === JSON.stringify(r.changed));
            expect(w, JSON.stringify(r)).toBeDefined();
          }
          expect(all.filter((r) => r.kind === 'modified').map((r) => r.changed.length > 0)).not.toContain(false);

          // With values (what an export reads): the same rows; a modified row's changed fields before and after, an added row's every field after and a removed row's every field before are the model's.
          const valued = walk(env, { changed_values: true });
          expect(valued.map((r) => r.idfp)).toEqual(all.map((r) => r.idfp));
          for (const r of valued) {
            const w = want.find(
              (m) =>
                m.kind === r.kind &&
                JSON.stringify(expectedDisplay(family, m.rec, nodeMap)) === JSON.stringify(r.display) &&
                expectedValues(family, m, 'old') === r.before &&
                expectedValues(family, m, 'rec') === r.after,
            );
            expect(w, JSON.stringify(r)).toBeDefined();
          }

          // A filtered walk equals the unfiltered walk filtered afterwards.
          const field = family.fields[seed % family.fields.length]?.name as string;
          for (const extra of [{ change_kinds: ['modified'] }, { change_kinds: ['added', 'removed'] }, { change_kinds: ['removed'] }, { changed_field: field }]) {
            const keep = (r: Row): boolean =>
              'changed_field' in extra ? r.kind === 'modified' && r.changed.includes(field) : (extra.change_kinds as string[]).includes(r.kind);
            loaded.length = 0;
            const got = walk(env, extra);
            const expected = all.filter(keep);
            expect(got.map((r) => r.idfp)).toEqual(expected.map((r) => r.idfp));
            expect(got.map((r) => r.rowNumber)).toEqual(expected.map((_, i) => i + 1));
            if (got.length > 0) expect(got[0]?.total).toBe(String(expected.length));
            // A stored list is filtered chunk by chunk (chunk 0's per-chunk counts), never loaded whole; a filtered jump is the filtered walk from there.
            if (cached && want.length > TUNING.chunkRows) expect(Math.max(0, ...loaded)).toBeLessThanOrEqual(TUNING.chunkRows);
            for (let p = 0; p <= expected.length; p += 2 + (seed % 3)) {
              loaded.length = 0;
              const jumped = rowsOf(page(env, { ...extra, position: p }).table);
              expect(jumped.map((r) => r.idfp)).toEqual(expected.slice(p, p + 3).map((r) => r.idfp));
              expect(jumped.map((r) => r.rowNumber)).toEqual(expected.slice(p, p + 3).map((_, k) => p + k + 1));
              if (cached && want.length > TUNING.chunkRows) expect(Math.max(0, ...loaded)).toBeLessThanOrEqual(TUNING.chunkRows);
            }
          }

          // Jumps: the page at any position is the walked rows from there.
          // With the list stored (cached runs), a jump in a list longer than a chunk reads stored chunks only, never the whole list.
          for (let p = 0; p <= all.length; p += 1 + (seed % 3)) {
            loaded.length = 0;
            const jumped = rowsOf(page(env, { position: p }).table);
            expect(jumped.map((r) => r.idfp)).toEqual(all.slice(p, p + 3).map((r) => r.idfp));
            expect(jumped.map((r) => r.rowNumber)).toEqual(all.slice(p, p + 3).map((_, k) => p + k + 1));
            expect(jumped.every((r) => r.total === String(all.length))).toBe(true);
            if (cached && all.length > TUNING.chunkRows) {
              expect(loaded.length).toBeGreaterThan(0);
              expect(Math.max(...loaded)).toBeLessThanOrEqual(TUNING.chunkRows);
            }
          }

          // Search: a display-text substring (case-insensitive) or a record-id prefix equals a brute-force scan.
          const probe = all[seed % Math.max(1, all.length)];
          const texts = probe === undefined ? ['alpha'] : [...Object.values(probe.display).filter((v): v is string => v !== null).map((v) => v.slice(0, 3).toUpperCase()), (probe.uuid ?? probe.idfp).slice(0, 4)];
          for (const text of texts.filter((t) => t.trim().length > 0)) {
            const needle = text.trim().normalize('NFC').toLowerCase();
            const hit = (r: Row): boolean =>
              Object.values(r.display).some((v) => v !== null && v.normalize('NFC').toLowerCase().includes(needle)) ||
              (r.uuid ?? r.idfp).startsWith(needle);
            expect(walk(env, { search: text }).map((r) => r.idfp)).toEqual(all.filter(hit).map((r) => r.idfp));
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('a page token reused with another filter is GF_PAGE_INVALID', () => {
    const family = fam('graph/node');
    const recs = (tag: string) =>
      NODE_IDS.map((id, i) => ({ node_uuid: id, class_id: 'Paper', label: `${tag}${i % 2 === 0 ? 'x' : ''}-${i}`, properties: null, created_at: 1n, updated_at: null }));
    const env: Env = { a: endpoint(uuidOf('f'), [storedRecords(family, recs('a'))]), b: endpoint(uuidOf('t'), [storedRecords(family, recs('b'))]), family, cache: undefined };
    const first = page(env, { change_kinds: ['modified'] });
    expect(first.nextPageToken).not.toBeNull();
    for (const other of [{}, { change_kinds: ['added'] }, { changed_field: 'label' }, { change_kinds: ['modified'], search: 'b' }]) {
      let code: string | undefined;
      try {
        page(env, other, first.nextPageToken);
      } catch (e) {
        code = hasCode(e, 'GF_PAGE_INVALID') ? 'GF_PAGE_INVALID' : String(e);
      }
      expect(code, JSON.stringify(other)).toBe('GF_PAGE_INVALID');
    }
    // The same filter continues.
    expect(rowsOf(page(env, { change_kinds: ['modified'] }, first.nextPageToken).table)[0]?.rowNumber).toBe(4);
  });
});
