import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Table } from 'apache-arrow';
import { DIFF_ADAPTERS } from '../../../../core/diff/plan-adapters';
import { diffAllRecords } from '../../../../core/diff/page-diff';
import { diffTuning } from '../../../../core/diff/tuning';
import type { DiffAdapter } from '../../../../core/diff/plan-adapters';
import type { ChangeCache } from '../../../../core/diff/changes-cache';
import { CorruptIndexError, buildRecordIndex, changedRuns, openRecordIndex, recordIndexKey } from '../../../../core/diff/merge-record-index';
import type { RecordIndex } from '../../../../core/diff/merge-record-index';
import { WindowedParticipant } from '../../../../core/diff/merge-windowed';
import { verifiedBytes } from '../../../../core/project';
import { GRAPH_NODE } from '../../../../core/participants';
import { model, participant, rowsOf } from './block-model';
import type { Rec } from './block-model';
import { counting, rangedEndpoint, uuidOf } from './diff-support';

// The record index (content-defined chunks under a two-level Merkle
// structure) only changes how much a whole-family diff reads and merges:
// on random pairs, the diff through both indexes equals the full merge and
// the set-difference model; a damaged, torn or foreign index is never
// trusted and is rebuilt.

const ADAPTER = DIFF_ADAPTERS.find((a) => a.family === GRAPH_NODE) as DiffAdapter;
/** Every changed run merged on its own, whatever share of the rows they hold (the index path on every pair). */
const RUNS_ALWAYS = diffTuning({ index: { gapRows: 0, mergeShare: 1 } });

/** A derived store in memory: change lists and record indexes, separately droppable. */
class MemoryCache implements ChangeCache {
  readonly lists = new Map<string, Table>();
  readonly indexes = new Map<string, Uint8Array>();
  load(key: string): Table | undefined {
    return this.lists.get(key);
  }
  store(key: string, table: Table): void {
    this.lists.set(key, table);
  }
  loadIndex(key: string): Uint8Array | undefined {
    return this.indexes.get(key);
  }
  storeIndex(key: string, bytes: Uint8Array): void {
    this.indexes.set(key, Uint8Array.from(bytes));
  }
  /** Only the indexes: the next diff has no stored change list and must compute it. */
  indexesOnly(): MemoryCache {
    const c = new MemoryCache();
    for (const [k, v] of this.indexes) c.indexes.set(k, v);
    return c;
  }
}

function node(id: string, label: string, props: string | null = null, updated: bigint | null = null): Rec {
  return { node_uuid: uuidOf(id), class_id: 'Paper', label, properties: props, created_at: 1n, updated_at: updated };
}

function base(n: number, seed: number): Rec[] {
  return Array.from({ length: n }, (_, i) => node(`s${seed}-${i}`, `Label ${i}`, i % 3 === 0 ? `{"k":${i}}` : null));
}

/** One edit of a version: insertions, deletions, modifications, a reorder of the input, whole-family replacement, emptying. */
type Edit =
  | { readonly kind: 'insert'; readonly at: number; readonly n: number }
  | { readonly kind: 'delete'; readonly at: number; readonly n: number }
  | { readonly kind: 'modify'; readonly at: number; readonly n: number; readonly field: number }
  | { readonly kind: 'reorder'; readonly seed: number }
  | { readonly kind: 'replace' }
  | { readonly kind: 'empty' };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), n: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), n: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('modify' as const), at: fc.nat(), n: fc.integer({ min: 1, max: 40 }), field: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reorder' as const), seed: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'replace' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'empty' as const }) },
);

function applyEdits(from: readonly Rec[], edits: readonly Edit[], tag: string): Rec[] {
  let to = [...from];
  edits.forEach((e, k) => {
    const at = to.length === 0 ? 0 : ('at' in e ? e.at % (to.length + 1) : 0);
    if (e.kind === 'insert') to.splice(at, 0, ...Array.from({ length: e.n }, (_, i) => node(`${tag}-ins-${k}-${i}`, `New ${k}.${i}`)));
    else if (e.kind === 'delete') to.splice(at, e.n);
    else if (e.kind === 'modify') {
      for (let i = at; i < Math.min(to.length, at + e.n); i++) {
        const r = to[i] as Rec;
        to[i] = e.field === 0 ? { ...r, label: `${String(r['label'])} (edited ${k})` } : e.field === 1 ? { ...r, properties: r['properties'] === null ? '{"x":1}' : null } : { ...r, updated_at: 5n + BigInt(k) };
      }
    } else if (e.kind === 'reorder') {
      // The same records handed over in another order: the stored object is canonical (identity order) either way.
      let s = e.seed;
      for (let i = to.length - 1; i > 0; i--) {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        const j = s % (i + 1);
        [to[i], to[j]] = [to[j] as Rec, to[i] as Rec];
      }
    } else if (e.kind === 'replace') to = base(Math.max(1, to.length), 999 + k);
    else to = [];
  });
  return to;
}

