import { createHash } from 'node:crypto';
import { GfError } from '../errors';
import { trimReason } from '../contract/reasons';
import { THREAD_PRUNE_KEPT_REASONS, THREAD_PRUNE_RECORD_TABLE, type ThreadPruneKeptReason, type ThreadPrunePreview, type ThreadPruneReceipt, type ThreadPruneRow } from '../contract/threads';
import { readMapMember } from './msgpack-carry';
import type { PostgresWriteConnection, SqliteWriteConnection } from './python-restore';
import { INTERRUPT_CHANNEL } from './channels';

/** One root-namespace checkpoint as a prune judges it. */
export interface PruneFact {
  readonly thread_id: string;
  readonly checkpoint_id: string;
  /** The metadata's `restored_from` (a restore's head), else null. */
  readonly restored_from: string | null;
  /** It has pending writes to `__interrupt__`. */
  readonly interrupted: boolean;
  /** Its metadata reads as JSON. */
  readonly readable: boolean;
}

/** A checkpoint by thread and id. */
export interface PruneKey {
  readonly thread_id: string;
  readonly checkpoint_id: string;
}

/** What a prune deletes, why the others stay, and the digest naming it. */
export interface PrunePlan {
  readonly remove: readonly PruneKey[];
  readonly kept: Readonly<Record<ThreadPruneKeptReason, number>>;
  readonly threads: number;
  readonly digest: string;
}

/** What `threads.prune` asks for (the reason already passed the revert-reason rule). */
export interface ThreadPruneRequest {
  readonly keepLast: number;
  readonly threadId: string | null;
  readonly reason: string;
  readonly actor: string | null;
  readonly idempotencyKey: string;
  readonly expectedDigest: string;
}

/** A prune's record row, as stored in {@link THREAD_PRUNE_RECORD_TABLE}. */
interface RecordRow {
  readonly idempotency_key: string;
  readonly pruned_at: string;
  readonly reason: string;
  readonly actor: string | null;
  readonly keep_last: number;
  readonly thread_id: string | null;
  readonly preview_digest: string;
  readonly checkpoints: number;
  readonly writes: number;
  readonly blobs: number;
  readonly threads: number;
}

/** The reads a preview makes of a source (the read-only reader's connection, or the writer's inside its transaction). */
export interface PruneReads {
  /** Every root-namespace checkpoint of `threadId` (of every thread when null). */
  facts(threadId: string | null): Promise<PruneFact[]>;
  /** Time, step and source of the given checkpoints, in their order. */
  details(keys: readonly PruneKey[]): Promise<ThreadPruneRow[]>;
  /** An earlier prune recorded with this idempotency key, else null. */
  recorded(idempotencyKey: string): Promise<ThreadPruneReceipt | null>;
}

const byThreadNewestFirst = (a: PruneFact, b: PruneFact): number =>
  a.thread_id < b.thread_id ? -1 : a.thread_id > b.thread_id ? 1 : a.checkpoint_id > b.checkpoint_id ? -1 : a.checkpoint_id < b.checkpoint_id ? 1 : 0;

/** Why an older checkpoint stays (null: it goes). The checks run in {@link THREAD_PRUNE_KEPT_REASONS} order. */
function keptBecause(f: PruneFact, isHead: boolean, targets: ReadonlySet<string>): ThreadPruneKeptReason | null {
  if (isHead) return 'head';
  if (f.interrupted) return 'interrupted';
  if (f.restored_from !== null) return 'restored_head';
  if (targets.has(f.checkpoint_id)) return 'restore_target';
  if (!f.readable) return 'unreadable';
  return null;
}

/**
 * The prune of `facts`: per thread, the `keepLast` newest checkpoints stay, and of the older ones every one a
 * prune never deletes (the head, an interrupted checkpoint, a restore's head, a restore's target, unreadable
 * metadata). Pure; the order of `facts` does not matter. The digest covers the request and the set removed.
 */
export function planPrune(facts: readonly PruneFact[], keepLast: number, threadId: string | null): PrunePlan {
  const sorted = [...facts].sort(byThreadNewestFirst);
  const kept = Object.fromEntries(THREAD_PRUNE_KEPT_REASONS.map((r) => [r, 0])) as Record<ThreadPruneKeptReason, number>;
  const remove: PruneKey[] = [];
  let threads = 0;
  for (let start = 0; start < sorted.length; ) {
    let end = start;
    while (end < sorted.length && sorted[end]?.thread_id === sorted[start]?.thread_id) end += 1;
    const thread = sorted.slice(start, end);
    const targets = new Set(thread.flatMap((f) => (f.restored_from === null ? [] : [f.restored_from])));
    let removed = false;
    thread.forEach((f, i) => {
      if (i < keepLast) return;
      const why = keptBecause(f, i === 0, targets);
      if (why !== null) kept[why] += 1;
      else {
        remove.push({ thread_id: f.thread_id, checkpoint_id: f.checkpoint_id });
        removed = true;
      }
    });
    if (removed) threads += 1;
    start = end;
  }
  const digest = createHash('sha256').update(JSON.stringify(['threads.prune@1', keepLast, threadId, remove.map((k) => [k.thread_id, k.checkpoint_id])])).digest('hex');
  return { remove, kept, threads, digest };
}

