import { GfError } from '../errors';
import { trimReason } from '../contract/reasons';
import type { ThreadRestoreReceipt } from '../contract/threads';
import { replaceMapMembers } from './msgpack-carry';
import { PythonDecodeError } from './python-serde';
import type { ThreadRestoreRequest } from './thread-restore';

/** The SQLite connection a restore writes on (better-sqlite3's, passed in by the SQLite adapter). */
export interface SqliteWriteConnection {
  prepare(sql: string): { get(...params: unknown[]): unknown; run(...params: unknown[]): unknown };
  transaction<T>(fn: () => T): { immediate(): T };
}

/** The PostgreSQL connection a restore writes on (a node-postgres client checked out by the Postgres adapter). */
export interface PostgresWriteConnection {
  query<R extends object = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

function refused(code: 'GF_CHECKPOINT_NOT_FOUND' | 'GF_VALIDATION' | 'GF_IDEMPOTENCY_CONFLICT' | 'GF_CHECKPOINT_UNREADABLE', message: string, details: Record<string, string>): never {
  throw new GfError(code, message, details, false);
}

/** A timestamp as Python's `datetime.now(timezone.utc).isoformat()` writes it (microseconds, `+00:00`). */
export function pythonIsoTime(d: Date): string {
  return `${d.toISOString().slice(0, 23)}000+00:00`;
}

/** The metadata a restore head records: LangGraph's own members for a manual update, then the restore's. */
function restoreMetadata(req: ThreadRestoreRequest, reason: string, step: number, restoredAt: string): Record<string, unknown> {
  return { source: 'update', step, parents: {}, restored_from: req.checkpointId, reason, actor: req.actor, idempotency_key: req.idempotencyKey, restored_at: restoredAt };
}

/** The receipt an earlier restore with the same key recorded, or a conflict when the key was used for something else. */
function replayOf(req: ThreadRestoreRequest, reason: string, row: { thread_id: string; checkpoint_id: string; parent_checkpoint_id: string | null; metadata: Record<string, unknown> } | undefined): ThreadRestoreReceipt | null {
  if (row === undefined) return null;
  const m = row.metadata;
  if (row.thread_id === req.threadId && m['restored_from'] === req.checkpointId && m['reason'] === reason && (m['actor'] ?? null) === req.actor) {
    return {
      thread_id: row.thread_id,
      checkpoint_id: row.checkpoint_id,
      parent_checkpoint_id: row.parent_checkpoint_id ?? '',
      restored_from: req.checkpointId,
      reason,
      actor: req.actor,
      idempotency_key: req.idempotencyKey,
      restored_at: typeof m['restored_at'] === 'string' ? m['restored_at'] : '',
      replayed: true,
    };
  }
  return refused('GF_IDEMPOTENCY_CONFLICT', 'this idempotency key was used for a different restore', { operation: 'threads.restore' });
}

const stepOf = (metadata: Record<string, unknown>): number => (typeof metadata['step'] === 'number' ? metadata['step'] : -1) + 1;

async function newId(step: number, after: string): Promise<string> {
  const { uuid6 } = await import('@langchain/langgraph-checkpoint');
  let id = uuid6(step);
  while (id <= after) id = uuid6(step); // time-based ids: the new head must sort after the old one
  return id;
}

function parseJson(text: Uint8Array | string | null): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text === null ? '{}' : typeof text === 'string' ? text : new TextDecoder().decode(text));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch (_e) {
    return {};
  }
}

interface SqliteRow {
  readonly thread_id: string;
  readonly checkpoint_id: string;
  readonly parent_checkpoint_id: string | null;
  readonly type: string | null;
  readonly checkpoint: Uint8Array | null;
  readonly metadata: Uint8Array | string | null;
}