function indexOf(recs: readonly Rec[]): RecordIndex {
  const p = participant(GRAPH_NODE, recs, 0);
  const w = WindowedParticipant.open(ADAPTER, verifiedBytes(p.bytes), p.entry.contentSha256);
  if (w === null) throw new Error('not a plain stored participant');
  const steps = buildRecordIndex(w, recordIndexKey(ADAPTER, p.entry.contentSha256));
  for (;;) {
    const r = steps.next();
    if (r.done === true) {
      w.release();
      if (r.value === null) throw new Error('no index');
      return r.value;
    }
  }
}

function endpoints(from: readonly Rec[], to: readonly Rec[]): { a: ReturnType<typeof rangedEndpoint>; b: ReturnType<typeof rangedEndpoint>; opened: ReturnType<typeof counting>[] } {
  const opened: ReturnType<typeof counting>[] = [];
  return { a: rangedEndpoint(uuidOf('A'), [participant(GRAPH_NODE, from, 0)], opened), b: rangedEndpoint(uuidOf('B'), [participant(GRAPH_NODE, to, 0)], opened), opened };
}

const bytesRead = (opened: readonly ReturnType<typeof counting>[]): number => opened.reduce((s, o) => s + o.stats.bytes, 0);

describe('record index: diff through both indexes equals the merge', () => {
  it('on random pairs (insertions, deletions, modifications, reorders, whole-family replacement, empty families)', { timeout: 300_000 }, () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6000 }), fc.nat(), fc.array(editArb, { minLength: 0, maxLength: 5 }), (n, seed, edits) => {
        const from = base(n, seed % 7);
        const to = applyEdits(from, edits, `t${seed}`);
        const expected = model(GRAPH_NODE, from, to);
        const merged = endpoints(from, to);
        expect(rowsOf(diffAllRecords(merged.a, merged.b, 'all'))).toEqual(expected);
        // First use: no index, the merge runs and builds both.
        const cache = new MemoryCache();
        const first = endpoints(from, to);
        expect(rowsOf(diffAllRecords(first.a, first.b, 'all', { cache }))).toEqual(expected);
        // Equal objects are unchanged (nothing read, nothing built); otherwise one index per object.
        const same = participant(GRAPH_NODE, from, 0).entry.contentSha256 === participant(GRAPH_NODE, to, 0).entry.contentSha256;
        expect(cache.indexes.size).toBe(same ? 0 : 2);
        // Next time: no change list, both indexes: only the differing chunks are merged (however many), same answer,
        // with the engine's defaults (runs coalesced, a dense mix merged straight) too.
        for (const tuning of [RUNS_ALWAYS, undefined]) {
          const indexed = endpoints(from, to);
          expect(rowsOf(diffAllRecords(indexed.a, indexed.b, 'all', { cache: cache.indexesOnly(), tuning }))).toEqual(expected);
          // And the other direction through the same indexes.
          const back = endpoints(to, from);
          expect(rowsOf(diffAllRecords(back.a, back.b, 'all', { cache: cache.indexesOnly(), tuning }))).toEqual(model(GRAPH_NODE, to, from));
        }
      }),
      { numRuns: 20 },
    );
  });

  it('reads in proportion to the change: 12 records edited among 40,000 read a small fraction of what the merge reads', () => {
    const from = base(40_000, 1);
    const to = applyEdits(from, [{ kind: 'modify', at: 100, n: 4, field: 0 }, { kind: 'insert', at: 20_000, n: 4 }, { kind: 'delete', at: 35_000, n: 4 }], 'few');
    const runs = changedRuns(indexOf(from), indexOf(to));
    const rows = runs.reduce((s, r) => s + (r.a1 - r.a0) + (r.b1 - r.b0), 0);
    expect(rows).toBeGreaterThan(0);
    // 12 scattered changes (storage is in record UUID order) among 80,000 rows of both sides: a few leaves each.
    expect(rows).toBeLessThan(0.1 * (from.length + to.length));
    const cache = new MemoryCache();
    const first = endpoints(from, to);
    diffAllRecords(first.a, first.b, 'all', { cache });
    const merge = endpoints(from, to);
    diffAllRecords(merge.a, merge.b, 'all');
    const indexed = endpoints(from, to);
    expect(rowsOf(diffAllRecords(indexed.a, indexed.b, 'all', { cache: cache.indexesOnly(), tuning: RUNS_ALWAYS }))).toEqual(model(GRAPH_NODE, from, to));
    expect(bytesRead(indexed.opened)).toBeLessThan(0.1 * bytesRead(merge.opened));
  });

  it('a store that cannot keep an index (a read-only workspace) gets no index built: the diff merges and pays for nothing more', () => {
    const from = base(3_000, 4);
    const to = applyEdits(from, [{ kind: 'modify', at: 10, n: 2, field: 0 }], 'ro');
    const readOnly = new (class extends MemoryCache {
      canStoreIndex(): boolean {
        return false;
      }
    })();
    const e = endpoints(from, to);
    expect(rowsOf(diffAllRecords(e.a, e.b, 'all', { cache: readOnly }))).toEqual(model(GRAPH_NODE, from, to));
    expect(readOnly.indexes.size).toBe(0);
  });

  it('a whole-family replacement shares no chunk: one run holds every row of both sides', () => {
    const from = base(5_000, 1);
    const to = base(5_000, 2);
    expect(changedRuns(indexOf(from), indexOf(to))).toEqual([{ a0: 0, a1: 5_000, b0: 0, b1: 5_000 }]);
    expect(changedRuns(indexOf(from), indexOf(from))).toEqual([]);
    expect(changedRuns(indexOf([]), indexOf(from))).toEqual([{ a0: 0, a1: 0, b0: 0, b1: 5_000 }]);
  });
});