/** `threads.prune_preview`: the plan, with the user facts of its first `limit` checkpoints. */
export async function previewPrune(reads: PruneReads, keepLast: number, threadId: string | null, limit: number): Promise<ThreadPrunePreview> {
  const plan = planPrune(await reads.facts(threadId), keepLast, threadId);
  const rows = await reads.details(plan.remove.slice(0, limit));
  return { keep_last: keepLast, thread_id: threadId, total: plan.remove.length, threads: plan.threads, kept: plan.kept, rows, truncated: plan.remove.length > limit, preview_digest: plan.digest };
}

function stale(): never {
  throw new GfError('GF_STALE_PREVIEW', 'the checkpoints this prune would delete changed since it was previewed; nothing was deleted: preview again', { operation: 'threads.prune', phase: 'set_changed' }, false);
}

/** A replay's receipt when an earlier prune with the key is the same request; `GF_IDEMPOTENCY_CONFLICT` when it is another. */
function replayOf(req: ThreadPruneRequest, earlier: ThreadPruneReceipt | null): ThreadPruneReceipt | null {
  if (earlier === null) return null;
  const reason = trimReason(req.reason);
  if (earlier.keep_last === req.keepLast && earlier.thread_id === req.threadId && earlier.reason === reason && earlier.actor === req.actor && earlier.preview_digest === req.expectedDigest) return { ...earlier, replayed: true };
  throw new GfError('GF_IDEMPOTENCY_CONFLICT', 'this idempotency key was used for a different prune', { operation: 'threads.prune' }, false);
}

/**
 * A prune's refusals and replay, without writing: the earlier receipt of a replay, else null when the set is still
 * the previewed one. Run on the read-only reader first, a refused prune never opens the database for writing.
 */
export async function checkPrune(reads: PruneReads, req: ThreadPruneRequest): Promise<ThreadPruneReceipt | null> {
  const replay = replayOf(req, await reads.recorded(req.idempotencyKey));
  if (replay !== null) return replay;
  if (planPrune(await reads.facts(req.threadId), req.keepLast, req.threadId).digest !== req.expectedDigest) stale();
  return null;
}

const asRow = (r: { thread_id: string; checkpoint_id: string; ts: unknown; step: unknown; source: unknown }): ThreadPruneRow => ({
  thread_id: r.thread_id,
  time: typeof r.ts === 'string' ? r.ts : null,
  step: typeof r.step === 'number' ? r.step : null,
  source: typeof r.source === 'string' ? r.source : null,
  checkpoint_id: r.checkpoint_id,
});

const receiptOf = (r: RecordRow): ThreadPruneReceipt => ({
  thread_id: r.thread_id,
  keep_last: Number(r.keep_last),
  reason: r.reason,
  actor: r.actor,
  idempotency_key: r.idempotency_key,
  pruned_at: r.pruned_at,
  preview_digest: r.preview_digest,
  checkpoints: Number(r.checkpoints),
  writes: Number(r.writes),
  blobs: Number(r.blobs),
  threads: Number(r.threads),
  recorded_in: THREAD_PRUNE_RECORD_TABLE,
  replayed: false,
});

const RECORD_COLUMNS = 'idempotency_key, pruned_at, reason, actor, keep_last, thread_id, preview_digest, checkpoints, writes, blobs, threads, deleted';

/** The record table (ours, beside the saver's tables; created by the first prune, inside its transaction). */
const CREATE_RECORD = `CREATE TABLE IF NOT EXISTS ${THREAD_PRUNE_RECORD_TABLE} (
  idempotency_key TEXT PRIMARY KEY, pruned_at TEXT NOT NULL, reason TEXT NOT NULL, actor TEXT, keep_last INTEGER NOT NULL, thread_id TEXT,
  preview_digest TEXT NOT NULL, checkpoints INTEGER NOT NULL, writes INTEGER NOT NULL, blobs INTEGER NOT NULL, threads INTEGER NOT NULL, deleted TEXT NOT NULL)`;

