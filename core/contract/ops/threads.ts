// The agent thread operations over LangGraph checkpoint databases (read-only
// except threads.restore and threads.prune): list threads, a thread's history,
// one checkpoint, its namespaces, a diff, restore, prune and health. Each
// declared once with its request schema and result type. Browser-safe.
import { z } from 'zod';
import { THREAD_ID_MAX_CHARS, THREAD_PAGE_LIMITS, THREAD_PRUNE_KEEP_MAX, type ThreadDiff, type ThreadHealth, type ThreadHistoryRow, type ThreadListRow, type ThreadNamespaces, type ThreadPage, type ThreadPrunePreview, type ThreadPruneReceipt, type ThreadRestoreReceipt, type ThreadState } from '../threads';
import { CONTROL, afterSchema, directorySchema, reasonSchema, uuidSchema } from './atoms';
import { jsonOp, returns, type DomainOperations } from './declare';

/**
 * Where a thread operation reads: a LangGraph SQLite checkpoint file, or the
 * Postgres database given at launch (`GF_LANGGRAPH_POSTGRES_URL` or `--postgres-url`).
 *
 * A connection string never crosses a surface: a request can only say "the
 * launch database", so a URL is never sent, logged or stored.
 */
export const threadSourceSchema = z.union([
  z.object({ kind: z.literal('sqlite'), path: directorySchema }).strict(),
  z.object({ kind: z.literal('postgres') }).strict(),
]);
/** A LangGraph thread or checkpoint id: 1–256 characters, no control characters. */
export const threadIdSchema = z.string().min(1).max(THREAD_ID_MAX_CHARS).refine((s) => !CONTROL.test(s), 'id has a control character');
const threadLimitSchema = z.number().int().min(1).max(THREAD_PAGE_LIMITS.max).optional();
/** How many of each thread's newest checkpoints a prune keeps (0: only those it never deletes). */
const threadKeepSchema = z.number('keep_last is a whole number').int('keep_last is a whole number').min(0, 'keep_last is at least 0').max(THREAD_PRUNE_KEEP_MAX, `keep_last is at most ${THREAD_PRUNE_KEEP_MAX}`);
/** A checkpoint namespace (a subgraph's, as LangGraph names it: `node:task-id`, nested with `|`); omitted or `""` = the thread's own (root). */
const threadNamespaceSchema = z.string().max(THREAD_ID_MAX_CHARS).refine((s) => !CONTROL.test(s), 'namespace has a control character').optional();