describe('record index: damaged, torn or foreign indexes are detected and rebuilt', () => {
  const from = base(9_000, 3);
  const to = applyEdits(from, [{ kind: 'modify', at: 4_000, n: 3, field: 2 }], 'dmg');
  const key = recordIndexKey(ADAPTER, participant(GRAPH_NODE, from, 0).entry.contentSha256);
  const sound = indexOf(from);

  const damages: readonly { readonly name: string; damage(b: Uint8Array): Uint8Array }[] = [
    { name: 'a leaf entry edited (its top digest no longer matches)', damage: (b) => b.map((v, i) => (i === b.length - 60 ? v ^ 1 : v)) },
    { name: 'a top entry edited (the trailer digest no longer matches)', damage: (b) => b.map((v, i) => (i === 20 + 20 ? v ^ 1 : v)) },
    { name: 'torn (truncated)', damage: (b) => b.slice(0, Math.floor(b.length / 2)) },
    { name: 'foreign (the index of another object under this key)', damage: () => indexOf(to).bytes },
  ];

  for (const d of damages) {
    it(`${d.name}: the diff is still exact and the index is rebuilt`, () => {
      const damaged = d.damage(Uint8Array.from(sound.bytes));
      const opened = openRecordIndex(damaged, from.length, key);
      if (opened !== null) {
        // Sound header and tops: the damage is found when the comparison descends.
        expect(() => changedRuns(opened, indexOf(to))).toThrow(CorruptIndexError);
      }
      const cache = new MemoryCache();
      const first = endpoints(from, to);
      diffAllRecords(first.a, first.b, 'all', { cache });
      const next = cache.indexesOnly();
      next.indexes.set(key, damaged);
      const e = endpoints(from, to);
      expect(rowsOf(diffAllRecords(e.a, e.b, 'all', { cache: next }))).toEqual(model(GRAPH_NODE, from, to));
      expect(Buffer.from(next.indexes.get(key) as Uint8Array).equals(Buffer.from(sound.bytes))).toBe(true);
    });
  }
});
