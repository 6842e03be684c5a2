// Builds the summary and record result tables of the contract's schemas from rows
// and change-list ranges.
import { FixedSizeBinary, RecordBatch, Struct, Table, Uint64, makeData } from 'apache-arrow';
import type { Data, Schema } from 'apache-arrow';
import { parseUuid } from '../canonical/index';
import { utf8Column } from '../participants/index';
import { RECORD_DIFF_SCHEMA, SUMMARY_DIFF_SCHEMA } from './arrow-schemas';
import type { SummaryChangeKind } from './arrow-schemas';
import { changeColumns } from './changes-list';
import type { ChangeRange } from './changes-list';

/** One summary row before it becomes Arrow (digests as 64 hex, counts as numbers). */
export interface SummaryRow {
  readonly scope: string;
  readonly capabilityId: string;
  readonly recordFamilyId: string;
  readonly changeKind: SummaryChangeKind;
  readonly fromRowCount: number | null;
  readonly toRowCount: number | null;
  readonly fromSchemaFingerprint: string | null;
  readonly toSchemaFingerprint: string | null;
  readonly fromContentSha256: string | null;
  readonly toContentSha256: string | null;
}

function validity(present: readonly boolean[]): { nullCount: number; nullBitmap?: Uint8Array } {
  let nullCount = 0;
  for (const p of present) if (!p) nullCount++;
  if (nullCount === 0) return { nullCount };
  const nullBitmap = new Uint8Array(Math.ceil(present.length / 8));
  present.forEach((p, i) => {
    if (p) nullBitmap[i >> 3] = (nullBitmap[i >> 3] as number) | (1 << (i & 7));
  });
  return { nullCount, nullBitmap };
}

function fixed(width: number, cells: readonly (Uint8Array | null)[]): Data {
  const data = new Uint8Array(cells.length * width);
  cells.forEach((c, i) => {
    if (c !== null) data.set(c, i * width);
  });
  return makeData({ type: new FixedSizeBinary(width), length: cells.length, data, ...validity(cells.map((c) => c !== null)) });
}

function repeated(width: number, cell: Uint8Array, n: number): Data {
  const data = new Uint8Array(n * width);
  for (let i = 0; i < n; i++) data.set(cell, i * width);
  return makeData({ type: new FixedSizeBinary(width), length: n, data, nullCount: 0 });
}

function u64(cells: readonly (number | null)[]): Data {
  const data = BigUint64Array.from(cells, (c) => BigInt(c ?? 0));
  return makeData({ type: new Uint64(), length: cells.length, data, ...validity(cells.map((c) => c !== null)) });
}

function hexCell(h: string | null): Uint8Array | null {
  return h === null ? null : new Uint8Array(Buffer.from(h, 'hex'));
}

function tableOf(schema: Schema, children: Data[], length: number): Table {
  const struct = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children });
  return new Table([new RecordBatch(schema, struct)]);
}

/** The `checkpoint_summary_diff@1` table of already sorted rows. */
export function summaryTable(fromUuid: string, toUuid: string, rows: readonly SummaryRow[]): Table {
  const n = rows.length;
  return tableOf(
    SUMMARY_DIFF_SCHEMA,
    [
      repeated(16, parseUuid(fromUuid), n),
      repeated(16, parseUuid(toUuid), n),
      utf8Column(rows.map((r) => r.scope)),
      utf8Column(rows.map((r) => r.capabilityId)),
      utf8Column(rows.map((r) => r.recordFamilyId)),
      utf8Column(rows.map((r) => r.changeKind)),
      u64(rows.map((r) => r.fromRowCount)),
      u64(rows.map((r) => r.toRowCount)),
      fixed(32, rows.map((r) => hexCell(r.fromSchemaFingerprint))),
      fixed(32, rows.map((r) => hexCell(r.toSchemaFingerprint))),
      fixed(32, rows.map((r) => hexCell(r.fromContentSha256))),
      fixed(32, rows.map((r) => hexCell(r.toContentSha256))),
    ],
    n,
  );
}

/** The `checkpoint_record_diff@1` table of already sorted runs of changes (laid end to end, one batch). */
export function recordTable(fromUuid: string, toUuid: string, ranges: readonly ChangeRange[]): Table {
  const { length, children } = changeColumns(ranges);
  return tableOf(RECORD_DIFF_SCHEMA, [repeated(16, parseUuid(fromUuid), length), repeated(16, parseUuid(toUuid), length), ...children], length);
}
