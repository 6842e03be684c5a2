import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { WorkflowId } from '../event';

/**
 * The seed's `checkpoint_chain` schema, byte for byte (S2-01 AC-5).
 *
 * A golden file (test/fixtures/chain/sqlite-schema.sql) pins these bytes;
 * changing them is a ledger-format change shared with other implementations.
 */
export const CHECKPOINT_CHAIN_SCHEMA = `CREATE TABLE IF NOT EXISTS checkpoint_chain (
    sequence       INTEGER PRIMARY KEY AUTOINCREMENT,
    transition_id  TEXT    NOT NULL UNIQUE,         -- ULID, AC-7 newtype from S1-02
    prior_head     TEXT    NOT NULL,                -- ChainHead "blake3:<64hex>"
    next_head      TEXT    NOT NULL,                -- ChainHead, _compute_chain_head output
    event_bytes    BLOB    NOT NULL,                -- canonical JSON, AC-12 bounded
    written_at     TEXT    NOT NULL                 -- ISO-8601 UTC, audit-only; NOT in chain
);
CREATE UNIQUE INDEX IF NOT EXISTS ix_chain_next_head ON checkpoint_chain(next_head);
`;

/** The one-row metadata table naming the database's workflow (the directory name is a hash). */
export const CHAIN_METADATA_SCHEMA = `CREATE TABLE IF NOT EXISTS chain_workflow (
    singleton      INTEGER PRIMARY KEY CHECK (singleton = 1),
    workflow_id    TEXT    NOT NULL
);
`;

/** The database file name inside a workflow's directory. */
export const CHAIN_DB_FILE = 'checkpoints.sqlite';

/**
 * The append gate beside the ledger: an empty SQLite file whose write lock every writer holds around its append,
 * and `lock(id, fn)` while `fn` runs (never written, so never anything but empty).
 */
export const CHAIN_GATE_FILE = 'append.lock';

/** Pragmas applied on every connection, in order (busy_timeout first so the WAL switch can wait). */
export const CHAIN_PRAGMAS = ['busy_timeout = 5000', 'journal_mode = WAL', 'synchronous = FULL'] as const;

const DIR_DOMAIN = new TextEncoder().encode('codegenie-checkpoint-dir/1\u0000');

const WORKFLOW_DIR_RE = /^[0-9a-f]{32}$/;

/** True when a directory entry can be a workflow directory (32 lowercase hex digits). */
export function isWorkflowDirName(name: string): boolean {
  return WORKFLOW_DIR_RE.test(name);
}

/**
 * The directory name of a workflow: 32 hex digits of BLAKE3 over the id.
 *
 * Caller text never becomes a path; the raw id lives in the metadata table.
 */
export function workflowDirName(workflowId: WorkflowId): string {
  const h = blake3.create();
  h.update(DIR_DOMAIN);
  h.update(new TextEncoder().encode(workflowId));
  return bytesToHex(h.digest()).slice(0, 32);
}
