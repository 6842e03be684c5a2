import { Table, tableToIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { formatUuid, parseUuid } from '../../../../core/canonical';
import { ArrowFileRows } from '../../../../core/canonical/arrow-file-rows';
import { GRAPH_NODE, tableFromRecords } from '../../../../core/participants';
import { KEY_BLOCK_ROWS, keyIndexOf } from '../../../../core/participants/window-cells';
import { rngFor } from '../../../../core/demo/rng';

const T0 = 1_750_000_000_000_000n;

/** `count` graph nodes with random UUIDs, in ascending UUID order unless `shuffled`, as a table and as its stored file read by ranges. */
function nodes(count: number, shuffled: boolean): { uuids: string[]; table: Table; rows: ArrowFileRows } {
  const rng = rngFor(7, 'key-index');
  const uuids = Array.from({ length: count }, () => {
    const b = new Uint8Array(16);
    rng.uuidInto(b, 0);
    return formatUuid(b);
  }).sort();
  if (shuffled) [uuids[0], uuids[count - 1]] = [uuids[count - 1] as string, uuids[0] as string];
  const built = tableFromRecords(
    GRAPH_NODE,
    uuids.map((node_uuid) => ({ node_uuid, class_id: 'Paper', label: 'x', properties: null, created_at: T0, updated_at: null })),
  );
  const table = new Table(built.schema, built.batches);
  const bytes = tableToIPC(table, 'file');
  const rows = ArrowFileRows.open({ byteLength: bytes.length, read: (o, l) => bytes.subarray(o, o + l) }, GRAPH_NODE.schemaFingerprint);
  if (rows === null) throw new Error('the plain layout opens by ranges');
  return { uuids, table, rows };
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
