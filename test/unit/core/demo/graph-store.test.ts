import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeStore, NodeUuids } from '../../../../core/demo/graph-store';
import { formatUuid } from '../../../../core/canonical/index';
import { rngFor } from '../../../../core/demo/rng';
import { participantFromColumns } from '../../../../core/demo/tables';
import { GRAPH_EDGE, GRAPH_NODE } from '../../../../core/participants/index';
import type { ParticipantChange } from '../../../../core/project/index';

const CLASSES = ['paper', 'author', 'concept', 'dataset'] as const;
const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The row-per-cell reference: the same draws into JS arrays, encoded by the registry's canonical encoder (which sorts). */
function reference(seed: number, nodes: number, extra: number, curations: number, edges: number): { node: Uint8Array; edge: Uint8Array } {
  const rng = rngFor(seed, 'graph-store-test');
  const ids = new NodeUuids(rngFor(seed, 'node-uuids'));
  const uuidOf = (k: number): string => {
    const b = new Uint8Array(16);
    ids.fill(k, b, 0);
    return formatUuid(b);
  };
  const n = { uuid: [] as string[], cls: [] as string[], label: [] as string[], props: [] as (string | null)[], created: [] as bigint[], updated: [] as (bigint | null)[] };
  const add = (count: number, classes: readonly string[], t: bigint): void => {
    const base = n.uuid.length;
    for (let i = 0; i < count; i++) {
      const cls = classes[rng.int(classes.length)] as string;
      n.uuid.push(uuidOf(base + i));
      n.cls.push(cls);
      n.label.push(`${cap(cls)} ${base + i}`);
      n.props.push(rng.int(4) === 0 ? `{"year":${1990 + rng.int(35)}}` : null);
      n.created.push(t + BigInt(i));
      n.updated.push(null);
    }
  };
  add(nodes, CLASSES, 100n);
  for (let i = 0; i < curations; i++) {
    const k = i === 1 ? 0 : rng.int(n.uuid.length); // node 0 curated at least twice
    if (i === 0) n.label[0] = `${n.label[0] as string} (curated)`;
    n.label[k] = `${n.label[k] as string} (curated)`;
    n.updated[k] = 500n;
  }
  add(extra, ['software'], 900n);
  const N = n.uuid.length;
  const src: string[] = [];
  const dst: string[] = [];
  const kind: string[] = [];
  const weight: (number | null)[] = [];
  const created: bigint[] = [];
  for (let i = 0; i < edges; i++) {
    const s = i % N;
    const k = Math.floor(i / N) + 1;
    src.push(n.uuid[s] as string);
    dst.push(n.uuid[(s + k) % N] as string);
    kind.push(k === 1 ? 'cites' : `related_${k}`);
    weight.push(i % 5 === 0 ? null : Math.round(rng.float() * 1000) / 1000);
    created.push(2000n + BigInt(i));
  }
  return {
    node: participantFromColumns(GRAPH_NODE, { node_uuid: n.uuid, class_id: n.cls, label: n.label, properties: n.props, created_at: n.created, updated_at: n.updated }),
    edge: participantFromColumns(GRAPH_EDGE, { source_node_uuid: src, target_node_uuid: dst, kind, weight, created_at: created }),
  };
}

function bytesOf(c: ParticipantChange): Uint8Array {
  if (c.kind !== 'put-file') throw new Error('expected a put-file');
  return fs.readFileSync(c.path);
}

describe('NodeStore (compact demo graph)', () => {
  it.each([
    [1, 20, 3, 4, 70], // several targets per source (k up to 4), two-digit related_k excluded
    [7, 9, 1, 2, 9 * 8 + 2], // every pair: k up to 8 (related_10 absent), one software node
    [42, 300, 5, 6, 450],
  ])('gives the canonical encoder’s exact bytes (seed %i, %i nodes)', (seed, nodes, extra, curations, edges) => {
    const ref = reference(seed, nodes, extra, curations, edges);
    const rng = rngFor(seed, 'graph-store-test');
    const store = new NodeStore(rngFor(seed, 'node-uuids'));
    store.add(rng, nodes, CLASSES, 100n);
    for (let i = 0; i < curations; i++) {
      const k = i === 1 ? 0 : rng.int(store.length);
      if (i === 0) store.curate(0, 500n);
      store.curate(k, 500n);
    }
    store.add(rng, extra, ['software'], 900n);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-graph-store-'));
    try {
      const edge = bytesOf(store.edgeChange(rng, edges, 2000n, path.join(dir, 'edge.arrow')));
      expect(Buffer.from(bytesOf(store.nodeChange(path.join(dir, 'node.arrow')))).equals(Buffer.from(ref.node))).toBe(true);
      expect(Buffer.from(edge).equals(Buffer.from(ref.edge))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('adds within reserved room without growing (no copy of the columns), with the same bytes as without it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-graph-store-'));
    try {
      const build = (reserve: boolean): { capacity: number; node: Buffer } => {
        const rng = rngFor(3, 'graph-store-reserve');
        const store = new NodeStore(rngFor(3, 'node-uuids'));
        if (reserve) store.reserve(130);
        store.add(rng, 100, CLASSES, 100n);
        store.add(rng, 25, ['software'], 900n);
        return { capacity: store.capacity, node: bytesOf(store.nodeChange(path.join(dir, `node-${String(reserve)}.arrow`))) as Buffer };
      };
      const reserved = build(true);
      const plain = build(false);
      expect(reserved.capacity).toBe(130);
      expect(plain.capacity).toBe(125); // grown exactly, no slack
      expect(reserved.node.equals(plain.node)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('NodeUuids (computed node UUIDs)', () => {
  const ids = new NodeUuids(rngFor(9, 'node-uuids'));
  const probes = [0, 1, 2, 63, 64, 65_535, 65_536, 4_200_000, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff];

  it('a node’s identity key names it again (the key is a bijection of the index, and its inverse is exact)', () => {
    expect(probes.map((k) => ids.nodeOf(ids.key(k)))).toEqual(probes);
    const keys = new Set(Array.from({ length: 100_000 }, (_, k) => ids.key(k)));
    expect(keys.size).toBe(100_000);
  });

  it('the key is the UUID’s first four bytes; every UUID is version 8 with the RFC variant; other keys give other UUIDs', () => {
    const b = new Uint8Array(16);
    for (const k of probes) {
      ids.fill(k, b, 0);
      expect(new DataView(b.buffer).getUint32(0)).toBe(ids.key(k));
      expect((b[6] as number) >> 4).toBe(8);
      expect((b[8] as number) >> 6).toBe(2);
    }
    const other = new NodeUuids(rngFor(10, 'node-uuids'));
    expect(other.key(0)).not.toBe(ids.key(0));
  });
});
