import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toHex } from '../../../../core/canonical';
import type { Table } from 'apache-arrow';
import { CHANGE_CACHE_DIR, DiskChangeCache, changesTable } from '../../../../core/diff/changes-cache';
import { ChangeList, KIND_MODIFIED } from '../../../../core/diff/changes-list';
import { adapterOfFamily } from '../../../../core/diff/plan-adapters';
import { diffAllRecords, diffEndpoints } from '../../../../core/diff/page-diff';
import { selectorsDigest } from '../../../../core/diff/page-token';
import { resolveDiffParams } from '../../../../core/diff/plan-request';
import type { ChangeCache } from '../../../../core/diff/changes-cache';
import type { DiffPage } from '../../../../core/diff/index';
import { changeChunkKey, chunkCounts, loadChunk, loadWholeList, storeWholeList } from '../../../../core/diff/changes-cache';
import { GRAPH_EDGE, GRAPH_NODE } from '../../../../core/participants';
import { SECRET, endpoint, storedRecords, uuidOf } from './diff-support';

const T0 = 1_750_000_000_000_000n;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function nodes(n: number, edit: number): object[] {
  return Array.from({ length: n }, (_, i) => ({
    node_uuid: uuidOf(`c-${i}`),
    class_id: 'Paper',
    label: i % edit === 0 ? `edited ${i}` : `n ${i}`,
    properties: null,
    created_at: T0,
    updated_at: null,
  }));
}

function edges(n: number, kind: string): object[] {
  return Array.from({ length: n }, (_, i) => ({ source_node_uuid: uuidOf(`c-${i}`), target_node_uuid: uuidOf(`c-${i + 1}`), kind, weight: null, created_at: T0 }));
}

function rows(p: DiffPage): string[] {
  return p.table.toArray().map((r) => JSON.stringify(r.toJSON(), (_k, v: unknown) => (v instanceof Uint8Array ? toHex(v) : v)));
}

