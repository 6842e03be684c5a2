import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RecordBatch, Struct, Table, Utf8, makeData, tableToIPC } from 'apache-arrow';
import { DIFF_ADAPTERS, adapterOfFamily } from '../../../../core/diff/plan-adapters';
import { diffAllRecords, diffEndpoints } from '../../../../core/diff/page-diff';
import { diffTuning } from '../../../../core/diff/tuning';
import { selectorsDigest } from '../../../../core/diff/page-token';
import { resolveDiffParams } from '../../../../core/diff/plan-request';
import type { DiffAdapter } from '../../../../core/diff/plan-adapters';
import { ChangeList } from '../../../../core/diff/changes-list';
import { lowerBound, prepareSide } from '../../../../core/diff/merge-raw-rows';
import { FamilyDiff } from '../../../../core/diff/merge-family-diff';
import { WindowedParticipant, collectWindowed } from '../../../../core/diff/merge-windowed';
import { ProjectCaches, verifiedBytes } from '../../../../core/project';
import { RECORD_FAMILIES, defineFamily, encodeRecords, tableFromRecords } from '../../../../core/participants';
import type { RecordFamily } from '../../../../core/participants';
import { model, pairArb, participant, rowsOf, valuesArb } from './block-model';
import type { Rec, Row } from './block-model';
import { SECRET, counting, endpoint, rangedEndpoint, stored, uuidOf } from './diff-support';

// The windowed record diff (participants read by row windows straight from
// their verified objects, cut at a common key, merged segment by segment)
// against the set-difference model and against the whole-object merge, with
// windows small enough that every table spans many of them.

const UUID_FAMILIES = RECORD_FAMILIES.filter((f) => f.recordUuidField !== null && f.identityFields.length === 1);
// Every stored Arrow family: composite identities (edges, links, text keys) are windowed too.
const ARROW_FAMILIES = RECORD_FAMILIES.filter((f) => f.encoding === 'arrow');
// Small windows come in as a frozen tuning (DiffEngineOptions), never by mutating the engine.

const windowsArb = fc.record({ first: fc.integer({ min: 1, max: 9 }), max: fc.integer({ min: 1, max: 70 }) }).map(({ first, max }) => ({ first, max: Math.max(first, max) }));

/** `n` graph/node records in identity order (UUIDs from `prefix`), labelled `Label i`. */
function sortedNodes(n: number, prefix: string): Rec[] {
  return Array.from({ length: n }, (_, i) => ({
    node_uuid: uuidOf(`${prefix}-${String(i).padStart(3, '0')}`),
    class_id: 'Paper',
    label: `Label ${i}`,
    properties: null,
    created_at: 1n,
    updated_at: null,
  })).sort((x, y) => (x.node_uuid < y.node_uuid ? -1 : 1));
}

function adapterOf(family: RecordFamily): DiffAdapter {
  return DIFF_ADAPTERS.find((a) => a.family === family) as DiffAdapter;
}

function drain<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}

