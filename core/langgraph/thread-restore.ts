import type { BaseCheckpointSaver, Checkpoint, CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { GfError } from '../errors';
import { trimReason } from '../contract/reasons';
import type { ThreadRestoreReceipt } from '../contract/threads';

/** What `threads.restore` asks for (the reason already passed the revert-reason rule). */
export interface ThreadRestoreRequest {
  readonly threadId: string;
  readonly checkpointId: string;
  readonly reason: string;
  readonly actor: string | null;
  readonly idempotencyKey: string;
  /** The head the caller's preview was computed from: another head now is `GF_STALE_PREVIEW`, nothing written. */
  readonly expectedHead?: string;
}

const config = (threadId: string, checkpointId?: string) => ({
  configurable: checkpointId === undefined ? { thread_id: threadId, checkpoint_ns: '' } : { thread_id: threadId, checkpoint_ns: '', checkpoint_id: checkpointId },
});

const idOf = (t: CheckpointTuple): string => String(t.config.configurable?.['checkpoint_id']);

function refused(code: 'GF_CHECKPOINT_NOT_FOUND' | 'GF_VALIDATION' | 'GF_IDEMPOTENCY_CONFLICT', message: string, details: Record<string, string>): never {
  throw new GfError(code, message, details, false);
}

/** The receipt a restore checkpoint's metadata records (null when the checkpoint is not a restore). */
function receiptOf(t: CheckpointTuple, parent: string | null): Omit<ThreadRestoreReceipt, 'replayed'> | null {
  const m = (t.metadata ?? {}) as Record<string, unknown>;
  if (typeof m['restored_from'] !== 'string' || typeof m['idempotency_key'] !== 'string') return null;
  return {
    thread_id: String(t.config.configurable?.['thread_id']),
    checkpoint_id: idOf(t),
    parent_checkpoint_id: parent ?? '',
    restored_from: m['restored_from'],
    reason: typeof m['reason'] === 'string' ? m['reason'] : '',
    actor: typeof m['actor'] === 'string' ? m['actor'] : null,
    idempotency_key: m['idempotency_key'],
    restored_at: typeof m['restored_at'] === 'string' ? m['restored_at'] : t.checkpoint.ts,
  };
}

/**
 * A restore's refusals and replay, without writing: the first receipt of a replay, else the head and the chosen checkpoint.
 *
 * Run on a read-only reader first, a refused restore never opens the
 * database for writing (opening it through the saver switches it to WAL).
 */
export async function checkRestore(saver: Pick<BaseCheckpointSaver, 'getTuple' | 'list'>, req: ThreadRestoreRequest): Promise<{ readonly kind: 'replay'; readonly receipt: ThreadRestoreReceipt } | { readonly kind: 'restore'; readonly head: CheckpointTuple; readonly target: CheckpointTuple }> {
  const reason = trimReason(req.reason);
  for await (const earlier of saver.list({ configurable: {} }, { filter: { idempotency_key: req.idempotencyKey }, limit: 1 })) {
    const first = receiptOf(earlier, (earlier.parentConfig?.configurable?.['checkpoint_id'] as string | undefined) ?? null);
    if (first !== null && first.thread_id === req.threadId && first.restored_from === req.checkpointId && first.reason === reason && first.actor === req.actor) {
      return { kind: 'replay', receipt: { ...first, replayed: true } };
    }
    refused('GF_IDEMPOTENCY_CONFLICT', 'this idempotency key was used for a different restore', { operation: 'threads.restore' });
  }
  const head = await saver.getTuple(config(req.threadId));
  if (head === undefined) refused('GF_CHECKPOINT_NOT_FOUND', 'no thread with this id in the checkpoint database', { kind: 'thread' });
  const target = await saver.getTuple(config(req.threadId, req.checkpointId));
  if (target === undefined) refused('GF_CHECKPOINT_NOT_FOUND', 'no checkpoint with this id in the thread', { kind: 'checkpoint' });
  const headId = idOf(head);
  if (req.expectedHead !== undefined && headId !== req.expectedHead) {
    throw new GfError('GF_STALE_PREVIEW', 'the thread has a new head since this restore was previewed; nothing was written', { operation: 'threads.restore', phase: 'head_moved' }, false);
  }
  if (headId === req.checkpointId) refused('GF_VALIDATION', 'this checkpoint is already the head of the thread: there is nothing to restore', { reason: 'already_head' });
  return { kind: 'restore', head, target };
}

/**
 * `threads.restore`: appends one checkpoint equal to the chosen one at the head of its thread.
 *
 * Written through the adapter's upstream saver (`put`), so the new
 * checkpoint is in LangGraph's own format: a copy of the chosen
 * checkpoint's channel values, versions and `versions_seen` under a new,
 * newer id, whose parent is the previous head. Resuming the graph from it
 * runs exactly as LangGraph's own time travel from the chosen checkpoint.
 * Nothing is deleted or changed. Its metadata records `restored_from`,
 * `reason`, `actor`, `idempotency_key` and `restored_at`. A replay with the
 * same key and request returns the first receipt and writes nothing; the
 * same key with anything else changed is `GF_IDEMPOTENCY_CONFLICT`;
 * restoring the current head is refused (`GF_VALIDATION`, `already_head`).
 */
export async function restoreThread(saver: BaseCheckpointSaver, req: ThreadRestoreRequest, now: () => Date = () => new Date()): Promise<ThreadRestoreReceipt> {
  const checked = await checkRestore(saver, req);
  if (checked.kind === 'replay') return checked.receipt;
  const { head, target } = checked;
  const reason = trimReason(req.reason);
  const headId = idOf(head);
  const { uuid6, copyCheckpoint } = await import('@langchain/langgraph-checkpoint');
  const headMeta = (head.metadata ?? {}) as Record<string, unknown>;
  const step = (typeof headMeta['step'] === 'number' ? headMeta['step'] : -1) + 1;
  let id = uuid6(step);
  while (id <= headId) id = uuid6(step); // time-based ids: the new head must sort after the old one
  const restoredAt = now().toISOString();
  const copy = copyCheckpoint(target.checkpoint);
  const checkpoint: Checkpoint = { ...copy, id, ts: restoredAt };
  const metadata = {
    source: 'update',
    step,
    parents: {},
    restored_from: req.checkpointId,
    reason,
    actor: req.actor,
    idempotency_key: req.idempotencyKey,
    restored_at: restoredAt,
  } as CheckpointMetadata;
  // Every channel that has a value gets its (unchanged) version re-declared; blobs already stored are kept as they are.
  const versions = Object.fromEntries(Object.entries(checkpoint.channel_versions).filter(([k]) => k in checkpoint.channel_values));
  try {
    await saver.put(config(req.threadId, headId), checkpoint, metadata, versions);
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    throw new GfError('GF_IO', 'the restore checkpoint could not be written', { reason: typeof code === 'string' ? code : 'write_failed' }, false);
  }
  return {
    thread_id: req.threadId,
    checkpoint_id: id,
    parent_checkpoint_id: headId,
    restored_from: req.checkpointId,
    reason,
    actor: req.actor,
    idempotency_key: req.idempotencyKey,
    restored_at: restoredAt,
    replayed: false,
  };
}
