import { createHash } from 'node:crypto';
import { GfError } from '../../errors';
import { GENESIS } from '../head';
import { MAX_EVENT_BYTES } from '../port';

/**
 * SQL of the Postgres chain store: the one table, its constraints and the statements.
 *
 * Pure text and pure key derivation: no driver import, so the shape can be
 * read (and tested) without a database.
 */

/** The schema the store uses unless told otherwise. */
export const DEFAULT_CHAIN_SCHEMA = 'gf_chain';

/**
 * The version stamp of the chain table (its `COMMENT`), checked by `setup()`.
 *
 * A table without exactly this stamp (a foreign `checkpoint_chain`, or one an
 * older engine created before the stamp existed) is refused at setup with
 * `GF_CHAIN_STORE` reason `table_version`, before any read or write.
 */
export const CHAIN_TABLE_VERSION = 'graphforge-checkpoint-chain-table/1';

const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Validates a schema name and returns it double-quoted.
 *
 * Only lowercase identifiers are accepted, so the quoted and unquoted
 * spellings name the same schema and caller text can never inject SQL.
 */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_RE.test(schema)) {
    throw new GfError('GF_VALIDATION', 'chain schema must be 1-63 chars of [a-z0-9_] starting with a letter or _', { length: schema.length });
  }
  return `"${schema}"`;
}

/**
 * The DDL that `setup()` sends in one round trip.
 *
 * Serialised by a transaction-scoped advisory lock, because concurrent
 * `CREATE … IF NOT EXISTS` from several machines can otherwise collide in the
 * catalogs. The constraints are the fork guard: `(workflow_id, sequence)` and
 * `(workflow_id, prior_head)` are unique, so two appends can never extend the
 * same tail, whoever sends them. `workflow_id` uses the "C" collation so
 * listings sort by code unit, as on the other adapters.
 */
export function setupSql(schema: string): string {
  const s = quoteSchema(schema);
  return [
    'BEGIN',
    `SELECT pg_advisory_xact_lock(${setupLockKey(schema)})`,
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    // The table is created (and stamped with its version) only when absent: an existing one keeps its own stamp, checked below.
    `DO $gf$ BEGIN IF to_regclass('${s}.checkpoint_chain') IS NULL THEN
CREATE TABLE ${s}.checkpoint_chain (
  workflow_id   TEXT COLLATE "C" NOT NULL,
  sequence      BIGINT NOT NULL CHECK (sequence >= 1),
  transition_id TEXT NOT NULL,
  prior_head    TEXT NOT NULL,
  next_head     TEXT NOT NULL,
  event_bytes   BYTEA NOT NULL CHECK (octet_length(event_bytes) <= ${MAX_EVENT_BYTES}),
  written_at    TEXT NOT NULL,
  CONSTRAINT checkpoint_chain_pkey PRIMARY KEY (workflow_id, sequence),
  CONSTRAINT checkpoint_chain_prior_head_key UNIQUE (workflow_id, prior_head),
  CONSTRAINT checkpoint_chain_transition_id_key UNIQUE (workflow_id, transition_id)
);
COMMENT ON TABLE ${s}.checkpoint_chain IS '${CHAIN_TABLE_VERSION}';
END IF; END $gf$`,
    'COMMIT',
    `SELECT current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync, obj_description('${s}.checkpoint_chain'::regclass, 'pg_class') AS table_version`,
  ].join(';\n');
}

/** The prepared statements of one schema. */
export interface ChainSql {
  /**
   * The one-round-trip append: `$1` lock key, `$2` workflow, `$3` sequence,
   * `$4` transition id, `$5` prior head, `$6` next head, `$7` bytes, `$8` written_at.
   *
   * Takes the workflow's advisory lock for the statement's own transaction
   * (so it waits for a `lock(id, fn)` holder anywhere), inserts only when the
   * row links to the persisted row before it (or is row 1 after GENESIS), and
   * inserts nothing on any unique conflict: 0 rows means "re-read the tail".
   */
  readonly insertLinked: string;
  /** The prepared-statement name of `insertLinked` (per schema, so the text never differs). */
  readonly insertLinkedName: string;
  /**
   * `insertLinked` without `ON CONFLICT`, for an autocommit statement: a
   * unique conflict is an error (SQLSTATE 23505) instead of 0 rows.
   */
  readonly insertLinkedStrict: string;
  /** The prepared-statement name of `insertLinkedStrict`. */
  readonly insertLinkedStrictName: string;
  /**
   * Group commit of appends to different workflows, in one statement and one commit:
   * `$1` lock keys, `$2`…`$8` arrays of the `insertLinked` columns (one element per row).
   *
   * Takes every row's advisory lock in key order, then inserts each row that
   * links to its persisted predecessor (row-wise, exactly as `insertLinked`),
   * skipping rows on any unique conflict. Returns the `workflow_id` of each
   * inserted row; a row not returned must be re-appended on the conflict path.
   * The rows of one statement name distinct workflows.
   */
  readonly insertLinkedBatch: string;
  /** The prepared-statement name of `insertLinkedBatch`. */
  readonly insertLinkedBatchName: string;
  /** `$1` workflow: the last row's sequence and next head (no row: empty). */
  readonly tail: string;
  /** `$1` workflow, `$2` transition id: one row when the id is already persisted. */
  readonly hasTransition: string;
  /** `$1` workflow, `$2` after sequence, `$3` limit: rows in sequence order. */
  readonly rowsPage: string;
  /** Distinct workflow ids in code-unit order. */
  readonly listWorkflows: string;
}

