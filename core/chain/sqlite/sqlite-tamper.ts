import Database from 'better-sqlite3';
import { sqliteNativeOptions } from '../../sqlite-options';
import { join } from 'node:path';
import type { WorkflowId } from '../event';
import { CHAIN_DB_FILE, workflowDirName } from './sqlite-schema';

/** Columns `tamperSqliteRow` may overwrite. */
export interface SqliteTamperFields {
  readonly next_head?: string;
  readonly prior_head?: string;
  readonly event_bytes?: Uint8Array;
}

/**
 * Overwrites persisted columns of one row of a workflow's database, bypassing the store.
 *
 * Test and demo tooling only (the conformance suite's tamper hook, the
 * deliberately tampered demo ledger): it plays the attacker or the bad disk
 * that `verify` must catch. Throws a RangeError when the row does not exist.
 */
export function tamperSqliteRow(root: string, workflowId: WorkflowId, sequence: number, fields: SqliteTamperFields): void {
  const db = new Database(join(root, workflowDirName(workflowId), CHAIN_DB_FILE), { ...sqliteNativeOptions(), fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const sets: string[] = [];
    const values: (string | Buffer)[] = [];
    if (fields.next_head !== undefined) {
      sets.push('next_head = ?');
      values.push(fields.next_head);
    }
    if (fields.prior_head !== undefined) {
      sets.push('prior_head = ?');
      values.push(fields.prior_head);
    }
    if (fields.event_bytes !== undefined) {
      sets.push('event_bytes = ?');
      values.push(Buffer.from(fields.event_bytes));
    }
    if (sets.length === 0) return;
    const r = db.prepare(`UPDATE checkpoint_chain SET ${sets.join(', ')} WHERE sequence = ?`).run(...values, sequence);
    if (r.changes !== 1) throw new RangeError('no such persisted row');
  } finally {
    db.close();
  }
}