describe('derived change-list cache', () => {
  it('answers later calls without reading participants, gives identical pages, and rebuilds a damaged entry', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-diff-cache-'));
    dirs.push(root);
    const cache = new DiskChangeCache(root);
    const reads: string[] = [];
    const a = endpoint(uuidOf('A'), [storedRecords(GRAPH_NODE, nodes(60, 1000).slice(0, 50)), storedRecords(GRAPH_EDGE, edges(20, 'cites'))], reads);
    const b = endpoint(uuidOf('B'), [storedRecords(GRAPH_NODE, nodes(60, 7).slice(5)), storedRecords(GRAPH_EDGE, edges(25, 'cites').slice(3))], reads);
    const binding = { selectorsSha256: selectorsDigest('a', 'b') };
    const all = resolveDiffParams({ scope: 'all', detail: 'records', limit: 10_000 });
    const plain = rows(diffEndpoints(a, b, all, binding, { secret: SECRET }));
    expect(plain.length).toBeGreaterThan(20);

    reads.length = 0;
    const first = rows(diffEndpoints(a, b, all, binding, { secret: SECRET, cache }));
    expect(first).toEqual(plain);
    expect(reads.length).toBe(4);
    const dir = path.join(root, ...CHANGE_CACHE_DIR);
    const files = fs.readdirSync(dir).sort();
    expect(files.filter((f) => f.endsWith('.arrow')).length).toBe(2);
    expect(files.filter((f) => f.endsWith('.sha256')).length).toBe(2);

    // Warm: no participant is read, pages walk the cached lists by binary search.
    reads.length = 0;
    const paged: string[] = [];
    let after: string | null = null;
    do {
      const p = diffEndpoints(a, b, resolveDiffParams({ scope: 'all', detail: 'records', limit: 4, after }), binding, { secret: SECRET, cache });
      paged.push(...rows(p));
      after = p.nextPageToken;
    } while (after !== null);
    expect(paged).toEqual(plain);
    expect(reads).toEqual([]);

    // A damaged entry is a miss: rebuilt from the participants, same answer.
    const victim = path.join(dir, files.find((f) => f.endsWith('.arrow')) as string);
    const bytes = fs.readFileSync(victim);
    bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] as number) ^ 0xff;
    fs.writeFileSync(victim, bytes);
    reads.length = 0;
    expect(rows(diffEndpoints(a, b, all, binding, { secret: SECRET, cache }))).toEqual(plain);
    expect(reads.length).toBe(2);
    reads.length = 0;
    expect(rows(diffEndpoints(a, b, all, binding, { secret: SECRET, cache }))).toEqual(plain);
    expect(reads).toEqual([]);
  });

  it('a streamed first page stores the prefix it found, which answers that page again without reading; a later page streams from its cursor and stores nothing', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-diff-prefix-'));
    dirs.push(root);
    const cache = new DiskChangeCache(root);
    const reads: string[] = [];
    const a = endpoint(uuidOf('A'), [storedRecords(GRAPH_NODE, nodes(400, 1000))], reads);
    const b = endpoint(uuidOf('B'), [storedRecords(GRAPH_NODE, nodes(400, 3))], reads);
    const binding = { selectorsSha256: selectorsDigest('a', 'b') };
    const page = (after: string | null): DiffPage =>
      diffEndpoints(a, b, resolveDiffParams({ scope: 'graph', detail: 'records', limit: 10, after }), binding, { secret: SECRET, cache });
    const all = rows(diffEndpoints(a, b, resolveDiffParams({ scope: 'graph', detail: 'records', limit: 10_000 }), binding, { secret: SECRET }));
    expect(all.length).toBeGreaterThan(100);
    const dir = path.join(root, ...CHANGE_CACHE_DIR);
    reads.length = 0;

    const first = page(null);
    expect(rows(first)).toEqual(all.slice(0, 10));
    expect(reads.length).toBe(2);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.arrow')).length).toBe(1); // the prefix only

    reads.length = 0;
    const again = page(null);
    expect(rows(again)).toEqual(all.slice(0, 10));
    expect(again.nextPageToken).toBe(first.nextPageToken);
    expect(reads).toEqual([]);

    // The prefix cannot answer the next page: it is streamed from its cursor (both sides seeked), nothing more is stored.
    const second = page(first.nextPageToken);
    expect(rows(second)).toEqual(all.slice(10, 20));
    expect(reads.length).toBe(2);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.arrow')).length).toBe(1);
    reads.length = 0;
    expect(rows(page(second.nextPageToken))).toEqual(all.slice(20, 30));
    expect(reads.length).toBe(2);
    // A whole diff stores the whole list, which then answers any page without reading.
    diffAllRecords(a, b, 'graph', { cache });
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.arrow')).length).toBe(2);
    reads.length = 0;
    expect(rows(page(second.nextPageToken))).toEqual(all.slice(20, 30));
    expect(reads).toEqual([]);
  });
});

