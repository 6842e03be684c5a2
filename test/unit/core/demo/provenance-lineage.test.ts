import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeStore } from '../../../../core/demo/graph-store';
import { lineageChange } from '../../../../core/demo/provenance-lineage';
import { rngFor } from '../../../../core/demo/rng';
import { participantFromColumns } from '../../../../core/demo/tables';
import { PROVENANCE_LINEAGE } from '../../../../core/participants/index';

/** The row-per-cell reference (the demo's former code), encoded by the canonical encoder (which sorts). */
function reference(nodes: NodeStore, ev: readonly string[]): Uint8Array {
  const lin = { event_uuid: [] as string[], entity_kind: [] as string[], entity_uuid: [] as string[], role: [] as string[] };
  const seen = new Set<string>();
  ev.forEach((e, i) => {
    const add = (kind: string, entity: string, role: string): void => {
      const key = `${e}|${kind}|${entity}|${role}`;
      if (seen.has(key)) return;
      seen.add(key);
      lin.event_uuid.push(e);
      lin.entity_kind.push(kind);
      lin.entity_uuid.push(entity);
      lin.role.push(role);
    };
    add('node', nodes.uuidText((i * 7) % nodes.length), 'generated');
    add('node', nodes.uuidText((i * 13 + 1) % nodes.length), 'used');
    if (i > 0) add('event', ev[i - 1] as string, 'used');
  });
  return participantFromColumns(PROVENANCE_LINEAGE, lin);
}

describe('lineageChange (streamed demo lineage)', () => {
  it.each([
    [1, 5, 40], // 7i = 13i + 1 (mod 5) when i = 4 (mod 5): those events generated and used the same node
    [5, 7, 30], // the same for i = 1 (mod 7)
    [11, 500, 300],
  ])('gives the canonical encoder’s exact bytes (seed %i, %i nodes, %i events)', (seed, nodeCount, eventCount) => {
    const rng = rngFor(seed, 'lineage-test');
    const nodes = new NodeStore(rngFor(seed, 'node-uuids'));
    nodes.add(rng, nodeCount, ['paper', 'author'], 100n);
    const ev = Array.from({ length: eventCount }, () => rng.uuid());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-lineage-'));
    try {
      const change = lineageChange(nodes, ev, path.join(dir, 'lineage.arrow'));
      if (change.kind !== 'put-file') throw new Error('expected a put-file');
      expect(fs.readFileSync(change.path).equals(Buffer.from(reference(nodes, ev)))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
