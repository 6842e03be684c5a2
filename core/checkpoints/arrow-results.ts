// Arrow result tables of the checkpoint operations (checkpoint@1, checkpoint_receipt@1,
// checkpoint_tombstone@1), built from the contract's table declarations.
import { tableToIPC, type Table } from 'apache-arrow';
import { resultTable } from '../participants/result-tables';
import type { CheckpointRow } from './listing';
import type { CheckpointReceipt } from './registry-core';
import type { DeletedCheckpointRow } from './tombstones';
import { RESULT_SCHEMA_KEY } from '../contract/results';

/** Schema-metadata key naming the result schema of an Arrow result (declared by the contract). */
export { RESULT_SCHEMA_KEY };

/** Active checkpoints as a `checkpoint@1` Arrow table (rows in the given order). */
export function checkpointTable(rows: readonly CheckpointRow[]): Table {
  return resultTable('checkpoint@1', rows);
}

/** Deleted checkpoints as a `checkpoint_tombstone@1` Arrow table (rows in the given order). */
export function tombstoneTable(rows: readonly DeletedCheckpointRow[]): Table {
  return resultTable('checkpoint_tombstone@1', rows);
}

/** One receipt as a one-row `checkpoint_receipt@1` Arrow table. */
export function receiptTable(receipt: CheckpointReceipt): Table {
  return resultTable('checkpoint_receipt@1', [receipt]);
}

/** Arrow IPC stream bytes of a result table (what Node callers, IPC and `--arrow` carry). */
export function toIpc(t: Table): Uint8Array {
  return tableToIPC(t, 'stream');
}