describe('stored chunk counts', () => {
  // A node list of 10 rows (sorted UUIDs, mixed kinds, label/class changes) in chunks of 4.
  const adapter = adapterOfFamily(GRAPH_NODE);
  const list = new ChangeList(adapter.scope, adapter.recordFamilyId, true);
  for (let i = 0; i < 10; i++) {
    const row = list.push(i % 3);
    list.uuid.set(new Uint8Array(16).fill(i + 1), row * 16);
    list.identity.fill(i + 1, row * 32, row * 32 + 32);
    if (i % 3 === KIND_MODIFIED) list.fieldMask[row] = i % 2 === 0 ? 0b110 : 0b100;
  }
  const fields = GRAPH_NODE.fields.length;
  function memory(): ChangeCache & { readonly m: Map<string, Table> } {
    const m = new Map<string, Table>();
    return { m, load: (k) => m.get(k), store: (k, t) => void m.set(k, t) };
  }

  it('a list longer than a chunk is stored once, in chunks only; a whole read joins them row for row, and refuses a missing or foreign chunk', () => {
    const cache = memory();
    const key = 'f'.repeat(64);
    storeWholeList(cache, adapter, undefined, undefined, key, list, 4);
    expect({ whole: cache.m.has(key), entries: cache.m.size }).toEqual({ whole: false, entries: 3 });
    const joined = loadWholeList(cache, adapter, undefined, undefined, key, 4);
    expect(joined?.length).toBe(list.length);
    const same = (a: ChangeList, b: ChangeList): boolean =>
      [...Array(a.length).keys()].every((i) => JSON.stringify(a.at(i)) === JSON.stringify(b.at(i)) && a.fieldMask[i] === b.fieldMask[i]);
    expect(same(joined as ChangeList, list)).toBe(true);
    // A short list is one entry under its key.
    const short = memory();
    storeWholeList(short, adapter, undefined, undefined, key, list, 16);
    expect([...short.m.keys()]).toEqual([key]);
    expect(same(loadWholeList(short, adapter, undefined, undefined, key, 16) as ChangeList, list)).toBe(true);
    // A missing middle chunk, or a chunk of another list (another total): no whole list (the caller merges again).
    const gap = memory();
    storeWholeList(gap, adapter, undefined, undefined, key, list, 4);
    gap.m.delete(changeChunkKey(adapter, undefined, undefined, 4, 1));
    expect(loadWholeList(gap, adapter, undefined, undefined, key, 4)).toBeUndefined();
    const foreign = memory();
    storeWholeList(foreign, adapter, undefined, undefined, key, list, 4);
    foreign.m.set(changeChunkKey(adapter, undefined, undefined, 4, 2), changesTable(list, 8, 10, 11));
    expect(loadWholeList(foreign, adapter, undefined, undefined, key, 4)).toBeUndefined();
  });

  it('chunk 0 carries every chunk\'s kind and changed-field counts; counts that do not fit the list are dropped, the rows kept', () => {
    const cache = memory();
    storeWholeList(cache, adapter, undefined, undefined, 'f'.repeat(64), list, 4);
    const head = loadChunk(cache, adapter, undefined, undefined, 4, 0);
    expect(head?.counts).toEqual([chunkCounts(list, fields, 0, 4), chunkCounts(list, fields, 4, 8), chunkCounts(list, fields, 8, 10)]);
    // Kinds 0,1,2,0 | 1,2,0,1 | 2,0 by code (added, modified, removed); rows 1, 4, 7 modified: fields 1 and 2 (row 4), field 2 (rows 1, 7).
    expect(head?.counts?.map((c) => c.slice(0, 3))).toEqual([[2, 1, 1], [1, 2, 1], [1, 0, 1]]);
    expect(head?.counts?.map((c) => [c[3 + 1], c[3 + 2]])).toEqual([[0, 1], [1, 2], [0, 0]]);
    expect(loadChunk(cache, adapter, undefined, undefined, 4, 1)?.counts).toBeUndefined();
    // Counts that contradict chunk 0's own rows, or miss a chunk: the chunk still loads, without counts (filtered pages read the whole list).
    const key = changeChunkKey(adapter, undefined, undefined, 4, 0);
    for (const wrong of [[[1, 2, 1, ...new Array<number>(fields).fill(0)], chunkCounts(list, fields, 4, 8), chunkCounts(list, fields, 8, 10)], [chunkCounts(list, fields, 0, 4)]]) {
      cache.store(key, changesTable(list, 0, 4, list.length, wrong));
      const got = loadChunk(cache, adapter, undefined, undefined, 4, 0);
      expect(got?.list.length).toBe(4);
      expect(got?.counts).toBeUndefined();
    }
  });
});

describe('record indexes on disk (cache/index/)', () => {
  it('stores and loads an index by key, and says it cannot keep one where the directory is not writable', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-diff-index-'));
    dirs.push(root);
    const cache = new DiskChangeCache(root);
    const key = 'ab'.repeat(32);
    expect(cache.canStoreIndex()).toBe(true);
    expect(cache.loadIndex(key)).toBeUndefined();
    cache.storeIndex(key, new Uint8Array([1, 2, 3]));
    expect([...(cache.loadIndex(key) ?? [])]).toEqual([1, 2, 3]);
    expect(fs.readdirSync(path.join(root, 'cache', 'index'))).toEqual([`${key}.idx`]);
    // A file where the directory should be (or a read-only workspace): nothing can be kept, so nothing is built.
    const blocked = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-diff-index-'));
    dirs.push(blocked);
    fs.mkdirSync(path.join(blocked, 'cache'));
    fs.writeFileSync(path.join(blocked, 'cache', 'index'), '');
    expect(new DiskChangeCache(blocked).canStoreIndex()).toBe(false);
  });
});