/**
 * `threads.restore` on a SQLite file Python LangGraph wrote: appends a head
 * Python's SqliteSaver reads as the target's state and resumes from.
 *
 * The new checkpoint document is the target's stored msgpack bytes with only
 * `id` and `ts` replaced (every channel value, version and `versions_seen`
 * carried byte for byte, so a value this project cannot fully decode still
 * restores exactly); its type is the target's; its metadata is JSON text as
 * Python's saver writes it (`source: update`, the next step, `parents`)
 * plus `restored_from`, `reason`, `actor`, `idempotency_key`, `restored_at`;
 * its parent is the previous head. One immediate transaction; nothing else
 * changes. Replays and refusals as `restoreThread`.
 */
export async function restorePythonSqlite(db: SqliteWriteConnection, req: ThreadRestoreRequest, now: () => Date = () => new Date()): Promise<ThreadRestoreReceipt> {
  const reason = trimReason(req.reason);
  const cols = 'thread_id, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata';
  const plan = (): { earlier: ThreadRestoreReceipt } | { head: SqliteRow; target: SqliteRow } => {
    const earlier = db.prepare(`SELECT ${cols} FROM checkpoints WHERE json_valid(CAST(metadata AS TEXT)) AND json_extract(CAST(metadata AS TEXT), '$.idempotency_key') = ? LIMIT 1`).get(req.idempotencyKey) as SqliteRow | undefined;
    const replay = replayOf(req, reason, earlier === undefined ? undefined : { ...earlier, metadata: parseJson(earlier.metadata) });
    if (replay !== null) return { earlier: replay };
    const head = db.prepare(`SELECT ${cols} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`).get(req.threadId) as SqliteRow | undefined;
    if (head === undefined) refused('GF_CHECKPOINT_NOT_FOUND', 'no thread with this id in the checkpoint database', { kind: 'thread' });
    const target = db.prepare(`SELECT ${cols} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`).get(req.threadId, req.checkpointId) as SqliteRow | undefined;
    if (target === undefined) refused('GF_CHECKPOINT_NOT_FOUND', 'no checkpoint with this id in the thread', { kind: 'checkpoint' });
    if (head.checkpoint_id === req.checkpointId) refused('GF_VALIDATION', 'this checkpoint is already the head of the thread: there is nothing to restore', { reason: 'already_head' });
    return { head, target };
  };
  const first = plan();
  if ('earlier' in first) return first.earlier;
  const step = stepOf(parseJson(first.head.metadata));
  const id = await newId(step, first.head.checkpoint_id);
  const restoredAt = now().toISOString();
  const write = db.transaction((): ThreadRestoreReceipt => {
    const p = plan(); // again inside the transaction: another writer may have moved the head since
    if ('earlier' in p) return p.earlier;
    if (p.head.checkpoint_id >= id) refused('GF_VALIDATION', 'the thread changed while the restore was prepared; try again', { reason: 'head_moved' });
    const doc = carriedDocument(p.target, id, pythonIsoTime(new Date(restoredAt)));
    db.prepare("INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, '', ?, ?, ?, ?, ?)").run(
      req.threadId,
      id,
      p.head.checkpoint_id,
      p.target.type,
      doc,
      Buffer.from(JSON.stringify(restoreMetadata(req, reason, step, restoredAt)), 'utf8'),
    );
    return { thread_id: req.threadId, checkpoint_id: id, parent_checkpoint_id: p.head.checkpoint_id, restored_from: req.checkpointId, reason, actor: req.actor, idempotency_key: req.idempotencyKey, restored_at: restoredAt, replayed: false };
  });
  try {
    return write.immediate();
  } catch (e) {
    if (e instanceof GfError) throw e;
    const code = (e as { code?: unknown } | null)?.code;
    throw new GfError('GF_IO', 'the restore checkpoint could not be written', { reason: typeof code === 'string' ? code : 'write_failed' }, false);
  }
}

