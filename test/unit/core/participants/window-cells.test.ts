import { FixedSizeBinary, Table, makeData, tableToIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { formatUuid, parseUuid } from '../../../../core/canonical';
import { ArrowFileRows } from '../../../../core/canonical/arrow-file-rows';
import { GRAPH_NODE, tableFromRecords } from '../../../../core/participants';
import { KEY_BLOCK_ROWS, SWEEP_READ_BLOCKS, keyIndexOf } from '../../../../core/participants/window-cells';
import { rngFor } from '../../../../core/demo/rng';

const T0 = 1_750_000_000_000_000n;

/** `count` graph nodes with random UUIDs, in ascending UUID order unless `shuffled`, as a table and as its stored file read by ranges. */
function nodes(count: number, shuffled: boolean): { uuids: string[]; table: Table; rows: ArrowFileRows; reads: () => number } {
  const rng = rngFor(7, 'key-index');
  const uuids = Array.from({ length: count }, () => {
    const b = new Uint8Array(16);
    rng.uuidInto(b, 0);
    return formatUuid(b);
  }).sort();
  if (shuffled) [uuids[0], uuids[count - 1]] = [uuids[count - 1] as string, uuids[0] as string];
  return { uuids, ...nodesOf(uuids) };
}

/** Graph nodes with these UUIDs (in this order), as a table and as its stored file read by ranges (reads counted). */
function nodesOf(uuids: readonly string[]): { table: Table; rows: ArrowFileRows; reads: () => number } {
  const built = tableFromRecords(
    GRAPH_NODE,
    uuids.map((node_uuid) => ({ node_uuid, class_id: 'Paper', label: 'x', properties: null, created_at: T0, updated_at: null })),
  );
  const table = new Table(built.schema, built.batches);
  const bytes = tableToIPC(table, 'file');
  let reads = 0;
  const rows = ArrowFileRows.open(
    {
      byteLength: bytes.length,
      read: (o, l) => {
        reads++;
        return bytes.subarray(o, o + l);
      },
    },
    GRAPH_NODE.schemaFingerprint,
  );
  if (rows === null) throw new Error('the plain layout opens by ranges');
  return { table, rows, reads: () => reads };
}

/** Every key, and for each its neighbours one up and one down in the last byte (mostly absent), before the first and after the last. */
function probes(uuids: readonly string[]): string[] {
  const out = ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'];
  for (const u of uuids) {
    const b = parseUuid(u);
    out.push(u);
    for (const d of [-1, 1]) {
      const c = Uint8Array.from(b);
      c[15] = ((c[15] as number) + d + 256) % 256;
      out.push(formatUuid(c));
    }
  }
  return out;
}

describe('keyIndexOf over a stored participant read by ranges', () => {
  const count = 13 * KEY_BLOCK_ROWS + 5;

  it('a sorted UUID column holds one key per block, and answers as the copied index does (block edges, before the first, after the last)', () => {
    const { uuids, table, rows } = nodes(count, false);
    const fromFile = keyIndexOf(GRAPH_NODE, rows, 'node_uuid', 64);
    const copied = keyIndexOf(GRAPH_NODE, table, 'node_uuid', 64);
    expect(fromFile.heldBytes).toBe(Math.ceil(count / KEY_BLOCK_ROWS) * 16);
    expect(copied.heldBytes).toBe(count * 16);
    const asked = probes(uuids);
    const present = new Set(uuids);
    expect(asked.map((p) => fromFile.has(p))).toEqual(asked.map((p) => present.has(p)));
    expect(asked.map((p) => copied.has(p))).toEqual(asked.map((p) => present.has(p)));
  });

  it('an unsorted stored column is copied and sorted instead (same answers)', () => {
    const { uuids, rows } = nodes(count, true);
    const index = keyIndexOf(GRAPH_NODE, rows, 'node_uuid', 64);
    expect(index.heldBytes).toBe(count * 16);
    const asked = probes(uuids);
    const present = new Set(uuids);
    expect(asked.map((p) => index.has(p))).toEqual(asked.map((p) => present.has(p)));
  });
});

/** The probes as one fixed-width chunk in the given order, every `nullEvery`-th row null (rows nullEvery - 1, 2 nullEvery - 1, …). */
function probeChunk(asked: readonly string[], nullEvery: number) {
  const values = new Uint8Array(asked.length * 16);
  const bitmap = new Uint8Array(Math.ceil(asked.length / 8));
  asked.forEach((p, j) => {
    values.set(parseUuid(p), j * 16);
    if (j % nullEvery !== nullEvery - 1) bitmap[j >> 3] = (bitmap[j >> 3] as number) | (1 << (j & 7));
  });
  const nullCount = asked.filter((_, j) => j % nullEvery === nullEvery - 1).length;
  return makeData({ type: new FixedSizeBinary(16), length: asked.length, nullCount, nullBitmap: bitmap, data: values });
}

describe('markMissing: a batch of keys looked up at once', () => {
  // More blocks than one sweep read holds, and a last block that is not full.
  const count = (2 * SWEEP_READ_BLOCKS + 3) * KEY_BLOCK_ROWS + 7;

  it('marks exactly the present rows whose key is absent, in any probe order, across block and read boundaries', () => {
    const { uuids, table, rows } = nodes(count, false);
    const present = new Set(uuids);
    const rng = rngFor(7, 'probe-order');
    const asked = probes(uuids);
    for (let i = asked.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [asked[i], asked[j]] = [asked[j] as string, asked[i] as string];
    }
    const chunk = probeChunk(asked, 5);
    const expected = asked.map((p, j) => (j % 5 !== 4 && !present.has(p) ? 1 : 0));
    for (const index of [keyIndexOf(GRAPH_NODE, rows, 'node_uuid', 64), keyIndexOf(GRAPH_NODE, table, 'node_uuid', 64)]) {
      const out = new Uint8Array(asked.length + 3);
      index.markMissing(chunk, out, 3);
      expect([...out.subarray(3)]).toEqual(expected);
      expect([...out.subarray(0, 3)]).toEqual([0, 0, 0]);
    }
  });

  it('keys sharing their leading bytes (time-ordered UUIDs) fall in one bucket and are still looked up exactly', () => {
    const { uuids } = nodes(3 * KEY_BLOCK_ROWS, false);
    // The same first six bytes everywhere, as UUIDv7s of one millisecond have: stored again in ascending order.
    const shared = uuids.map((u) => `0190a1b2-c3d4-${u.slice(14)}`).sort();
    const { rows: sharedRows } = nodesOf(shared);
    const asked = probes(shared).reverse();
    const present = new Set(shared);
    const out = new Uint8Array(asked.length);
    keyIndexOf(GRAPH_NODE, sharedRows, 'node_uuid', 64).markMissing(probeChunk(asked, asked.length + 1), out, 0);
    expect([...out]).toEqual(asked.map((p) => (present.has(p) ? 0 : 1)));
  });

  it('over a stored file, reads each stretch of blocks once: one read per SWEEP_READ_BLOCKS blocks, however the keys are ordered', () => {
    const { uuids, rows, reads } = nodes(count, false);
    const index = keyIndexOf(GRAPH_NODE, rows, 'node_uuid', 64);
    // Every key, back to front: a lookup at a time would read a block per key.
    const asked = [...uuids].reverse();
    const before = reads();
    const out = new Uint8Array(asked.length);
    index.markMissing(probeChunk(asked, asked.length + 1), out, 0);
    expect(out.every((m) => m === 0)).toBe(true);
    expect(reads() - before).toBe(Math.ceil(Math.ceil(count / KEY_BLOCK_ROWS) / SWEEP_READ_BLOCKS));
  });
});
