import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toHex } from '../../../../core/canonical';
import { CHANGE_CACHE_DIR, DiskChangeCache, diffAllRecords, diffEndpoints, selectorsDigest, validateDiffParams } from '../../../../core/diff';
import type { DiffPage } from '../../../../core/diff';
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
    const all = validateDiffParams({ scope: 'all', detail: 'records', limit: 10_000 });
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
      const p = diffEndpoints(a, b, validateDiffParams({ scope: 'all', detail: 'records', limit: 4, after }), binding, { secret: SECRET, cache });
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
      diffEndpoints(a, b, validateDiffParams({ scope: 'graph', detail: 'records', limit: 10, after }), binding, { secret: SECRET, cache });
    const all = rows(diffEndpoints(a, b, validateDiffParams({ scope: 'graph', detail: 'records', limit: 10_000 }), binding, { secret: SECRET }));
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