describe('windowed record diff', () => {
  for (const family of ARROW_FAMILIES) {
    it(`agrees with the model through many small windows, whole and paged: ${family.key}`, () => {
      fc.assert(
        fc.property(pairArb(family, 160), windowsArb, fc.integer({ min: 1, max: 25 }), ({ from, to, layout }, windows, limit) => {
          const tuning = diffTuning({ windowRows: windows });
          const opened: ReturnType<typeof counting>[] = [];
          const a = rangedEndpoint(uuidOf('A'), [participant(family, from, 0)], opened);
          const b = rangedEndpoint(uuidOf('B'), [participant(family, to, layout)], opened);
          const expected = model(family, from, to);
          expect(rowsOf(diffAllRecords(a, b, 'all', { tuning }))).toEqual(expected);
          const walked: Row[] = [];
          let after: string | null = null;
          do {
            const p = diffEndpoints(a, b, resolveDiffParams({ scope: 'all', detail: 'records', limit, after }), { selectorsSha256: selectorsDigest('a', 'b') }, { secret: SECRET, tuning });
            walked.push(...rowsOf(p.table));
            after = p.nextPageToken;
          } while (after !== null);
          expect(walked).toEqual(expected);
        }),
        { numRuns: 12 },
      );
    });
  }

  for (const key of ['graph/node', 'graph/edge']) {
  it(`collectWindowed writes exactly the whole-object merge, stops at a page bound, and (record UUID) resumes from any cursor: ${key}`, () => {
    const family = ARROW_FAMILIES.find((f) => f.key === key) as RecordFamily;
    const adapter = adapterOf(family);
    const hasUuid = family.recordUuidField !== null;
    fc.assert(
      fc.property(pairArb(family, 300), windowsArb, fc.integer({ min: 1, max: 60 }), fc.nat(), ({ from, to }, windows, stopAt, pick) => {
        const fa = encodeRecords(family, from);
        const fb = encodeRecords(family, to);
        const whole = new FamilyDiff({ adapter, from: prepareSide(adapter, adapter.decode(fa)), to: prepareSide(adapter, adapter.decode(fb)) });
        const all = whole.newList();
        drain(whole.collect(all));
        const input = (bytes: Uint8Array, sha: string): { participant: WindowedParticipant; contentSha256: string } => ({
          participant: WindowedParticipant.open(adapter, verifiedBytes(bytes)) as WindowedParticipant,
          contentSha256: sha,
        });
        const streamed = new ChangeList(adapter.scope, adapter.recordFamilyId, hasUuid);
        expect(drain(collectWindowed(adapter, input(fa, `a${pick}`), input(fb, `b${pick}`), 0, 0, streamed, Number.POSITIVE_INFINITY, null, windows))).toBe('complete');
        expect(streamed.length).toBe(all.length);
        for (let i = 0; i < all.length; i++) expect(streamed.at(i)).toEqual(all.at(i));
        // A page bound: exactly the first `stopAt` changes.
        const page = new ChangeList(adapter.scope, adapter.recordFamilyId, hasUuid);
        const end = drain(collectWindowed(adapter, input(fa, `c${pick}`), input(fb, `d${pick}`), 0, 0, page, stopAt, null, windows));
        expect(end).toBe(all.length > stopAt ? 'stopped' : all.length < stopAt ? 'complete' : end);
        expect(page.length).toBe(Math.min(stopAt, all.length));
        for (let i = 0; i < page.length; i++) expect(page.at(i)).toEqual(all.at(i));
        // Resuming after change k (seeking both sides past its UUID) gives the rest, in order.
        if (hasUuid && all.length > 0) {
          const k = pick % all.length;
          const cursor = all.uuid.slice(k * 16, k * 16 + 16);
          const A = input(fa, `e${pick}`);
          const B = input(fb, `f${pick}`);
          const rest = new ChangeList(adapter.scope, adapter.recordFamilyId, true);
          drain(collectWindowed(adapter, A, B, A.participant.seekAfter(cursor), B.participant.seekAfter(cursor), rest, Number.POSITIVE_INFINITY, null, windows));
          expect(rest.length).toBe(all.length - k - 1);
          for (let i = 0; i < rest.length; i++) expect(rest.at(i)).toEqual(all.at(k + 1 + i));
        }
      }),
      { numRuns: 30 },
    );
  });
  }

  it('a first page reads a small part of large participants; the whole diff reads each byte about once', () => {
    const family = UUID_FAMILIES.find((f) => f.key === 'graph/node') as RecordFamily;
    const n = 40_000;
    const rec = (i: number, label: string): Rec => ({
      node_uuid: uuidOf(`n-${String(i).padStart(6, '0')}`),
      class_id: 'Paper',
      label,
      properties: i % 3 === 0 ? null : '{"a":1}',
      created_at: 1_750_000_000_000_000n + BigInt(i),
      updated_at: null,
    });
    const from = Array.from({ length: n }, (_, i) => rec(i, `Node ${i}`));
    const to = from.map((r, i) => (i % 7 === 5 ? { ...r, label: `Node ${i} (edited)` } : r));
    const opened: ReturnType<typeof counting>[] = [];
    const a = rangedEndpoint(uuidOf('A'), [stored(family, encodeRecords(family, from), {}, n)], opened);
    const b = rangedEndpoint(uuidOf('B'), [stored(family, encodeRecords(family, to), {}, n)], opened);
    const p = diffEndpoints(a, b, resolveDiffParams({ scope: 'graph', detail: 'records', limit: 100 }), { selectorsSha256: selectorsDigest('a', 'b') }, { secret: SECRET });
    expect(p.table.numRows).toBe(100);
    const size = opened.reduce((s, o) => s + o.byteLength, 0);
    const pageBytes = opened.reduce((s, o) => s + o.stats.bytes, 0);
    expect(opened).toHaveLength(2);
    expect(pageBytes).toBeLessThan(size / 10);
    opened.length = 0;
    const all = diffAllRecords(a, b, 'graph');
    expect(all.numRows).toBe(from.filter((_, i) => i % 7 === 5).length);
    const wholeBytes = opened.reduce((s, o) => s + o.stats.bytes, 0);
    expect(wholeBytes).toBeGreaterThan(size * 0.9);
    expect(wholeBytes).toBeLessThan(size * 1.5);
  });

  it('a side out of identity order ends the windowed stream as unsorted, and the diff falls back to the canonicalized objects', () => {
    const family = UUID_FAMILIES.find((f) => f.key === 'graph/node') as RecordFamily;
    const adapter = adapterOf(family);
    fc.assert(
      fc.property(pairArb(family, 120), windowsArb, fc.nat(), ({ from, to }, windows, pick) => {
        // Encoded as given (no canonical sort): two records swapped.
        const i = pick % (to.length - 1);
        const shuffled = [...to];
        [shuffled[i], shuffled[i + 1]] = [shuffled[i + 1] as Rec, shuffled[i] as Rec];
        const raw = tableToIPC(tableFromRecords(family, shuffled) as Table, 'file');
        const streamed = new ChangeList(adapter.scope, adapter.recordFamilyId, true);
        const A = { participant: WindowedParticipant.open(adapter, verifiedBytes(encodeRecords(family, from))) as WindowedParticipant, contentSha256: `x${pick}` };
        const B = { participant: WindowedParticipant.open(adapter, verifiedBytes(raw)) as WindowedParticipant, contentSha256: `y${pick}` };
        expect(drain(collectWindowed(adapter, A, B, 0, 0, streamed, Number.POSITIVE_INFINITY, null, windows))).toBe('unsorted');
        const a = endpoint(uuidOf('A'), [participant(family, from, 0)]);
        const b = endpoint(uuidOf('B'), [stored(family, raw, {}, to.length)]);
        expect(rowsOf(diffAllRecords(a, b, 'all', { tuning: diffTuning({ windowRows: windows }) }))).toEqual(model(family, from, to));
      }),
      { numRuns: 15 },
    );
  });
});

