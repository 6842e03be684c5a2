import { Table, tableToIPC } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrowFileRows } from '../../../../core/canonical/arrow-file-rows';
import type { ArrowFileSource } from '../../../../core/canonical/arrow-file-rows';
import { verifyArrowFileStructure, verifyArrowFileStructureRanged } from '../../../../core/canonical/arrow-ipc-verify';
import { RECORD_FAMILIES, participantIssues, tableFromRecords, validateSnapshot } from '../../../../core/participants';
import type { RecordFamily } from '../../../../core/participants';
import { familyInput, mutatedRecords, outcome } from '../participants/mutated-tables';
import { snapshotOf } from '../participants/sample-workspace';

/** Bytes as a ranged source, counting the bytes read. */
function source(bytes: Uint8Array): ArrowFileSource & { readBytes: number } {
  const s = {
    byteLength: bytes.length,
    readBytes: 0,
    read(offset: number, length: number): Uint8Array {
      if (offset < 0 || length < 0 || offset + length > bytes.length) throw new RangeError('read outside the object');
      s.readBytes += length;
      return bytes.subarray(offset, offset + length);
    },
  };
  return s;
}

/** The family's mutated rows as one decoded table and as its single-batch Arrow IPC file read by ranges. */
function both(family: RecordFamily, input: Parameters<typeof mutatedRecords>[1]): { table: Table; rows: ArrowFileRows } {
  const built = tableFromRecords(family, mutatedRecords(family, input));
  const table = new Table(built.schema, built.batches.length === 0 ? [] : built.batches);
  const rows = ArrowFileRows.open(source(tableToIPC(table, 'file')), family.schemaFingerprint);
  if (rows === null) throw new Error(`expected the plain layout to open (${family.key}, ${table.batches.length} batches)`);
  return { table, rows };
}

/** Every cell of `t`, per field, as Arrow gives it. */
function cells(t: Table): unknown[][] {
  return t.schema.fields.map((f) => {
    const v = t.getChild(f.name);
    return Array.from({ length: t.numRows }, (_, i) => {
      const c: unknown = v?.get(i);
      return c instanceof Uint8Array ? Array.from(c) : c;
    });
  });
}

const SINGLE_BATCH_FAMILIES = RECORD_FAMILIES.filter((f) => f.encoding === 'arrow');

describe('ArrowFileRows: a stored participant read by row ranges equals its decoded table', () => {
  it('any row range has the decoded cells and null counts; domain validation gives the same issues at any window size', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SINGLE_BATCH_FAMILIES), familyInput.filter((i) => i.copies > 0), fc.nat(), fc.nat(), fc.integer({ min: 1, max: 4 }), (family, input, a, b, windowRows) => {
        const { table, rows } = both(family, input);
        expect(rows.numRows).toBe(table.numRows);
        const r0 = a % (table.numRows + 1);
        const r1 = r0 + (b % (table.numRows - r0 + 1));
        expect(cells(rows.slice(r0, r1))).toEqual(cells(table.slice(r0, r1)));
        for (const f of family.fields) expect(rows.getChild(f.name)?.nullCount).toBe(table.getChild(f.name)?.nullCount);
        expect(outcome(() => participantIssues(family, rows, 10_000, windowRows))).toEqual(outcome(() => participantIssues(family, table, 10_000)));
      }),
      { numRuns: 120 },
    );
  });

  it('snapshot validation through files reports what it reports through decoded tables', () => {
    const inputs = fc.tuple(...RECORD_FAMILIES.map(() => familyInput.filter((i) => i.copies > 0)));
    fc.assert(
      fc.property(inputs, fc.integer({ min: 1, max: 3 }), (perFamily, windowRows) => {
        const tables = new Map<string, Table>();
        const files = new Map<string, ArrowFileRows>();
        RECORD_FAMILIES.forEach((f, i) => {
          const input = perFamily[i] as Parameters<typeof mutatedRecords>[1];
          if (f.encoding !== 'arrow') {
            tables.set(f.key, tableFromRecords(f, mutatedRecords(f, input)));
            return;
          }
          const { table, rows } = both(f, input);
          tables.set(f.key, table);
          files.set(f.key, rows);
        });
        const viaFiles = { ...snapshotOf(tables), file: (key: string) => files.get(key) };
        expect(outcome(() => validateSnapshot(viaFiles, { windowRows }))).toEqual(outcome(() => validateSnapshot(snapshotOf(tables), { windowRows: 1 << 30 })));
      }),
      { numRuns: 25 },
    );
  });

  it('opens only the plain layout: another schema or two record batches is null (the caller decodes the whole object)', () => {
    const family = SINGLE_BATCH_FAMILIES.find((f) => f.key === 'graph/node') as RecordFamily;
    const table = tableFromRecords(family, mutatedRecords(family, { copies: 2, mutations: [] }));
    const bytes = tableToIPC(table, 'file');
    expect(ArrowFileRows.open(source(bytes), family.schemaFingerprint)?.numRows).toBe(table.numRows);
    expect(ArrowFileRows.open(source(bytes), '0'.repeat(64))).toBeNull();
    const split = new Table([...table.slice(0, 1).batches, ...table.slice(1).batches]);
    expect(ArrowFileRows.open(source(tableToIPC(split, 'file')), family.schemaFingerprint)).toBeNull();
    expect(ArrowFileRows.open(source(bytes.subarray(0, bytes.length - 1)), family.schemaFingerprint)).toBeNull();
  });

  it('structure verified by ranged reads gives the reason code of the whole-bytes verifier, for any one damaged byte', () => {
    const family = SINGLE_BATCH_FAMILIES.find((f) => f.key === 'graph/edge') as RecordFamily;
    const bytes = tableToIPC(tableFromRecords(family, mutatedRecords(family, { copies: 3, mutations: [] })), 'file');
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 255 }), fc.boolean(), (at, xor, nearEnd) => {
        const damaged = bytes.slice();
        // Half the damage lands in the footer and the message metadata, where the verifier reads.
        const i = nearEnd ? bytes.length - 1 - (at % Math.min(bytes.length, 600)) : at % bytes.length;
        damaged[i] = (damaged[i] as number) ^ xor;
        expect(verifyArrowFileStructureRanged(source(damaged))).toBe(verifyArrowFileStructure(damaged));
      }),
      { numRuns: 300 },
    );
  });

  it('a window reads only its rows: a one-row slice of a larger file reads a small part of it', () => {
    const family = SINGLE_BATCH_FAMILIES.find((f) => f.key === 'graph/node') as RecordFamily;
    const bytes = tableToIPC(tableFromRecords(family, mutatedRecords(family, { copies: 200, mutations: [] })), 'file');
    const s = source(bytes);
    const rows = ArrowFileRows.open(s, family.schemaFingerprint) as ArrowFileRows;
    const before = s.readBytes;
    rows.slice(7, 8);
    expect(s.readBytes - before).toBeLessThan(bytes.length / 20);
  });
});