/** Builds the statements for `schema` (validated). */
export function chainSql(schema: string): ChainSql {
  const t = `${quoteSchema(schema)}.checkpoint_chain`;
  const linked = `WITH held AS (SELECT pg_advisory_xact_lock($1::bigint))
INSERT INTO ${t} (workflow_id, sequence, transition_id, prior_head, next_head, event_bytes, written_at)
SELECT $2::text, $3::bigint, $4::text, $5::text, $6::text, $7::bytea, $8::text FROM held
WHERE ($3::bigint = 1 AND $5::text = '${GENESIS}')
   OR EXISTS (SELECT 1 FROM ${t} p WHERE p.workflow_id = $2::text AND p.sequence = $3::bigint - 1 AND p.next_head = $5::text)`;
  return {
    insertLinked: `${linked}
ON CONFLICT DO NOTHING`,
    insertLinkedStrict: linked,
    insertLinkedStrictName: `gf_chain_insert_linked_strict_1_${schema}`,
    insertLinkedName: `gf_chain_insert_linked_1_${schema}`,
    // The lock CTE is materialised and joined, so it runs (in key order) before any row is inserted.
    // The predecessor is a join on the primary key (an index probe per row), never a hashed scan.
    insertLinkedBatch: `WITH held AS MATERIALIZED (
  SELECT count(*) AS n FROM (SELECT pg_advisory_xact_lock(o.k) FROM (SELECT k FROM unnest($1::bigint[]) AS k ORDER BY k) AS o) AS l
)
INSERT INTO ${t} (workflow_id, sequence, transition_id, prior_head, next_head, event_bytes, written_at)
SELECT r.workflow_id, r.sequence, r.transition_id, r.prior_head, r.next_head, r.event_bytes, r.written_at
FROM held
CROSS JOIN unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bytea[], $8::text[])
  AS r(workflow_id, sequence, transition_id, prior_head, next_head, event_bytes, written_at)
LEFT JOIN ${t} p ON p.workflow_id = (r.workflow_id COLLATE "C") AND p.sequence = r.sequence - 1
WHERE held.n >= 0 AND ((r.sequence = 1 AND r.prior_head = '${GENESIS}') OR p.next_head = r.prior_head)
ON CONFLICT DO NOTHING
RETURNING workflow_id`,
    insertLinkedBatchName: `gf_chain_insert_linked_batch_1_${schema}`,
    tail: `SELECT sequence, next_head FROM ${t} WHERE workflow_id = $1 ORDER BY sequence DESC LIMIT 1`,
    hasTransition: `SELECT 1 AS present FROM ${t} WHERE workflow_id = $1 AND transition_id = $2`,
    rowsPage: `SELECT sequence, transition_id, prior_head, next_head, event_bytes, written_at FROM ${t}
WHERE workflow_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
    listWorkflows: `SELECT DISTINCT workflow_id FROM ${t} ORDER BY workflow_id`,
  };
}

function key64(text: string): string {
  const d = createHash('sha256').update(text, 'utf8').digest();
  return d.readBigInt64BE(0).toString();
}

/**
 * The advisory-lock key of one workflow in one schema (a signed 64-bit decimal).
 *
 * Derived by hashing, so any id maps to a key; a collision only makes two
 * workflows wait for each other, never breaks a chain.
 */
export function workflowLockKey(schema: string, workflowId: string): string {
  return key64(`gf-chain-lock/1\u0000${schema}\u0000${workflowId}`);
}

/** The advisory-lock key that serialises `setup()` of one schema. */
export function setupLockKey(schema: string): string {
  return key64(`gf-chain-setup/1\u0000${schema}`);
}