describe('windowed participant reader', () => {
  // Every column kind the reader handles, including booleans and 32-bit integers no UUID family uses today.
  const WIDE = defineFamily({
    capabilityId: 'test',
    capabilityVersion: 1,
    recordFamilyId: 'wide',
    recordVersion: 1,
    scope: 'graph',
    encoding: 'arrow',
    description: 'test family with every column kind',
    fields: [
      { name: 'row_uuid', kind: 'uuid', nullable: false },
      { name: 'flag', kind: 'bool', nullable: true },
      { name: 'small', kind: 'int32', nullable: true },
      { name: 'count', kind: 'uint32', nullable: false },
      { name: 'ratio', kind: 'float64', nullable: true },
      { name: 'text', kind: 'utf8', nullable: true },
      { name: 'seen', kind: 'timestamp_us', nullable: true },
      { name: 'digest', kind: 'digest', nullable: true },
      { name: 'other', kind: 'uuid', nullable: true },
    ],
    identityFields: ['row_uuid'],
    recordUuidField: 'row_uuid',
  });
  const adapter = adapterOfFamily(WIDE);

  it('reads any row window with the same logical values as the whole decoded table', () => {
    const recsArb = fc.array(valuesArb(WIDE), { minLength: 1, maxLength: 90 }).map((vals) =>
      vals.map((v, i) => ({ ...v, row_uuid: uuidOf(`w-${String(i).padStart(3, '0')}`) })).sort((x, y) => Buffer.compare(Buffer.from((x.row_uuid as string).replace(/-/g, ''), 'hex'), Buffer.from((y.row_uuid as string).replace(/-/g, ''), 'hex'))),
    );
    fc.assert(
      fc.property(recsArb, fc.nat(), fc.nat(), (recs, x, y) => {
        const bytes = encodeRecords(WIDE, recs);
        const whole = adapter.decode(bytes);
        const w = WindowedParticipant.open(adapter, verifiedBytes(bytes)) as WindowedParticipant;
        expect(w).not.toBeNull();
        expect(w.rows).toBe(recs.length);
        const r0 = x % (recs.length + 1);
        const r1 = r0 + (y % (recs.length - r0 + 1));
        const side = w.window(r0, r1);
        expect(side.rows).toBe(r1 - r0);
        expect(side.table.toArray().map((r) => r.toJSON())).toEqual(whole.slice(r0, r1).toArray().map((r) => r.toJSON()));
      }),
      { numRuns: 150 },
    );
  });

  it('a released participant hands its window buffers to the next one of the family (values stay exact) and cannot be read again', () => {
    const recsOf = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ row_uuid: uuidOf(`${prefix}-${String(i).padStart(3, '0')}`), flag: i % 2 === 0, small: i, count: i, ratio: null, text: `${prefix} text ${i}`, seen: BigInt(i), digest: null, other: null })).sort(
        (x, y) => (x.row_uuid < y.row_uuid ? -1 : 1),
      );
    const [a, b, c] = (['ra', 'rb', 'rc'] as const).map((p) => encodeRecords(WIDE, recsOf(p, 40)));
    const rows = (bytes: Uint8Array) => adapter.decode(bytes).toArray().map((r) => r.toJSON());
    // The text column's rebased value offsets always live in the participant's own buffers (the values may be a view of the bytes).
    const textOf = (side: { table: Table }) => side.table.getChild('text')?.data[0]?.valueOffsets as Int32Array;
    // The pool belongs to the project the participants are read from.
    const caches = new ProjectCaches();
    const A = WindowedParticipant.open(adapter, verifiedBytes(a as Uint8Array), undefined, caches) as WindowedParticipant;
    const B = WindowedParticipant.open(adapter, verifiedBytes(b as Uint8Array), undefined, caches) as WindowedParticipant;
    const sideA = A.window(0, 40);
    const sideB = B.window(0, 40);
    // Two live participants never share buffers.
    expect(textOf(sideA).buffer).not.toBe(textOf(sideB).buffer);
    expect(sideA.table.toArray().map((r) => r.toJSON())).toEqual(rows(a as Uint8Array));
    A.release();
    expect(() => A.window(0, 1)).toThrow(/released/);
    const C = WindowedParticipant.open(adapter, verifiedBytes(c as Uint8Array), undefined, caches) as WindowedParticipant;
    const sideC = C.window(0, 40);
    expect(textOf(sideC).buffer).toBe(textOf(sideA).buffer);
    expect(sideC.table.toArray().map((r) => r.toJSON())).toEqual(rows(c as Uint8Array));
    expect(sideB.table.toArray().map((r) => r.toJSON())).toEqual(rows(b as Uint8Array));
    B.release();
    C.release();
  });

  it('seekAfter over thousands of rows (probes remembered per object, one short run read at the end) equals a search of every stored record UUID', () => {
    const node = RECORD_FAMILIES.find((f) => f.key === 'graph/node') as RecordFamily;
    // Two objects of as many different records (the same probe rows): remembered probes belong to their own object only.
    const objects = ['s', 't'].map((prefix, k) => {
      const recs = sortedNodes(2000, prefix);
      const ids = recs.map((r) => Buffer.from((r.node_uuid as string).replace(/-/g, ''), 'hex'));
      return { bytes: encodeRecords(node, recs), ids, digest: `seek-${String(k).repeat(59)}` };
    });
    // The reference: a binary search over every stored UUID in memory (what seekAfter did, one read per probe).
    const expected = (ids: readonly Buffer[], q: Uint8Array): number => lowerBound(ids.length, (r) => Buffer.compare(ids[r] as Buffer, q), false);
    const near = (id: Buffer, d: number): Uint8Array => {
      const q = Buffer.from(id);
      q[15] = Math.max(0, Math.min(255, (q[15] as number) + d));
      return q;
    };
    for (let round = 0; round < 2; round++) {
      for (const o of objects) {
        const w = WindowedParticipant.open(adapterOf(node), verifiedBytes(o.bytes), o.digest) as WindowedParticipant;
        const queries: Uint8Array[] = [new Uint8Array(16), new Uint8Array(16).fill(0xff)];
        for (const other of objects) for (const id of other.ids) queries.push(id, near(id, -1), near(id, 1));
        expect(queries.map((q) => w.seekAfter(q))).toEqual(queries.map((q) => expected(o.ids, q)));
      }
    }
  });

  it('opens only the plain stored layout with the family\'s own schema', () => {
    const node = RECORD_FAMILIES.find((f) => f.key === 'graph/node') as RecordFamily;
    const edge = RECORD_FAMILIES.find((f) => f.key === 'graph/edge') as RecordFamily;
    const recs = sortedNodes(30, 'p');
    const plain = encodeRecords(node, recs);
    expect(WindowedParticipant.open(adapterOf(node), verifiedBytes(plain))).not.toBeNull();
    // Other batch sizes, dictionaries: decoded whole instead.
    for (const layout of [1, 7]) expect(WindowedParticipant.open(adapterOf(node), verifiedBytes(participant(node, recs, layout).bytes))).toBeNull();
    // A composite identity opens too; a foreign schema, truncated or garbled bytes do not.
    const edges = [{ source_node_uuid: recs[0]!.node_uuid, target_node_uuid: recs[1]!.node_uuid, kind: 'cites', weight: null, created_at: 1n }];
    expect(WindowedParticipant.open(adapterOf(edge), verifiedBytes(encodeRecords(edge, edges)))).not.toBeNull();
    expect(WindowedParticipant.open(adapterOf(edge), verifiedBytes(plain))).toBeNull();
    expect(WindowedParticipant.open(adapter, verifiedBytes(plain))).toBeNull();
    expect(WindowedParticipant.open(adapterOf(node), verifiedBytes(plain.subarray(0, plain.length - 7)))).toBeNull();
    const garbled = plain.slice();
    garbled.fill(0xff, garbled.length - 200, garbled.length - 10);
    expect(WindowedParticipant.open(adapterOf(node), verifiedBytes(garbled))).toBeNull();
  });

  it('a verified object whose value offsets run backwards is GF_PROJECT_CORRUPT, not a crash or a wrong diff', () => {
    const node = RECORD_FAMILIES.find((f) => f.key === 'graph/node') as RecordFamily;
    const recs = sortedNodes(50, 'o');
    const good = tableFromRecords(node, recs) as Table;
    // The same table with the label column's offsets of rows 20..21 swapped (Arrow JS writes them as given).
    const cols = good.batches[0]!.data.children;
    const label = cols[2]!;
    const offsets = Int32Array.from(label.valueOffsets);
    [offsets[20], offsets[21]] = [offsets[21] as number, offsets[20] as number];
    const bad = makeData({ type: new Utf8(), length: label.length, nullCount: 0, valueOffsets: offsets, data: label.values });
    const struct = makeData({ type: new Struct(node.schema.fields), length: good.numRows, nullCount: 0, children: cols.map((c, k) => (k === 2 ? bad : c)) });
    const bytes = tableToIPC(new Table([new RecordBatch(node.schema, struct)]), 'file');
    const a = rangedEndpoint(uuidOf('A'), [stored(node, encodeRecords(node, recs), {}, recs.length)], []);
    const b = rangedEndpoint(uuidOf('B'), [stored(node, bytes, {}, recs.length)], []);
    let code = 'no error';
    try {
      diffAllRecords(a, b, 'all');
    } catch (e) {
      code = (e as { code?: string }).code ?? String(e);
    }
    expect(code).toBe('GF_PROJECT_CORRUPT');
  });
});