/** The SQLite connection a prune reads on (better-sqlite3's: the reader's in-memory image, or the writer's file). */
export interface SqliteReadConnection {
  prepare(sql: string): { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
}

interface SqliteFactRow {
  readonly thread_id: string;
  readonly checkpoint_id: string;
  readonly restored_from: string | null;
  readonly interrupted: number;
  readonly readable: number | null;
}

/** The synchronous reads of a SQLite connection (a transaction can hold them). */
type SqlitePruneSync = { readonly [K in keyof PruneReads]: (...args: Parameters<PruneReads[K]>) => Awaited<ReturnType<PruneReads[K]>> };

function sqliteSync(db: SqliteReadConnection): SqlitePruneSync {
  const meta = 'CAST(c.metadata AS TEXT)';
  const facts = db.prepare(
    `SELECT c.thread_id, c.checkpoint_id, json_valid(${meta}) AS readable,
       CASE WHEN json_valid(${meta}) AND json_type(${meta}, '$.restored_from') = 'text' THEN json_extract(${meta}, '$.restored_from') END AS restored_from,
       EXISTS (SELECT 1 FROM writes AS w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = c.checkpoint_id AND w.channel = '${INTERRUPT_CHANNEL}') AS interrupted
     FROM checkpoints AS c WHERE c.checkpoint_ns = '' AND (? IS NULL OR c.thread_id = ?)`,
  );
  const detail = db.prepare(
    `SELECT c.thread_id, c.checkpoint_id, CASE WHEN c.type = 'msgpack' THEN c.checkpoint END AS doc,
       CASE WHEN c.type = 'json' AND json_valid(CAST(c.checkpoint AS TEXT)) THEN json_extract(CAST(c.checkpoint AS TEXT), '$.ts') END AS ts,
       CASE WHEN json_valid(${meta}) THEN json_extract(${meta}, '$.step') END AS step,
       CASE WHEN json_valid(${meta}) THEN json_extract(${meta}, '$.source') END AS source
     FROM checkpoints AS c WHERE c.thread_id = ? AND c.checkpoint_ns = '' AND c.checkpoint_id = ?`,
  );
  return {
    facts: (threadId) =>
      (facts.all(threadId, threadId) as SqliteFactRow[]).map((r) => ({ thread_id: r.thread_id, checkpoint_id: r.checkpoint_id, restored_from: r.restored_from, interrupted: r.interrupted === 1, readable: r.readable === 1 })),
    details: (keys) =>
      keys.map((k) => {
        const r = detail.get(k.thread_id, k.checkpoint_id) as { thread_id: string; checkpoint_id: string; doc: Uint8Array | null; ts: unknown; step: unknown; source: unknown } | undefined;
        if (r === undefined) return asRow({ ...k, ts: null, step: null, source: null });
        let ts = r.ts;
        if (r.doc instanceof Uint8Array) {
          try {
            ts = readMapMember(r.doc, 'ts'); // Python's msgpack document: its `ts` member alone
          } catch (_e) {
            ts = null;
          }
        }
        return asRow({ ...r, ts });
      }),
    recorded: (key) => {
      if (db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?").get(THREAD_PRUNE_RECORD_TABLE) === undefined) return null;
      const r = db.prepare(`SELECT ${RECORD_COLUMNS} FROM ${THREAD_PRUNE_RECORD_TABLE} WHERE idempotency_key = ?`).get(key) as RecordRow | undefined;
      return r === undefined ? null : receiptOf(r);
    },
  };
}

/**
 * A prune's reads of a LangGraph SQLite database (both savers' layout: `checkpoints` and `writes`; channel values
 * live in the checkpoint row). Metadata is JSON text for both; the document is JSON (LangGraph.js) or msgpack (Python).
 */
export function sqlitePruneReads(db: SqliteReadConnection): PruneReads {
  const sync = sqliteSync(db);
  return {
    facts: async (threadId) => sync.facts(threadId),
    details: async (keys) => sync.details(keys),
    recorded: async (key) => sync.recorded(key),
  };
}

/** A node-postgres pool or client (what a prune's reads need of either). */
export type PostgresQueryable = PostgresWriteConnection;

/** A prune's reads of a LangGraph PostgreSQL database (both savers' layout; metadata and the document are JSONB). */
export function postgresPruneReads(q: PostgresQueryable): PruneReads {
  return {
    async facts(threadId) {
      const r = await q.query<{ thread_id: string; checkpoint_id: string; restored_from: string | null; interrupted: boolean; readable: boolean }>(
        `SELECT c.thread_id, c.checkpoint_id, (jsonb_typeof(c.metadata) = 'object') IS TRUE AS readable,
           CASE WHEN jsonb_typeof(c.metadata -> 'restored_from') = 'string' THEN c.metadata ->> 'restored_from' END AS restored_from,
           EXISTS (SELECT 1 FROM checkpoint_writes AS w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = c.checkpoint_id AND w.channel = '${INTERRUPT_CHANNEL}') AS interrupted
         FROM checkpoints AS c WHERE c.checkpoint_ns = '' AND ($1::text IS NULL OR c.thread_id = $1)`,
        [threadId],
      );
      return r.rows;
    },
    async details(keys) {
      if (keys.length === 0) return [];
      const r = await q.query<{ thread_id: string; checkpoint_id: string; ts: unknown; step: unknown; source: unknown }>(
        `SELECT c.thread_id, c.checkpoint_id, c.checkpoint ->> 'ts' AS ts, c.metadata -> 'step' AS step, c.metadata ->> 'source' AS source
           FROM checkpoints AS c JOIN unnest($1::text[], $2::text[]) AS k(thread_id, checkpoint_id) ON c.thread_id = k.thread_id AND c.checkpoint_id = k.checkpoint_id
          WHERE c.checkpoint_ns = ''`,
        [keys.map((k) => k.thread_id), keys.map((k) => k.checkpoint_id)],
      );
      const found = new Map(r.rows.map((row) => [`${row.thread_id}\u0000${row.checkpoint_id}`, row]));
      return keys.map((k) => asRow(found.get(`${k.thread_id}\u0000${k.checkpoint_id}`) ?? { ...k, ts: null, step: null, source: null }));
    },
    async recorded(key) {
      const t = await q.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [THREAD_PRUNE_RECORD_TABLE]);
      if (t.rows[0]?.t === null || t.rows[0] === undefined) return null;
      const r = await q.query<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM ${THREAD_PRUNE_RECORD_TABLE} WHERE idempotency_key = $1`, [key]);
      return r.rows[0] === undefined ? null : receiptOf(r.rows[0]);
    },
  };
}

function writeFailed(e: unknown): never {
  if (e instanceof GfError) throw e;
  const code = (e as { code?: unknown } | null)?.code;
  throw new GfError('GF_IO', 'the prune could not be written; nothing was deleted', { reason: typeof code === 'string' ? code : 'write_failed' }, false);
}

const recordValues = (req: ThreadPruneRequest, prunedAt: string, counts: { checkpoints: number; writes: number; blobs: number; threads: number }, removed: readonly PruneKey[]) => [
  req.idempotencyKey,
  prunedAt,
  trimReason(req.reason),
  req.actor,
  req.keepLast,
  req.threadId,
  req.expectedDigest,
  counts.checkpoints,
  counts.writes,
  counts.blobs,
  counts.threads,
  JSON.stringify(removed.map((k) => [k.thread_id, k.checkpoint_id])),
];

/** The SQLite connection a prune writes on: reads, plus `run` returning the rows changed. */
export interface SqlitePruneConnection extends SqliteWriteConnection {
  prepare(sql: string): { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[]; run(...params: unknown[]): { changes: number } };
}

/**
 * `threads.prune` on a LangGraph SQLite database (written by LangGraph.js or Python): in one immediate
 * transaction, the set is planned again and compared with the preview's digest (`GF_STALE_PREVIEW`, nothing
 * written, when it differs), each checkpoint's pending writes and row are deleted, and the prune is recorded.
 * A SQLite saver keeps channel values in the checkpoint row: there are no blobs to collect.
 */
export async function pruneSqlite(db: SqlitePruneConnection, req: ThreadPruneRequest, now: () => Date = () => new Date()): Promise<ThreadPruneReceipt> {
  const reads = sqliteSync(db);
  const prunedAt = now().toISOString();
  const write = db.transaction((): ThreadPruneReceipt => {
    const replay = replayOf(req, reads.recorded(req.idempotencyKey));
    if (replay !== null) return replay;
    const plan = planPrune(reads.facts(req.threadId), req.keepLast, req.threadId);
    if (plan.digest !== req.expectedDigest) stale();
    const delWrites = db.prepare("DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?");
    const delCheckpoint = db.prepare("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?");
    let checkpoints = 0;
    let writes = 0;
    for (const k of plan.remove) {
      writes += delWrites.run(k.thread_id, k.checkpoint_id).changes;
      checkpoints += delCheckpoint.run(k.thread_id, k.checkpoint_id).changes;
    }
    const counts = { checkpoints, writes, blobs: 0, threads: plan.threads };
    db.prepare(CREATE_RECORD).run();
    db.prepare(`INSERT INTO ${THREAD_PRUNE_RECORD_TABLE} (${RECORD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(...recordValues(req, prunedAt, counts, plan.remove));
    return receiptOf({ idempotency_key: req.idempotencyKey, pruned_at: prunedAt, reason: trimReason(req.reason), actor: req.actor, keep_last: req.keepLast, thread_id: req.threadId, preview_digest: req.expectedDigest, ...counts });
  });
  try {
    return write.immediate();
  } catch (e) {
    return writeFailed(e);
  }
}

/**
 * `threads.prune` on a LangGraph PostgreSQL database (written by LangGraph.js or Python): one transaction that
 * locks the saver's three tables against writers (a lock, never DDL on them), plans the set again and compares
 * it with the preview's digest (`GF_STALE_PREVIEW`, rolled back, when it differs), deletes the channel blobs
 * only those checkpoints referenced (a blob is keyed by thread, namespace, channel and version: one a remaining
 * checkpoint's `channel_versions` names stays), their pending writes and their rows, and records the prune.
 */
export async function prunePostgres(client: PostgresWriteConnection, req: ThreadPruneRequest, now: () => Date = () => new Date()): Promise<ThreadPruneReceipt> {
  const reads = postgresPruneReads(client);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['gf-threads-prune']);
    const replay = replayOf(req, await reads.recorded(req.idempotencyKey));
    if (replay !== null) {
      await client.query('ROLLBACK');
      return replay;
    }
    // Writers wait until this transaction ends: a `put` cannot add a checkpoint (or re-use a blob) in between.
    await client.query('LOCK TABLE checkpoints, checkpoint_writes, checkpoint_blobs IN SHARE ROW EXCLUSIVE MODE');
    const plan = planPrune(await reads.facts(req.threadId), req.keepLast, req.threadId);
    if (plan.digest !== req.expectedDigest) stale();
    const keys = [plan.remove.map((k) => k.thread_id), plan.remove.map((k) => k.checkpoint_id)];
    const gone = 'SELECT * FROM unnest($1::text[], $2::text[]) AS k(thread_id, checkpoint_id)';
    const blobs = await client.query<{ n: number }>(
      `WITH gone AS (${gone}),
       released AS (
         SELECT DISTINCT c.thread_id, v.key AS channel, v.value AS version
           FROM checkpoints AS c JOIN gone AS g ON c.thread_id = g.thread_id AND c.checkpoint_id = g.checkpoint_id, jsonb_each_text(c.checkpoint -> 'channel_versions') AS v
          WHERE c.checkpoint_ns = ''),
       deleted AS (
         DELETE FROM checkpoint_blobs AS b USING released AS r
          WHERE b.thread_id = r.thread_id AND b.checkpoint_ns = '' AND b.channel = r.channel AND b.version = r.version
            AND NOT EXISTS (
              SELECT 1 FROM checkpoints AS c
               WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = '' AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version
                 AND NOT EXISTS (SELECT 1 FROM gone AS g WHERE g.thread_id = c.thread_id AND g.checkpoint_id = c.checkpoint_id))
          RETURNING 1)
       SELECT count(*)::int AS n FROM deleted`,
      keys,
    );
    const writes = await client.query<{ n: number }>(
      `WITH gone AS (${gone}), deleted AS (DELETE FROM checkpoint_writes AS w USING gone AS g WHERE w.thread_id = g.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = g.checkpoint_id RETURNING 1)
       SELECT count(*)::int AS n FROM deleted`,
      keys,
    );
    const checkpoints = await client.query<{ n: number }>(
      `WITH gone AS (${gone}), deleted AS (DELETE FROM checkpoints AS c USING gone AS g WHERE c.thread_id = g.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = g.checkpoint_id RETURNING 1)
       SELECT count(*)::int AS n FROM deleted`,
      keys,
    );
    const counts = { checkpoints: checkpoints.rows[0]?.n ?? 0, writes: writes.rows[0]?.n ?? 0, blobs: blobs.rows[0]?.n ?? 0, threads: plan.threads };
    const prunedAt = now().toISOString();
    await client.query(CREATE_RECORD);
    await client.query(`INSERT INTO ${THREAD_PRUNE_RECORD_TABLE} (${RECORD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, recordValues(req, prunedAt, counts, plan.remove));
    await client.query('COMMIT');
    return receiptOf({ idempotency_key: req.idempotencyKey, pruned_at: prunedAt, reason: trimReason(req.reason), actor: req.actor, keep_last: req.keepLast, thread_id: req.threadId, preview_digest: req.expectedDigest, ...counts });
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    return writeFailed(e);
  }
}
