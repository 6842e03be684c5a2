import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tableToIPC } from 'apache-arrow';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { writeParticipantFile } from '../../../../core/demo/ipc-file-writer';
import type { StreamColumn } from '../../../../core/demo/ipc-file-writer';
import { buildColumn, tableOfColumns } from '../../../../core/participants/columns';
import { GRAPH_EDGE, GRAPH_NODE } from '../../../../core/participants/index';
import type { CellValue, RecordFamily } from '../../../../core/participants/index';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-ipc-writer-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const uuid = fc.uint8Array({ minLength: 16, maxLength: 16 });
const text = fc.option(fc.string({ unit: 'binary', maxLength: 12 }), { nil: null });
const f64 = fc.option(fc.double({ noNaN: true }), { nil: null });
const ts = fc.option(fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }), { nil: null });
const hex = (b: Uint8Array): string => {
  const h = Buffer.from(b).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** The streamed file and the canonical in-memory encoding of the same cells (`buildColumn` + `tableToIPC`). */
function both(family: RecordFamily, cells: readonly (readonly unknown[])[], windowRows: number): { streamed: Buffer; expected: Buffer; sha: string } {
  const n = cells[0]?.length ?? 0;
  const columns: StreamColumn[] = family.fields.map((f, i) => {
    const c = cells[i] as readonly unknown[];
    if (f.kind === 'uuid') return { kind: 'uuid', fill: (r: number, out: Uint8Array, at: number) => out.set(c[r] as Uint8Array, at) };
    if (f.kind === 'utf8') return { kind: 'utf8', get: (r: number) => c[r] as string | null };
    if (f.kind === 'float64') return { kind: 'float64', get: (r: number) => c[r] as number | null };
    return { kind: 'timestamp', get: (r: number) => c[r] as bigint | null };
  });
  const file = path.join(dir, `${family.recordFamilyId}-${Math.random().toString(16).slice(2)}.arrow`);
  const written = writeParticipantFile(file, family.schema, columns, n, windowRows);
  const streamed = fs.readFileSync(file);
  fs.rmSync(file);
  expect(written.byteLength).toBe(streamed.length);
  const data = family.fields.map((f, i) => buildColumn(f, (cells[i] as readonly unknown[]).map((v) => (f.kind === 'uuid' ? hex(v as Uint8Array) : v)) as CellValue[]));
  return { streamed, expected: Buffer.from(tableToIPC(tableOfColumns(family.schema, data, n), 'file')), sha: written.sha256 };
}

describe('writeParticipantFile (streamed single-batch Arrow IPC file)', () => {
  it('writes exactly tableToIPC’s bytes, and their SHA-256, at any window size (nulls, multi-byte text, empty)', () => {
    // graph_edge@1: two UUIDs, required text, nullable float64, timestamp. graph_node@1: UUID, texts (one nullable), timestamps (one nullable).
    const edge = fc.integer({ min: 0, max: 40 }).chain((n) =>
      fc.tuple(fc.array(uuid, { minLength: n, maxLength: n }), fc.array(uuid, { minLength: n, maxLength: n }), fc.array(fc.string({ maxLength: 9 }), { minLength: n, maxLength: n }), fc.array(f64, { minLength: n, maxLength: n }), fc.array(fc.bigInt({ min: 0n, max: 2n ** 60n }), { minLength: n, maxLength: n })),
    );
    const node = fc.integer({ min: 0, max: 40 }).chain((n) =>
      fc.tuple(fc.array(uuid, { minLength: n, maxLength: n }), fc.array(fc.string({ minLength: 1, maxLength: 6 }), { minLength: n, maxLength: n }), fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), { minLength: n, maxLength: n }), fc.array(text, { minLength: n, maxLength: n }), fc.array(fc.bigInt({ min: 0n, max: 2n ** 60n }), { minLength: n, maxLength: n }), fc.array(ts, { minLength: n, maxLength: n })),
    );
    fc.assert(
      fc.property(fc.oneof(edge.map((c) => [GRAPH_EDGE, c] as const), node.map((c) => [GRAPH_NODE, c] as const)), fc.integer({ min: 1, max: 9 }), ([family, cells], windowRows) => {
        const { streamed, expected, sha } = both(family, cells, windowRows);
        expect(streamed.equals(expected)).toBe(true);
        expect(sha).toBe(createHash('sha256').update(expected).digest('hex'));
      }),
      { numRuns: 60 },
    );
  });
});
