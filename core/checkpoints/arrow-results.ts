// Arrow result tables of the checkpoint operations (checkpoint@1, checkpoint_receipt@1,
// checkpoint_tombstone@1): field types for the contract's column names.
import { Field, Schema, Uint64, makeData, tableToIPC } from 'apache-arrow';
import type { Data, Table } from 'apache-arrow';
import { arrowFieldOf, buildColumn, tableOfColumns } from '../participants/columns';
import type { CellValue, FieldSpec } from '../participants/columns';
import type { CheckpointRow } from './listing';
import type { CheckpointReceipt } from './registry-core';
import type { DeletedCheckpointRow } from './tombstones';
import { CHECKPOINT_COLUMNS, RECEIPT_COLUMNS, RESULT_SCHEMA_KEY, TOMBSTONE_COLUMNS } from '../contract/results';

/** Schema-metadata key naming the result schema of an Arrow result (declared by the contract). */
export { RESULT_SCHEMA_KEY };

type Col = { readonly name: string; readonly kind: FieldSpec['kind'] | 'uint64'; readonly nullable: boolean };
type ColType = Omit<Col, 'name'>;

/** Columns in the contract's order; the type map must name exactly the contract's columns. */
function fieldsOf<C extends string>(columns: readonly C[], types: { readonly [K in C]: ColType }): readonly Col[] {
  return columns.map((name) => ({ name, ...types[name] }));
}

/** `checkpoint@1` fields in contract order (checkpoint-api-v1.json). */
export const CHECKPOINT_FIELDS: readonly Col[] = fieldsOf(CHECKPOINT_COLUMNS, {
  checkpoint_uuid: { kind: 'uuid', nullable: false },
  name: { kind: 'utf8', nullable: false },
  description: { kind: 'utf8', nullable: true },
  generation_uuid: { kind: 'uuid', nullable: false },
  generation_manifest_sha256: { kind: 'digest', nullable: false },
  created_at: { kind: 'timestamp_us', nullable: false },
  created_by: { kind: 'uuid', nullable: true },
});

/** `checkpoint_receipt@1` fields in contract order. */
export const RECEIPT_FIELDS: readonly Col[] = fieldsOf(RECEIPT_COLUMNS, {
  operation: { kind: 'utf8', nullable: false },
  operation_uuid: { kind: 'uuid', nullable: false },
  checkpoint_uuid: { kind: 'uuid', nullable: false },
  name: { kind: 'utf8', nullable: false },
  source_generation_uuid: { kind: 'uuid', nullable: false },
  prior_current_generation_uuid: { kind: 'uuid', nullable: true },
  result_generation_uuid: { kind: 'uuid', nullable: true },
  registry_revision: { kind: 'uint64', nullable: false },
  committed_at: { kind: 'timestamp_us', nullable: false },
});

/** `checkpoint_tombstone@1` fields: a deleted checkpoint's public history. */
export const TOMBSTONE_FIELDS: readonly Col[] = fieldsOf(TOMBSTONE_COLUMNS, {
  name: { kind: 'utf8', nullable: false },
  checkpoint_uuid: { kind: 'uuid', nullable: false },
  generation_uuid: { kind: 'uuid', nullable: false },
  deleted_at: { kind: 'timestamp_us', nullable: false },
  deleted_revision: { kind: 'uint64', nullable: false },
});

function column(c: Col, values: readonly CellValue[]): { field: Field; data: Data } {
  if (c.kind === 'uint64') {
    const data = new BigUint64Array(values.map((v) => BigInt(v as number)));
    return { field: new Field(c.name, new Uint64(), c.nullable), data: makeData({ type: new Uint64(), length: values.length, nullCount: 0, data }) };
  }
  const spec: FieldSpec = { name: c.name, kind: c.kind, nullable: c.nullable };
  const cells = c.kind === 'timestamp_us' ? values.map((v) => (v === null ? null : BigInt(v as number))) : values;
  return { field: arrowFieldOf(spec), data: buildColumn(spec, cells) };
}

function table(schemaName: string, cols: readonly Col[], rows: readonly object[]): Table {
  const built = cols.map((c) => column(c, rows.map((r) => (r as Record<string, CellValue>)[c.name] ?? null)));
  const schema = new Schema(built.map((b) => b.field), new Map([[RESULT_SCHEMA_KEY, schemaName]]));
  return tableOfColumns(schema, built.map((b) => b.data), rows.length);
}

/** Active checkpoints as a `checkpoint@1` Arrow table (rows in the given order). */
export function checkpointTable(rows: readonly CheckpointRow[]): Table {
  return table('checkpoint@1', CHECKPOINT_FIELDS, rows);
}

/** Deleted checkpoints as a `checkpoint_tombstone@1` Arrow table (rows in the given order). */
export function tombstoneTable(rows: readonly DeletedCheckpointRow[]): Table {
  return table('checkpoint_tombstone@1', TOMBSTONE_FIELDS, rows);
}

/** One receipt as a one-row `checkpoint_receipt@1` Arrow table. */
export function receiptTable(receipt: CheckpointReceipt): Table {
  return table('checkpoint_receipt@1', RECEIPT_FIELDS, [receipt]);
}

/** Arrow IPC stream bytes of a result table (what Node callers, IPC and `--arrow` carry). */
export function toIpc(t: Table): Uint8Array {
  return tableToIPC(t, 'stream');
}