/** The agent thread operations. */
export const THREAD_OPERATIONS = {
  /** A page of the source's threads (root namespace), by thread id, optionally those starting with `prefix`. */
  'threads.list': jsonOp(
    z.object({ source: threadSourceSchema, prefix: z.string().max(THREAD_ID_MAX_CHARS).refine((s) => !CONTROL.test(s), 'control character').optional(), limit: threadLimitSchema, after: afterSchema }).strict(),
    returns<ThreadPage<ThreadListRow>>(), false, 'LangGraph threads of a checkpoint database: count, newest checkpoint, pending interrupt; paged, prefix search.'),
  /** One thread's checkpoints, newest first, in keyset pages. */
  'threads.history': jsonOp(
    z.object({ source: threadSourceSchema, thread_id: threadIdSchema, checkpoint_ns: threadNamespaceSchema, limit: threadLimitSchema, after: afterSchema }).strict(),
    returns<ThreadPage<ThreadHistoryRow>>(), false, "A thread's checkpoints (of its root, or of one subgraph namespace), newest first: id, parent, time, step, source, writing nodes, next nodes; paged."),
  /** One checkpoint in full (the head when `checkpoint_id` is omitted). */
  'threads.state': jsonOp(
    z.object({ source: threadSourceSchema, thread_id: threadIdSchema, checkpoint_ns: threadNamespaceSchema, checkpoint_id: threadIdSchema.optional() }).strict(),
    returns<ThreadState>(), false, 'One checkpoint: channel values as JSON with types, metadata, pending writes, interrupts, channel versions.'),
  /** The subgraph checkpoint namespaces of a thread (each subgraph run keeps its own checkpoints, apart from the parent's timeline). */
  'threads.namespaces': jsonOp(
    z.object({ source: threadSourceSchema, thread_id: threadIdSchema }).strict(),
    returns<ThreadNamespaces>(), false, "A thread's subgraph checkpoint namespaces: node, task, checkpoint count, newest checkpoint, the parent checkpoint it ran under."),
  /** Two checkpoints of a thread (`HEAD` names the newest): channel summary and JSON-pointer value changes, paged. */
  'threads.diff': jsonOp(
    z.object({ source: threadSourceSchema, thread_id: threadIdSchema, from: threadIdSchema, to: threadIdSchema, limit: threadLimitSchema, after: afterSchema, operation_id: uuidSchema.optional() }).strict(),
    returns<ThreadDiff>(), false, 'Channel summary and JSON-pointer value changes between two checkpoints of a thread; paged with signed tokens, cancellable.'),
  /** Appends one checkpoint equal to `checkpoint_id` at the thread's head, with a required reason (revert reason rules). */
  'threads.restore': jsonOp(
    z.object({
      source: threadSourceSchema,
      thread_id: threadIdSchema,
      checkpoint_id: threadIdSchema,
      reason: reasonSchema,
      actor: z.string().min(1).max(THREAD_ID_MAX_CHARS).refine((s) => !CONTROL.test(s), 'control character').nullable().optional(),
      idempotency_key: uuidSchema,
      /**
       * The head checkpoint the caller's preview was computed from. When the
       * thread's head is another one now, the restore is refused with
       * `GF_STALE_PREVIEW` and nothing is written.
       */
      expected_head_checkpoint_id: threadIdSchema.optional(),
    }).strict(),
    returns<ThreadRestoreReceipt>(), true, "Append a new head checkpoint whose state equals a chosen checkpoint's, with a reason (idempotent)."),
  /** What a prune would delete: per thread, the checkpoints older than the `keep_last` newest, less those a prune never deletes. */
  'threads.prune_preview': jsonOp(
    z.object({ source: threadSourceSchema, keep_last: threadKeepSchema, thread_id: threadIdSchema.optional(), limit: threadLimitSchema }).strict(),
    returns<ThreadPrunePreview>(), false, "What threads.prune would delete (never a head, an interrupted checkpoint, a restore's head or target), with the set's digest."),
  /**
   * Deletes exactly what `threads.prune_preview` listed, in one transaction, with a required reason (revert reason
   * rules), and records the prune in the database. `expected_preview_digest` is the preview's `preview_digest`:
   * when the database gives another set now, the prune is refused with `GF_STALE_PREVIEW` and nothing is written.
   */
  'threads.prune': jsonOp(
    z.object({
      source: threadSourceSchema,
      keep_last: threadKeepSchema,
      thread_id: threadIdSchema.optional(),
      reason: reasonSchema,
      actor: z.string().min(1).max(THREAD_ID_MAX_CHARS).refine((s) => !CONTROL.test(s), 'control character').nullable().optional(),
      idempotency_key: uuidSchema,
      expected_preview_digest: z.string('a preview digest is the text threads.prune_preview returned').regex(/^[0-9a-f]{64}$/, 'a preview digest is the 64 hex digits threads.prune_preview returned'),
    }).strict(),
    returns<ThreadPruneReceipt>(), true, 'Delete old checkpoints of threads exactly as previewed, with a reason, in one transaction; recorded in the database (idempotent).'),
  /** The source adapter's health record. */
  'threads.health': jsonOp(z.object({ source: threadSourceSchema }).strict(), returns<ThreadHealth>(), false, "The LangGraph checkpointer adapter's health: pool in use and idle, last write age."),
} as const satisfies DomainOperations;