/** The target's stored document with a new `id` and `ts` (msgpack: carried byte for byte otherwise). */
function carriedDocument(target: SqliteRow, id: string, ts: string): Uint8Array {
  if (target.checkpoint === null || target.type !== 'msgpack') {
    refused('GF_CHECKPOINT_UNREADABLE', `checkpoint ${target.checkpoint_id} is stored as "${String(target.type)}", which a restore cannot carry into a new checkpoint`, { reason: 'unknown_serializer' });
  }
  try {
    return replaceMapMembers(target.checkpoint, { id, ts });
  } catch (e) {
    if (e instanceof PythonDecodeError) refused('GF_CHECKPOINT_UNREADABLE', `checkpoint ${target.checkpoint_id} of thread "${target.thread_id}" could not be read: ${e.detail}`, { reason: e.problem });
    throw e;
  }
}

/**
 * `threads.restore` on a PostgreSQL database Python LangGraph wrote.
 *
 * Python's PostgresSaver keeps the document as JSONB and each channel value
 * as a blob keyed by its version: the new checkpoint row is the target's
 * document with `id` and `ts` replaced, and since the versions are the
 * target's, the target's blobs serve it unchanged (no value is re-encoded).
 * Metadata and parent as `restorePythonSqlite`; one transaction, the thread
 * locked for its duration.
 */
export async function restorePythonPostgres(client: PostgresWriteConnection, req: ThreadRestoreRequest, now: () => Date = () => new Date()): Promise<ThreadRestoreReceipt> {
  const reason = trimReason(req.reason);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`gf-threads-restore:${req.threadId}`]);
    const earlier = await client.query<{ thread_id: string; checkpoint_id: string; parent_checkpoint_id: string | null; metadata: Record<string, unknown> }>(
      "SELECT thread_id, checkpoint_id, parent_checkpoint_id, metadata FROM checkpoints WHERE metadata ->> 'idempotency_key' = $1 LIMIT 1",
      [req.idempotencyKey],
    );
    const replay = replayOf(req, reason, earlier.rows[0]);
    if (replay !== null) {
      await client.query('ROLLBACK');
      return replay;
    }
    const head = (await client.query<{ checkpoint_id: string; metadata: Record<string, unknown> }>("SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1", [req.threadId])).rows[0];
    if (head === undefined) refused('GF_CHECKPOINT_NOT_FOUND', 'no thread with this id in the checkpoint database', { kind: 'thread' });
    const target = (await client.query<{ checkpoint_id: string }>("SELECT checkpoint_id FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = $2", [req.threadId, req.checkpointId])).rows[0];
    if (target === undefined) refused('GF_CHECKPOINT_NOT_FOUND', 'no checkpoint with this id in the thread', { kind: 'checkpoint' });
    if (head.checkpoint_id === req.checkpointId) refused('GF_VALIDATION', 'this checkpoint is already the head of the thread: there is nothing to restore', { reason: 'already_head' });
    const step = stepOf(head.metadata ?? {});
    const id = await newId(step, head.checkpoint_id);
    const restoredAt = now().toISOString();
    await client.query(
      `INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
       SELECT thread_id, checkpoint_ns, $3, $4, type, jsonb_set(jsonb_set(checkpoint, '{id}', to_jsonb($3::text)), '{ts}', to_jsonb($5::text)), $6::jsonb
         FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = $2`,
      [req.threadId, req.checkpointId, id, head.checkpoint_id, pythonIsoTime(new Date(restoredAt)), JSON.stringify(restoreMetadata(req, reason, step, restoredAt))],
    );
    await client.query('COMMIT');
    return { thread_id: req.threadId, checkpoint_id: id, parent_checkpoint_id: head.checkpoint_id, restored_from: req.checkpointId, reason, actor: req.actor, idempotency_key: req.idempotencyKey, restored_at: restoredAt, replayed: false };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (e instanceof GfError) throw e;
    const code = (e as { code?: unknown } | null)?.code;
    throw new GfError('GF_IO', 'the restore checkpoint could not be written', { reason: typeof code === 'string' ? code : 'write_failed' }, false);
  }
}
