import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeStore } from '../../../../core/demo/graph-store';
import { AssertionStore, DEMO_PREDICATES } from '../../../../core/demo/knowledge-store';
import { rngFor } from '../../../../core/demo/rng';
import { participantFromColumns } from '../../../../core/demo/tables';
import { KNOWLEDGE_ASSERTION, KNOWLEDGE_CONFIDENCE_ASSESSMENT, KNOWLEDGE_EVIDENCE_LINK } from '../../../../core/participants/index';
import type { CellValue } from '../../../../core/participants/index';
import type { ParticipantChange } from '../../../../core/project/index';

const CLASSES = ['paper', 'author', 'concept', 'dataset'] as const;

function digestHex(next: () => number): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += (next() | 0x01).toString(16).padStart(8, '0');
  return s;
}

/** The row-per-cell reference (the demo's former code): the same draws into JS arrays, encoded by the canonical encoder (which sorts). */
function reference(seed: number, nodeCount: number, events: readonly string[], batches: readonly number[]): Uint8Array[] {
  const rng = rngFor(seed, 'knowledge-store-test');
  const nodes = new NodeStore(rngFor(seed, 'node-uuids'));
  nodes.add(rng, nodeCount, CLASSES, 100n);
  const c: Record<string, CellValue[]> = {};
  const all: string[] = [];
  const out: Uint8Array[] = [];
  batches.forEach((count, b) => {
    const t = 1000n * BigInt(b + 1);
    for (let i = 0; i < count; i++) {
      const id = rng.uuid();
      all.push(id);
      (c.assertion_uuid ??= []).push(id);
      (c.subject_node_uuid ??= []).push(nodes.uuidText(rng.int(nodes.length)));
      (c.predicate ??= []).push(DEMO_PREDICATES[rng.int(DEMO_PREDICATES.length)] as string);
      const literal = rng.int(3) === 0;
      (c.object_node_uuid ??= []).push(literal ? null : nodes.uuidText(rng.int(nodes.length)));
      (c.object_literal ??= []).push(literal ? `value ${i}` : null);
      (c.event_uuid ??= []).push(events.length === 0 || i % 4 === 3 ? null : (events[rng.int(events.length)] as string));
      (c.asserted_at ??= []).push(t + BigInt(i));
    }
    out.push(participantFromColumns(KNOWLEDGE_ASSERTION, c));
    out.push(
      participantFromColumns(KNOWLEDGE_EVIDENCE_LINK, {
        assertion_uuid: all,
        evidence_sha256: all.map(() => digestHex(rng.u32)),
        stance: all.map((_, i) => (['supports', 'refutes', 'mentions'] as const)[i % 3] as string),
        locator: all.map((_, i) => (i % 2 === 0 ? `p. ${1 + (i % 300)}` : null)),
        linked_at: all.map((_, i) => t + BigInt(i)),
      }),
    );
  });
  out.push(
    participantFromColumns(KNOWLEDGE_CONFIDENCE_ASSESSMENT, {
      assessment_uuid: all.map(() => rng.uuid()),
      assertion_uuid: all,
      confidence: all.map(() => Math.round(50 + rng.float() * 50) / 100),
      method: all.map((_, i) => (['manual', 'model', 'aggregate'] as const)[i % 3] as string),
      assessed_at: all.map((_, i) => 5000n + BigInt(i)),
    }),
  );
  return out;
}

function bytesOf(c: ParticipantChange): Buffer {
  if (c.kind !== 'put-file') throw new Error('expected a put-file');
  return fs.readFileSync(c.path);
}

describe('AssertionStore (compact demo knowledge)', () => {
  it.each([
    [1, 40, 5, [30, 7]], // two adds: literals, missing events, digests drawn with the top bit set
    [9, 3, 0, [12]], // no events at all: every event cell null
    [23, 200, 17, [400, 33, 5]],
  ])('gives the canonical encoder’s exact bytes (seed %i, %i nodes, %i events)', (seed, nodeCount, eventCount, batches) => {
    const events = Array.from({ length: eventCount }, (_, i) => rngFor(seed, `event/${i}`).uuid());
    const ref = reference(seed, nodeCount, events, batches);
    const rng = rngFor(seed, 'knowledge-store-test');
    const nodes = new NodeStore(rngFor(seed, 'node-uuids'));
    nodes.add(rng, nodeCount, CLASSES, 100n);
    const store = new AssertionStore();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-knowledge-store-'));
    try {
      const got: Buffer[] = [];
      batches.forEach((count, b) => {
        const t = 1000n * BigInt(b + 1);
        store.add(rng, count, nodes, events.length, t);
        got.push(bytesOf(store.assertionChange(nodes, events, path.join(dir, `a${b}.arrow`))));
        got.push(bytesOf(store.evidenceChange(rng, t, path.join(dir, `e${b}.arrow`))));
      });
      got.push(bytesOf(store.confidenceChange(rng, 5000n, path.join(dir, 'c.arrow'))));
      expect(got.length).toBe(ref.length);
      got.forEach((g, i) => expect(g.equals(Buffer.from(ref[i] as Uint8Array)), `participant ${i}`).toBe(true));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
