// The one operation contract shared by the facade, the `gf` CLI, Electron IPC
// and the browser-mode HTTP bridge. Browser-safe: imports only zod and core/contract.
import { z } from 'zod';
import { CURRENT_SELECTOR, DIFF_DETAILS, DIFF_PAGE_LIMITS, DIFF_SCOPES, DIFF_SEARCH_MAX_CHARS, RECORD_CHANGE_KINDS, type DiffStatResult, type SummaryChangeKind } from './diff';
import { DESCRIPTION_MAX_UTF8_BYTES, NAME_MAX_UTF8_BYTES, nameRefusal, nameRuleSentence, utf8Length } from './names';
import { REASON_MAX_UTF8_BYTES, REASON_MAX_RAW_CHARS, reasonRefusal } from './reasons';
import { HISTORY_NAME_FILTER_MAX, LINEAGE_KINDS, RETAIN_ANCESTORS_MAX, type HistoryPage, type PrunableGeneration, type RetentionPolicy } from './history';
import type { ArrowRow, ArrowSchemaName, RecordRow } from './results';
import { THREAD_ID_MAX_CHARS, THREAD_PAGE_LIMITS, type LaunchThreadSources, type ThreadDiff, type ThreadHealth, type ThreadHistoryRow, type ThreadListRow, type ThreadPage, type ThreadNamespaces, type ThreadPrunePreview, type ThreadPruneReceipt, type ThreadRestoreReceipt, type ThreadState, THREAD_PRUNE_KEEP_MAX } from './threads';
import { WORKFLOW_ID_PATTERN, type EvidenceGeneration } from './chain';
import { DEMO_MAX_RECORDS, DEMO_MAX_SEED, DEMO_MIN_RECORDS } from './demo';
import { MAX_VECTOR_FILE_CHARS, PARTICIPANT_LIMITS, type ChainRowEntry, type DemoCreated, type DoctorReport, type PublishReceipt, type VectorResultEntry } from './maintenance';

export { MAX_VECTOR_FILE_CHARS, PARTICIPANT_LIMITS };
import { GRAPH_FAMILIES, GRAPH_LIMITS } from './graph';
import { ADOPT_MODES, ONTOLOGY_INPUT_LIMITS, ONTOLOGY_SOURCE_FORMATS } from './workspace';
import { DISPLAY_NAME_MAX_CHARS, displayNameRefusal, type ActorBook, type ActorIdentity } from './actor';
import type { OperationName } from './operation-names';

export { OPERATION_NAMES, isOperationName, unknownOperation } from './operation-names';
export type { OperationName } from './operation-names';

/** Lowercase canonical UUID text (the only UUID spelling any surface accepts). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Chain workflow ids (CHAIN.md), declared with the chain's other surface rules. */
export { WORKFLOW_ID_PATTERN } from './chain';

/** Opaque page tokens: base64url segments joined by `.`, never parsed by a surface. */
export const PAGE_TOKEN_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export type { HistoryCheckpoint, HistoryEntry, HistoryPage, HistoryStatus, LineageKind, PrunableGeneration, RetentionPolicy, RetentionSource } from './history';
export { DEFAULT_RETAIN_ANCESTORS, HISTORY_STATUSES, LINEAGE_KINDS, RETAIN_ANCESTORS_MAX, RETENTION_SOURCES } from './history';

/** Diff scopes and detail levels (frozen by `checkpoint-api-v1.json`). */
export { DIFF_DETAILS, DIFF_SCOPES } from './diff';
export type { DiffDetail, DiffScope } from './diff';

/** Contract limits (checkpoint-api-v1.json `limits`, plus surface bounds): each one declared once, where its rule lives. */
export const LIMITS = {
  nameUtf8Bytes: NAME_MAX_UTF8_BYTES,
  descriptionUtf8Bytes: DESCRIPTION_MAX_UTF8_BYTES,
  reasonUtf8Bytes: REASON_MAX_UTF8_BYTES,
  pageMax: DIFF_PAGE_LIMITS.max,
  pathChars: 4096,
  identifierChars: 128,
} as const;

const byteLength = utf8Length;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A session handle returned by `project.open`/`project.create` (or `view.open` for views). */
export const handleSchema = z.string('a handle is the text project.open returned').regex(UUID_PATTERN, 'a handle is the lowercase UUID project.open returned');
/** A canonical lowercase UUID. */
export const uuidSchema = z.string('a UUID is text').regex(UUID_PATTERN, 'a UUID is canonical lowercase (8-4-4-4-12 hex digits)');
/** An optional, nullable actor UUID. */
const actorSchema = uuidSchema.nullable().optional();

/**
 * A checkpoint name as it crosses a surface.
 *
 * Names are content, never paths. The surface applies the engine's own rule
 * (core/contract/names.ts: NFC first, then 1–128 UTF-8 bytes, letters,
 * numbers, space, `_-.`), so the API accepts exactly what the engine and the
 * CLI accept. The raw text is bounded at four code units per NFC byte (a
 * decomposed name is longer before NFC than after).
 */
export const checkpointNameSchema = z
  .string()
  .min(1)
  .max(4 * LIMITS.nameUtf8Bytes)
  .superRefine((s, ctx) => {
    const refusal = nameRefusal(s);
    if (refusal !== null) ctx.addIssue({ code: 'custom', message: nameRuleSentence(refusal), params: { rule: refusal } });
  });

/** Diff endpoint: a checkpoint name or the reserved selector `CURRENT`. */
export const selectorSchema = z.union([z.literal(CURRENT_SELECTOR), checkpointNameSchema]);

/**
 * The name of a NEW checkpoint: a checkpoint name that is not the reserved selector `CURRENT`.
 *
 * Reserving the name keeps every diff endpoint unambiguous (ADR-0014: diff
 * accepts checkpoint names plus the reserved selector CURRENT).
 */
export const newCheckpointNameSchema = checkpointNameSchema.refine((s) => s.normalize('NFC') !== CURRENT_SELECTOR, 'CURRENT is reserved');

const limitSchema = z
  .number('a page size is a whole number')
  .int('a page size is a whole number')
  .min(1, 'a page size is at least 1')
  .max(LIMITS.pageMax, `a page size is at most ${LIMITS.pageMax}`)
  .optional();
const afterSchema = z.string().max(4096).regex(PAGE_TOKEN_PATTERN).nullable().optional();

/**
 * A directory chosen explicitly by the user (open/create project only).
 *
 * The only request field that is ever a path; the facade validates it is an
 * absolute directory before touching anything.
 */
export const directorySchema = z
  .string()
  .min(1)
  .max(LIMITS.pathChars)
  .refine((s) => !CONTROL.test(s), 'path has a control character');

const boundedText = (maxBytes: number) =>
  z
    .string()
    .max(maxBytes)
    .refine((s) => byteLength(s) <= maxBytes, 'text too long');

/**
 * A revert reason: 1–1,024 UTF-8 bytes after trimming (core/contract/reasons.ts).
 *
 * Counted after trimming, as the engine stores it; the raw text is bounded
 * separately so a reason padded with whitespace is still accepted.
 */
export const reasonSchema = z
  .string()
  .max(REASON_MAX_RAW_CHARS)
  .max(REASON_MAX_RAW_CHARS, 'a reason is 1 to 1,024 UTF-8 bytes after trimming')
  .refine((s) => reasonRefusal(s) === null, 'a reason is 1 to 1,024 UTF-8 bytes after trimming');

/** A display name (core/contract/actor.ts: 1–64 characters after trimming, no control character). */
export const displayNameSchema = z.string().max(4 * DISPLAY_NAME_MAX_CHARS).refine((s) => displayNameRefusal(s) === null, 'a display name is 1 to 64 characters without control characters');

const workflowIdSchema = z.string().regex(WORKFLOW_ID_PATTERN);
// ---- c20: bounds of the CLI's operations
/** A capability or record family id as `project.publish` names it. */
const familyPartSchema = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);
/** Base64 text (standard alphabet, padded). */
const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;
/** One participant's bytes as base64: at most `PARTICIPANT_LIMITS.bytes` of bytes. */
const MAX_PARTICIPANT_BASE64_CHARS = Math.ceil(PARTICIPANT_LIMITS.bytes / 3) * 4;
// ---- end c20
const identifierSchema = z.string().regex(/^[a-z][a-z0-9_-]{0,127}$/);
/** A declared field name of a record family. */
const fieldNameSchema = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);
/**
 * A record identity: the family's identity field names → values.
 *
 * Timestamps travel as decimal microsecond text (no precision loss); the
 * facade converts each value to its field's kind.
 */
const identitySchema = z
  .record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), z.union([z.string().max(1024), z.number(), z.boolean(), z.null()]))
  .refine((r) => Object.keys(r).length >= 1 && Object.keys(r).length <= 8, 'identity has 1–8 fields');
const digestSchema = z.string().regex(/^(sha256|blake3):[0-9a-f]{64}$/);
/** How long a write waits for a busy writer lock, in milliseconds (0, the default: fail at once with `GF_WRITER_BUSY`). */
const timeoutSchema = z.number('a timeout is a whole number of milliseconds').int('a timeout is a whole number of milliseconds').min(0, 'a timeout is at least 0 ms').max(3_600_000, 'a timeout is at most 3,600,000 ms (one hour)').optional();

// ---- Agent threads (issue 17): request parts of the threads.* operations.
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
// ---- end agent threads

// ---- workspace documents (o21)
/** Where a workspace document is read: CURRENT of a project, or the generation an open view pins (exactly one). */
const documentTargetSchema = z
  .object({ project: handleSchema.optional(), view: handleSchema.optional() })
  .strict()
  .refine((r) => (r.project === undefined) !== (r.view === undefined), 'exactly one of project or view');
// ---- end workspace documents

/** Result kinds: a JSON value, or an Arrow IPC stream (with its next-page token). */
export const RESULT_KINDS = ['json', 'arrow'] as const;
export type ResultKind = (typeof RESULT_KINDS)[number];

/** One declared operation: its request schema, result kind and whether it writes. */
export interface OperationSpec {
  /** Runtime-validated request: a `.strict()` object, bounded strings, closed enums. */
  readonly request: z.ZodType;
  /** `json` values travel as-is; `arrow` results travel as IPC stream bytes. */
  readonly result: ResultKind;
  /** Writes report `committed` on failure. */
  readonly writes: boolean;
  /** One line for `--help`, the renderer and docs. */
  readonly summary: string;
}

const spec = <S extends z.ZodType, R extends ResultKind>(request: S, result: R, writes: boolean, summary: string) =>
  ({ request, result, writes, summary }) as const;

/**
 * Every user-visible operation, declared once.
 *
 * Electron registers one IPC channel per entry (`gf:<name>`), the bridge
 * serves `POST /api/<name>`, and the CLI calls the same facade entry. The
 * renderer imports this module to type its `invoke`.
 */
export const OPERATIONS = {
  'app.session': spec(z.object({}).strict(), 'json', false, 'The project opened by the launcher, if any, and the surface mode.'),
  /**
   * The desktop app's folder dialog (Electron's `showOpenDialog`, one folder): the folder the person chose, or
   * null when they cancelled. Opens nothing (the renderer then calls `project.open`). `GF_DESKTOP_ONLY` on a
   * surface without a dialog (browser mode types the path).
   */
  'app.choose_workspace': spec(z.object({}).strict(), 'json', false, 'Choose a workspace folder with the desktop app\'s dialog (desktop only).'),
  'project.open': spec(z.object({ path: directorySchema }).strict(), 'json', false, 'Open an existing workspace directory; returns a session handle.'),
  'project.create': spec(z.object({ path: directorySchema }).strict(), 'json', true, 'Create an empty workspace container; returns a session handle.'),
  'project.close': spec(z.object({ project: handleSchema }).strict(), 'json', false, 'Forget a session handle.'),
  'project.summary': spec(z.object({ project: handleSchema }).strict(), 'json', false, 'Generations with parents, restoration records and CURRENT.'),
  /**
   * Active checkpoints (`checkpoint@1`), or with `deleted: true` the deleted ones.
   *
   * Deleted checkpoints come back as a separate Arrow table,
   * `checkpoint_tombstone@1` (name, checkpoint_uuid, generation_uuid,
   * deleted_at, deleted_revision; deletion order), paged the same way with its
   * own tokens (a token of one listing is `GF_PAGE_INVALID` in the other).
   */
  'checkpoints.list': spec(
    z.object({ project: handleSchema, limit: limitSchema, after: afterSchema, deleted: z.boolean().optional() }).strict(),
    'arrow', false, 'Active checkpoints (checkpoint@1), or deleted ones (checkpoint_tombstone@1) with deleted: true; paged.'),
  'checkpoints.create': spec(
    z.object({ project: handleSchema, name: newCheckpointNameSchema, description: boundedText(LIMITS.descriptionUtf8Bytes).nullable().optional(), idempotency_key: uuidSchema, actor_uuid: actorSchema, timeout_ms: timeoutSchema }).strict(),
    'arrow', true, 'Name the current generation (checkpoint_receipt@1).'),
  'checkpoints.delete': spec(
    z.object({ project: handleSchema, name: checkpointNameSchema, idempotency_key: uuidSchema, actor_uuid: actorSchema, timeout_ms: timeoutSchema }).strict(),
    'arrow', true, 'Delete a checkpoint name (checkpoint_receipt@1).'),
  'checkpoints.diff': spec(
    z.object({
      project: handleSchema,
      from: selectorSchema,
      to: selectorSchema,
      scope: z.enum(DIFF_SCOPES),
      detail: z.enum(DIFF_DETAILS),
      limit: limitSchema,
      after: afterSchema,
      /** Only this record family of the scope (its drill-down); page tokens are bound to it. */
      record_family_id: identifierSchema.optional(),
      /** The family's capability (optional; only with `record_family_id`, and must be its capability). */
      capability_id: identifierSchema.optional(),
      operation_id: uuidSchema.optional(),
      // --- reviewer diff (issue 18, area: diff engine). Every field below needs record detail of one family.
      /** Record pages with display values, changed fields, row numbers and totals (`checkpoint_record_diff_display@1`). */
      display: z.boolean().optional(),
      /** Only these change kinds (engine-side filter; page tokens are bound to it). Needs `display`. */
      change_kinds: z.array(z.enum(RECORD_CHANGE_KINDS)).min(1).max(RECORD_CHANGE_KINDS.length).optional(),
      /** Only modified records in which this field changed (engine-side; bound into page tokens). Needs `display`. */
      changed_field: fieldNameSchema.optional(),
      /** Record-id prefix (UUID text or hex) or display-text substring, case-insensitive (engine-side, paged, bound). Needs `display`. */
      search: z.string().min(1).max(DIFF_SEARCH_MAX_CHARS).optional(),
      /** Jump: the page starting at this 0-based row of the (filtered) change list; not with `after`. Needs `display`. */
      position: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
      /** Also the changed fields' before and after values of modified records (`checkpoint_record_diff_values@1`; exports). Needs `display`. */
      changed_values: z.boolean().optional(),
    }).strict(),
    'arrow', false, 'Summary or record diff between two checkpoints or CURRENT (optionally one record family), paged and cancellable.'),
  /**
   * Exact statistics of a diff: per participant the added, removed and
   * modified record counts and the changed cells per field (issue 18).
   *
   * Reads each changed family once (the change lists it stores make later
   * pages, totals and jumps cheap); cancellable by `operation_id`.
   */
  'checkpoints.diff_stat': spec(
    z.object({
      project: handleSchema,
      from: selectorSchema,
      to: selectorSchema,
      scope: z.enum(DIFF_SCOPES),
      record_family_id: identifierSchema.optional(),
      capability_id: identifierSchema.optional(),
      operation_id: uuidSchema.optional(),
    }).strict(),
    'json', false, 'Exact per-family counts of added, removed and modified records and changed cells per field between two checkpoints or CURRENT.'),
  'operation.cancel': spec(z.object({ operation_id: uuidSchema }).strict(), 'json', false, 'Cancel a running diff by its operation id.'),
  /**
   * Both versions of one record between two checkpoints or CURRENT, and the
   * fields that differ (the record inspector of a diff).
   *
   * The diff itself carries fingerprints only; this shows values, to the
   * user who asked, for one record at a time. The record is named by its
   * identity field values, or (for any family, with or without a record
   * UUID) by a record-diff row's `record_identity_fingerprint`, optionally
   * with that row's `record_uuid`: exactly one of `identity` and
   * `record_identity_fingerprint` (`GF_VALIDATION` otherwise, and when no
   * such record is on either side).
   */
  'checkpoints.record_change': spec(
    z.object({
      project: handleSchema,
      from: selectorSchema,
      to: selectorSchema,
      record_family_id: identifierSchema,
      identity: identitySchema.optional(),
      record_identity_fingerprint: z.string().regex(/^[0-9a-f]{64}$/).optional(),
      record_uuid: uuidSchema.nullable().optional(),
    }).strict(),
    'json', false, 'Both versions of one record between two checkpoints or CURRENT, and the fields that differ.'),
  'revert.preview': spec(z.object({ project: handleSchema, name: checkpointNameSchema }).strict(), 'json', false, 'What a revert to this checkpoint would restore.'),
  'checkpoints.revert': spec(
    z.object({
      project: handleSchema,
      name: checkpointNameSchema,
      reason: reasonSchema,
      idempotency_key: uuidSchema,
      actor_uuid: actorSchema,
      timeout_ms: timeoutSchema,
      /**
       * The CURRENT generation the caller's preview was computed against
       * (`revert.preview`'s `current_generation_uuid`). When CURRENT has moved
       * since, the revert is refused with `GF_STALE_PREVIEW` and nothing is
       * written; without it a revert publishes on whatever CURRENT is (ADR-0014).
       * A replay of a published revert returns its receipt whatever it says.
       */
      expected_current_generation_uuid: uuidSchema.optional(),
    }).strict(),
    'arrow', true, 'Publish a new generation equal to a checkpoint (checkpoint_receipt@1).'),
  /** One active checkpoint by name (`show_checkpoint`, ADR-0014): a one-row `checkpoint@1` table, or `GF_CHECKPOINT_NOT_FOUND`. */
  'checkpoints.show': spec(z.object({ project: handleSchema, name: checkpointNameSchema }).strict(), 'arrow', false, 'One active checkpoint by name (checkpoint@1, one row).'),
  'view.open': spec(z.object({ project: handleSchema, name: checkpointNameSchema }).strict(), 'json', false, 'Open a read-only, lease-pinned view of a checkpoint.'),
  'view.close': spec(z.object({ view: handleSchema }).strict(), 'json', false, 'Release a view and its lease.'),
  'view.participants': spec(z.object({ view: handleSchema }).strict(), 'json', false, 'The participants of a view (manifest entries).'),
  'view.records': spec(
    z.object({ view: handleSchema, capability_id: identifierSchema, record_family_id: identifierSchema, limit: limitSchema, after: afterSchema }).strict(),
    'arrow', false, 'A page of one participant\'s records.'),
  'view.record': spec(
    z.object({ view: handleSchema, capability_id: identifierSchema, record_family_id: identifierSchema, identity: identitySchema }).strict(),
    'arrow', false, 'One record by its identity values (zero or one row).'),
  'chain.list': spec(z.object({ project: handleSchema }).strict(), 'json', false, 'Workflows with a ledger in the project\'s chain store.'),
  'chain.read': spec(
    z.object({ project: handleSchema, workflow_id: workflowIdSchema, limit: limitSchema, after: afterSchema }).strict(),
    'json', false, 'A workflow\'s transition events in append order, paged.'),
  'chain.verify': spec(
    z.object({ project: handleSchema, workflow_id: workflowIdSchema.optional(), expect_head: digestSchema.optional() }).strict(),
    'json', false, 'Recompute and check every chain head (one workflow, or all when omitted).'),
  'chain.health': spec(z.object({ project: handleSchema }).strict(), 'json', false, 'Chain store health (backend, counters).'),
  // ---- Agent threads (issue 17, t17): LangGraph checkpoint databases, read-only except threads.restore.
  /** A page of the source's threads (root namespace), by thread id, optionally those starting with `prefix`. */
  'threads.list': spec(
    z.object({ source: threadSourceSchema, prefix: z.string().max(THREAD_ID_MAX_CHARS).refine((s) => !CONTROL.test(s), 'control character').optional(), limit: threadLimitSchema, after: afterSchema }).strict(),
    'json', false, 'LangGraph threads of a checkpoint database: count, newest checkpoint, pending interrupt; paged, prefix search.'),
  /** One thread's checkpoints, newest first, in keyset pages. */
  'threads.history': spec(
    z.object({ source: threadSourceSchema, thread_id: threadIdSchema, checkpoint_ns: threadNamespaceSchema, limit: threadLimitSchema, after: afterSchema }).strict(),
    'json', false, "A thread's checkpoints (of its root, or of one subgraph namespace), newest first: id, parent, time, step, source, writing nodes, next nodes; paged."),
  /** One checkpoint in full (the head when `checkpoint_id` is omitted). */
  'threads.state': spec(
    z.object({ source: threadSourceSchema, thread_id: threadIdSchema, checkpoint_ns: threadNamespaceSchema, checkpoint_id: threadIdSchema.optional() }).strict(),
    'json', false, 'One checkpoint: channel values as JSON with types, metadata, pending writes, interrupts, channel versions.'),
  /** The subgraph checkpoint namespaces of a thread (each subgraph run keeps its own checkpoints, apart from the parent's timeline). */
  'threads.namespaces': spec(
    z.object({ source: threadSourceSchema, thread_id: threadIdSchema }).strict(),
    'json', false, "A thread's subgraph checkpoint namespaces: node, task, checkpoint count, newest checkpoint, the parent checkpoint it ran under."),
  /** Two checkpoints of a thread (`HEAD` names the newest): channel summary and JSON-pointer value changes, paged. */
  'threads.diff': spec(
    z.object({ source: threadSourceSchema, thread_id: threadIdSchema, from: threadIdSchema, to: threadIdSchema, limit: threadLimitSchema, after: afterSchema, operation_id: uuidSchema.optional() }).strict(),
    'json', false, 'Channel summary and JSON-pointer value changes between two checkpoints of a thread; paged with signed tokens, cancellable.'),
  /** Appends one checkpoint equal to `checkpoint_id` at the thread's head, with a required reason (revert reason rules). */
  'threads.restore': spec(
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
    'json', true, "Append a new head checkpoint whose state equals a chosen checkpoint's, with a reason (idempotent)."),
  /** What a prune would delete: per thread, the checkpoints older than the `keep_last` newest, less those a prune never deletes. */
  'threads.prune_preview': spec(
    z.object({ source: threadSourceSchema, keep_last: threadKeepSchema, thread_id: threadIdSchema.optional(), limit: threadLimitSchema }).strict(),
    'json', false, "What threads.prune would delete (never a head, an interrupted checkpoint, a restore's head or target), with the set's digest."),
  /**
   * Deletes exactly what `threads.prune_preview` listed, in one transaction, with a required reason (revert reason
   * rules), and records the prune in the database. `expected_preview_digest` is the preview's `preview_digest`:
   * when the database gives another set now, the prune is refused with `GF_STALE_PREVIEW` and nothing is written.
   */
  'threads.prune': spec(
    z.object({
      source: threadSourceSchema,
      keep_last: threadKeepSchema,
      thread_id: threadIdSchema.optional(),
      reason: reasonSchema,
      actor: z.string().min(1).max(THREAD_ID_MAX_CHARS).refine((s) => !CONTROL.test(s), 'control character').nullable().optional(),
      idempotency_key: uuidSchema,
      expected_preview_digest: z.string('a preview digest is the text threads.prune_preview returned').regex(/^[0-9a-f]{64}$/, 'a preview digest is the 64 hex digits threads.prune_preview returned'),
    }).strict(),
    'json', true, 'Delete old checkpoints of threads exactly as previewed, with a reason, in one transaction; recorded in the database (idempotent).'),
  /** The source adapter's health record. */
  'threads.health': spec(z.object({ source: threadSourceSchema }).strict(), 'json', false, "The LangGraph checkpointer adapter's health: pool in use and idle, last write age."),
  // ---- end agent threads
  // ---- c20: what the `gf` CLI needed beyond the screens (every command goes through the dispatcher)
  /**
   * Opens a directory's chain ledgers for the `chain.*` operations: a project,
   * or any directory with ledgers under `chain/` (`GF_IO` when it does not exist).
   * The handle is used as `project` by `chain.list|read|rows|verify|health`.
   */
  'chain.open': spec(z.object({ path: directorySchema }).strict(), 'json', false, 'Open a directory\'s chain ledgers (a project or any directory with chain/); returns a handle for chain.*.'),
  'chain.rows': spec(
    z.object({ project: handleSchema, workflow_id: workflowIdSchema, limit: limitSchema, after: afterSchema }).strict(),
    'json', false, 'A workflow\'s persisted rows with their heads (events decoded when readable; not verified), paged.'),
  /**
   * Publishes one generation: CURRENT plus added, replaced or removed participants.
   *
   * Participant bytes travel as base64 (Arrow IPC file or canonical JSON
   * document); every family must be registered (`GF_VALIDATION` otherwise).
   */
  'project.publish': spec(
    z.object({
      project: handleSchema,
      changes: z.array(z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('put'), capability_id: familyPartSchema, record_family_id: familyPartSchema, bytes_base64: z.string().max(MAX_PARTICIPANT_BASE64_CHARS).regex(BASE64_PATTERN) }).strict(),
        z.object({ kind: z.literal('remove'), capability_id: familyPartSchema, record_family_id: familyPartSchema }).strict(),
      ])).min(1).max(256),
      timeout_ms: timeoutSchema,
    }).strict(),
    'json', true, 'Publish a new generation: CURRENT plus added, replaced or removed participants.'),
  'demo.create': spec(
    z.object({
      path: directorySchema,
      records: z.number().int().min(DEMO_MIN_RECORDS).max(DEMO_MAX_RECORDS).optional(),
      seed: z.number().int().min(0).max(DEMO_MAX_SEED).optional(),
    }).strict(),
    'json', true, 'Create the deterministic demo research workspace in an absent or empty directory.'),
  /** Computes every golden vector of a golden-vector file's text (CANONICAL.md); it judges nothing. */
  'canonical.vectors': spec(z.object({ text: z.string().max(MAX_VECTOR_FILE_CHARS) }).strict(), 'json', false, 'The payload, SHA-256 and UUIDv8 of every vector of a golden-vector file.'),
  /**
   * Checks a workspace directory: every anomaly with its path and a safe remedy.
   *
   * Takes a path, not a project handle: it must work on a workspace that does
   * not open. `repair: true` applies only the recovery protocol's remedies first.
   */
  'project.doctor': spec(z.object({ path: directorySchema, repair: z.boolean().optional() }).strict(), 'json', true, 'Check a workspace: every anomaly with its path and a safe remedy (repair: the recovery remedies only).'),
  // ---- end c20
  // ---- workspace documents (o21, issue 21; ADR-0014 workspace_ontology@1 / workspace_configuration@1) ----
  /**
   * `workspace_ontology()`: the ontology document — mode, counts, contract version, canonical digest (one row).
   *
   * Of CURRENT (`project`), or of the generation an open checkpoint view pins (`view`): exactly one of the two.
   */
  'workspace.ontology': spec(documentTargetSchema, 'arrow', false, 'The adopted ontology of CURRENT or of an open checkpoint view (workspace_ontology_info@1, one row).'),
  /** `workspace_configuration()`: the configuration document of CURRENT (`project`) or of an open view (`view`), one row. */
  'workspace.configuration': spec(documentTargetSchema, 'arrow', false, 'The configuration of CURRENT or of an open checkpoint view (workspace_configuration_info@1, one row).'),
  /**
   * `adopt_ontology(input, mode, idempotency_key, actor)`: publishes one generation with the new documents.
   *
   * The input text is bounded by the engine (`ONTOLOGY_INPUT_LIMITS`, `GF_RESOURCE_LIMIT`) before parsing.
   */
  'workspace.adopt_ontology': spec(
    z.object({
      project: handleSchema,
      source: z.string().max(4 * ONTOLOGY_INPUT_LIMITS.bytes),
      source_format: z.enum(ONTOLOGY_SOURCE_FORMATS),
      mode: z.enum(ADOPT_MODES),
      idempotency_key: uuidSchema,
      actor_uuid: actorSchema,
      timeout_ms: timeoutSchema,
    }).strict(),
    'arrow', true, 'Adopt an ontology (YAML/JSON) in advisory or strict mode: one new generation (ontology_receipt@1).'),
  /** `clear_ontology(idempotency_key, actor)`: publishes the explicit "no ontology" documents. */
  'workspace.clear_ontology': spec(
    z.object({ project: handleSchema, idempotency_key: uuidSchema, actor_uuid: actorSchema, timeout_ms: timeoutSchema }).strict(),
    'arrow', true, 'Clear the adopted ontology (mode none): one new generation (ontology_receipt@1).'),
  // ---- end workspace documents ----
  // ---- history and retention (issue 19, h19e): read from the lineage log (GENERATIONS.md "Lineage log").
  /**
   * History from the lineage log, newest first by publication order, keyset-paged.
   *
   * Generations whose content retention removed are `pruned` rows with their
   * metadata. Filters: `kind`, `name` (a substring of an active checkpoint's
   * name, case-insensitive), `generation_uuid` (that one record, e.g. for a
   * revert receipt's reason). A token is bound to its filters.
   */
  'history.list': spec(
    z.object({
      project: handleSchema,
      limit: limitSchema,
      after: afterSchema,
      kind: z.enum(LINEAGE_KINDS).optional(),
      /** Checkpoint names hold no control character and no path separator; neither does a filter on them. */
      name: z.string().min(1).max(HISTORY_NAME_FILTER_MAX).refine((s) => !CONTROL.test(s) && !/[/\\]/.test(s), 'not a checkpoint name filter').optional(),
      generation_uuid: uuidSchema.optional(),
    }).strict(),
    'json', false, 'History from the lineage log (pruned generations included), newest first, paged.'),
  /** The retention policy in force and what it keeps now. */
  'retention.show': spec(z.object({ project: handleSchema }).strict(), 'json', false, 'The retention policy in force (ancestors kept, plus checkpoints and leases).'),
  /**
   * Sets the workspace's ancestor window (stored crash-safely in the workspace).
   *
   * Takes effect at the next cleanup (after the next publication); nothing is removed by the call itself.
   */
  'retention.set': spec(
    z.object({ project: handleSchema, retain_ancestors: z.number().int().min(0).max(RETAIN_ANCESTORS_MAX), timeout_ms: timeoutSchema }).strict(),
    'json', true, 'Set how many ancestors of CURRENT retention keeps in this workspace.'),
  // ---- graph pictures: a node's neighbourhood at a checkpoint, the graph of a diff (engine-side, bounded, paged)
  /**
   * Nodes of a checkpoint's graph found by label (substring, case-insensitive) or node UUID (prefix), in node order.
   *
   * The start of a neighbourhood: at most `limit` (≤ 50) nodes, `graph_element@1` rows with `depth` null.
   */
  'graph.find_nodes': spec(
    z.object({
      view: handleSchema,
      text: z.string().min(1).max(GRAPH_LIMITS.findTextMax).refine((s) => !CONTROL.test(s), 'control character'),
      limit: z.number().int().min(1).max(GRAPH_LIMITS.findMax).optional(),
    }).strict(),
    'arrow', false, 'Nodes of an open checkpoint view whose label contains the text or whose UUID starts with it (graph_element@1).'),
  /**
   * The neighbourhood of one node in an open view: breadth first to `depth`
   * hops over edges in both directions, at most `max_nodes` nodes a page.
   *
   * Nodes come in breadth-first order (each node's neighbours by UUID); a
   * page holds the next nodes of that order and every edge between a node of
   * the page and a node of this or an earlier page, so the pages together are
   * exactly the induced subgraph. Leased to the view (closing it ends the
   * answers: `GF_PAGE_SNAPSHOT_GONE`); cancellable by `operation_id`; the
   * token is bound to the view's generation, the start node and the depth.
   */
  'graph.neighbourhood': spec(
    z.object({
      view: handleSchema,
      node_uuid: uuidSchema,
      depth: z.number().int().min(1).max(GRAPH_LIMITS.maxDepth).optional(),
      max_nodes: z.number().int().min(1).max(GRAPH_LIMITS.maxNodes).optional(),
      after: afterSchema,
      operation_id: uuidSchema.optional(),
    }).strict(),
    'arrow', false, 'A node\'s neighbourhood in an open checkpoint view to a depth, at most 2,000 nodes a page (graph_element@1); paged, cancellable.'),
  /**
   * The graph of a diff: the changed nodes and edges between two checkpoints
   * or CURRENT (the record diff's own change lists of `graph/node` and
   * `graph/edge`, filtered as the record diff filters), each page at most
   * `limit` changes in the record diff's order, plus their immediate
   * neighbourhood as unchanged context (capped, never sampled silently).
   *
   * Every row carries the filtered total (`total_changes`) and the page's
   * first position (`first_change`): "showing 2,000 of 23,984 changes".
   */
  'graph.diff': spec(
    z.object({
      project: handleSchema,
      from: selectorSchema,
      to: selectorSchema,
      record_family_id: z.enum(GRAPH_FAMILIES).optional(),
      change_kinds: z.array(z.enum(RECORD_CHANGE_KINDS)).min(1).max(RECORD_CHANGE_KINDS.length).optional(),
      changed_field: fieldNameSchema.optional(),
      limit: z.number().int().min(1).max(GRAPH_LIMITS.diffPageMax).optional(),
      after: afterSchema,
      operation_id: uuidSchema.optional(),
    }).strict(),
    'arrow', false, 'The changed nodes and edges between two checkpoints or CURRENT with their immediate neighbourhood (graph_element@1); filtered, paged, cancellable.'),
  // ---- end graph pictures
  // --- live updates (issue 19 UI, h19u) ---
  /**
   * A cheap token that changes whenever CURRENT, the checkpoint registry or a
   * ledger file changes, by this process or any other.
   *
   * A handful of `stat` calls, no file read: the app polls it (about once a
   * second) and refreshes only when it changed, so work done from the CLI
   * appears without a manual Refresh.
   */
  'project.changes': spec(z.object({ project: handleSchema }).strict(), 'json', false, 'A token that changes when CURRENT, the checkpoint registry or a ledger changes.'),
  // ---- who did it: the app user's identity, kept in the app's configuration directory (never in a workspace)
  /** The app user's identity (created once, on first use: a generated actor UUID and the login name) and the actors known by name. */
  'actor.show': spec(z.object({}).strict(), 'json', false, "The app user's display name and actor UUID, and every actor known by name."),
  /** Renames the app user (the actor UUID stays). */
  'actor.rename': spec(z.object({ display_name: displayNameSchema }).strict(), 'json', true, "Change the app user's display name (the actor UUID stays)."),
  /**
   * The actor UUID of a display name or UUID a surface was given (`--actor`,
   * `GF_ACTOR`): a UUID as is, a name as the UUID derived from it (the same
   * name gives the same UUID everywhere); a name is remembered, so the app
   * shows it for that UUID.
   */
  'actor.resolve': spec(z.object({ actor: z.string().min(1).max(4 * DISPLAY_NAME_MAX_CHARS) }).strict(), 'json', true, 'The actor UUID of a display name or UUID (a name is remembered for the app).'),
} as const satisfies { readonly [N in OperationName]: OperationSpec };

/** The validated request type of an operation. */
export type OperationRequest<N extends OperationName> = z.output<(typeof OPERATIONS)[N]['request']>;

/** The caller-side (input) request type of an operation. */
export type OperationInput<N extends OperationName> = z.input<(typeof OPERATIONS)[N]['request']>;


// ---------------------------------------------------------------- results

/**
 * An Arrow result: IPC stream bytes plus the token of the next page.
 *
 * The same token is also in the schema metadata under `NEXT_PAGE_TOKEN_KEY`,
 * so the bytes alone (as the CLI's `--arrow` writes them) are complete.
 */
export interface ArrowResult {
  readonly kind: 'arrow';
  readonly bytes: Uint8Array;
  readonly next_page_token: string | null;
}

export { NEXT_PAGE_TOKEN_KEY } from './results';

/** A generation as the project summary shows it. */
export interface GenerationSummary {
  readonly generation_uuid: string;
  readonly parent_generation_uuid: string | null;
  readonly manifest_sha256: string;
  readonly participant_count: number;
  readonly is_current: boolean;
  /** Present when this generation was published by a revert. */
  readonly restoration: RestorationSummary | null;
}

/** A restoration record (restoration_transition@1) without its reason text. */
export interface RestorationSummary {
  readonly restoration_uuid: string;
  readonly checkpoint_uuid: string;
  readonly source_generation_uuid: string;
  readonly prior_current_generation_uuid: string;
  readonly restored_at: string;
}

/** The project summary. */
export interface ProjectSummary {
  readonly initialized: boolean;
  readonly current: { readonly generation_uuid: string; readonly manifest_sha256: string } | null;
  /**
   * Every complete generation still on disk, newest first.
   *
   * CURRENT's parent line first, then the other retained generations (older
   * ones kept by a checkpoint), each child before its parent.
   */
  readonly generations: readonly GenerationSummary[];
  /** True when some listed generation's parent is no longer on disk (retention cleaned older ones up). */
  readonly older_generations_cleaned_up: boolean;
}

/** What `project.open` / `project.create` return. */
export interface ProjectOpened {
  readonly project: string;
  readonly label: string;
  /** The workspace folder as opened (absolute): the app lists it among recent workspaces. */
  readonly path: string;
}

/** One workflow of a chain store, as `chain.list` returns it (verified once, in the same pass). */
export interface WorkflowEntry {
  readonly workflow_id: string;
  readonly rows: number;
  readonly tail_head: string;
  /** The last persisted transition's `next_state_id` (null for a torn last row). */
  readonly latest_state_id: string | null;
  /** The verifier's verdict from the same read (what `chain.verify` would return for this workflow). */
  readonly verify: VerifyEntry;
}

/** One transition event (CHAIN.md `TransitionEvent`). */
export interface ChainEvent {
  readonly sequence: number;
  readonly transition_id: string;
  readonly workflow_id: string;
  readonly prior_state_id: string;
  readonly next_state_id: string;
  readonly triggering_outcome: { readonly kind: string; readonly evidence_digest: string | null; readonly detail: string | null };
  readonly occurred_at: string;
  readonly attempt: number;
}

/** A verification result (`gf chain verify --json` row). */
export interface VerifyEntry {
  /** The workflow; for an `unreadable` ledger (its id cannot be read), the ledger's derived directory name. */
  readonly workflow_id: string;
  readonly status: 'ok' | 'chain_mismatch' | 'torn_write' | 'unreadable';
  readonly first_bad_sequence: number | null;
  readonly rows: number;
  readonly tail_head: string;
  /** For `unreadable`: the ledger file relative to the project (`chain/<dir>/checkpoints.sqlite`). */
  readonly ledger?: string;
  /** For `unreadable`: why (an SQLite result code such as `SQLITE_NOTADB`, or a store reason). */
  readonly cause?: string;
  /** For `chain_mismatch`: the expected and the stored head at the break (the verifier's evidence). */
  readonly break_head?: ChainBreak;
}

/**
 * Where a chain breaks: the head column of the first bad row that is wrong,
 * the head the verifier recomputed for it (from the verified prefix), and the
 * head the row stores. Only the verifier recomputes heads (CHAIN.md).
 */
export interface ChainBreak {
  /** `prior_head` (the row does not link to the head before it) or `next_head` (its head is not its recomputation). */
  readonly column: 'prior_head' | 'next_head';
  /** The head the verifier expected in that column. */
  readonly expected_head: string;
  /** The head the row stores in that column, as persisted. */
  readonly stored_head: string;
}

/** A ledger file that could not be read (one bad file never hides the others). */
export interface UnreadableLedger {
  /** The ledger file relative to the project. */
  readonly ledger: string;
  /** Why (an SQLite result code or a store reason). */
  readonly cause: string;
}

/** A participant entry of a view (manifest fields). */
export interface ParticipantEntry {
  readonly capability_id: string;
  readonly capability_version: number;
  readonly record_family_id: string;
  readonly record_version: number;
  readonly relative_path: string;
  readonly encoding: string;
  readonly byte_length: number;
  readonly row_count: number;
  readonly schema_fingerprint: string;
  readonly content_sha256: string;
  /**
   * The family's scope from the closed participant registry (`graph`, …,
   * `workspace`); null when the registry does not know the family.
   */
  readonly scope: string | null;
  /** The family's identity fields in registry order (how `view.record` names one record); empty when unregistered. */
  readonly identity_fields: readonly string[];
}

/** A record's values as JSON: timestamps and 64-bit integers as decimal text, binary as lowercase hex. */
export type RecordJson = Readonly<Record<string, string | number | boolean | null>>;

/** One record between two endpoints (`checkpoints.record_change`). */
export interface RecordChangeEntry {
  readonly from_checkpoint_uuid: string;
  readonly to_checkpoint_uuid: string;
  readonly scope: string;
  readonly capability_id: string;
  readonly record_family_id: string;
  /** The diff's three kinds, or `unchanged` when both versions are equal. */
  readonly change_kind: 'added' | 'removed' | 'modified' | 'unchanged';
  /** The record at `from` (null when added). */
  readonly from: RecordJson | null;
  /** The record at `to` (null when removed). */
  readonly to: RecordJson | null;
  /** Declared fields whose values differ, in schema order. */
  readonly changed_fields: readonly string[];
  /** Fields holding UTC microsecond timestamps (their values are decimal text), for display. */
  readonly timestamp_fields: readonly string[];
  readonly from_record_fingerprint: string | null;
  readonly to_record_fingerprint: string | null;
}

/** One participant of a revert preview (a `checkpoint_summary_diff@1` row without the endpoint UUIDs and digests). */
export interface PreviewChange {
  readonly scope: string;
  readonly capability_id: string;
  readonly record_family_id: string;
  readonly change_kind: SummaryChangeKind;
  readonly from_row_count: number | null;
  readonly to_row_count: number | null;
}

/** JSON result types per operation. */
export interface JsonResults {
  /** `path`: the folder chosen in the dialog (absolute), or null when the person cancelled. */
  readonly 'app.choose_workspace': { readonly path: string | null };
  readonly 'app.session': {
    readonly project: ProjectOpened | null;
    readonly mode: 'electron' | 'browser' | 'library';
    readonly operations: readonly OperationName[];
    /** Agent threads (issue 17): the launch's default SQLite source (the demo's `langgraph.sqlite`) and whether a launch Postgres exists (never its URL). */
    readonly threads: LaunchThreadSources;
  };
  readonly 'project.open': ProjectOpened;
  readonly 'project.create': ProjectOpened;
  readonly 'project.close': { readonly closed: boolean };
  readonly 'project.summary': ProjectSummary;
  readonly 'operation.cancel': { readonly cancelled: boolean };
  readonly 'checkpoints.record_change': RecordChangeEntry;
  readonly 'checkpoints.diff_stat': DiffStatResult;
  readonly 'revert.preview': {
    readonly checkpoint_uuid: string;
    readonly source_generation_uuid: string;
    readonly source_manifest_sha256: string;
    readonly current_generation_uuid: string;
    /** Participants the revert would add, remove, modify or keep (summary diff CURRENT → checkpoint). */
    readonly participant_changes: { readonly added: number; readonly removed: number; readonly modified: number; readonly unchanged: number };
    /**
     * The preview's summary rows (CURRENT → checkpoint), in the diff's order.
     *
     * The preview computes this diff anyway; returning it spares a screen a second request.
     */
    readonly changes: readonly PreviewChange[];
    /**
     * True when the checkpoint's records already equal CURRENT's: the revert still publishes (ADR-0014), a
     * generation that differs from CURRENT by its restoration record only (the one change `changes` lists).
     */
    readonly same_content: boolean;
    /** The ancestor window in force. */
    readonly retain_ancestors: number;
    /** Unnamed generations this revert would make prunable (they leave the ancestor window), nearest first. */
    readonly prunable: readonly PrunableGeneration[];
  };
  readonly 'view.open': { readonly view: string; readonly checkpoint_uuid: string; readonly generation_uuid: string; readonly manifest_sha256: string };
  readonly 'view.close': { readonly closed: boolean };
  readonly 'view.participants': { readonly participants: readonly ParticipantEntry[] };
  readonly 'chain.list': { readonly workflows: readonly WorkflowEntry[]; readonly unreadable?: readonly UnreadableLedger[] };
  /**
   * `evidence_generations`: each evidence digest of the page that names a manifest, with the workspace
   * generation it links to (null for the ledgers of a directory that is no workspace).
   */
  readonly 'chain.read': { readonly events: readonly ChainEvent[]; readonly next_page_token: string | null; readonly evidence_generations: readonly EvidenceGeneration[] | null };
  readonly 'chain.verify': { readonly results: readonly VerifyEntry[] };
  readonly 'history.list': HistoryPage;
  readonly 'retention.show': RetentionPolicy;
  readonly 'retention.set': { readonly retain_ancestors: number; readonly previous: number; readonly source: 'workspace' };
  readonly 'chain.health': { readonly backend: 'sqlite' | 'memory' | 'postgres'; readonly workflows: number; readonly details: Readonly<Record<string, number | string | null>> };
  // ---- Agent threads (issue 17)
  readonly 'threads.list': ThreadPage<ThreadListRow>;
  readonly 'threads.history': ThreadPage<ThreadHistoryRow>;
  readonly 'threads.state': ThreadState;
  readonly 'threads.namespaces': ThreadNamespaces;
  readonly 'threads.diff': ThreadDiff;
  readonly 'threads.restore': ThreadRestoreReceipt;
  readonly 'threads.health': ThreadHealth;
  readonly 'threads.prune_preview': ThreadPrunePreview;
  readonly 'threads.prune': ThreadPruneReceipt;
  // ---- end agent threads
  // ---- c20: results of the CLI's operations (core/contract/maintenance.ts)
  readonly 'chain.open': { readonly project: string };
  readonly 'chain.rows': { readonly rows: readonly ChainRowEntry[]; readonly next_page_token: string | null; readonly evidence_generations: readonly EvidenceGeneration[] | null };
  readonly 'project.publish': PublishReceipt;
  readonly 'demo.create': DemoCreated;
  readonly 'canonical.vectors': { readonly results: readonly VectorResultEntry[] };
  readonly 'project.doctor': DoctorReport;
  // ---- end c20
  /** An opaque token (equal tokens: nothing watched changed; a PostgreSQL ledger store is not watched). */
  readonly 'project.changes': { readonly token: string };
  readonly 'actor.show': ActorBook;
  readonly 'actor.rename': { readonly self: ActorIdentity };
  readonly 'actor.resolve': { readonly actor_uuid: string; readonly display_name: string | null };
}

/** The result type of an operation. */
export type OperationResult<N extends OperationName> = (typeof OPERATIONS)[N]['result'] extends 'arrow'
  ? ArrowResult
  : N extends keyof JsonResults
    ? JsonResults[N]
    : never;

// ----------------------------------------------------------- typed Arrow rows

/** Operations whose result is an Arrow IPC stream. */
export type ArrowOperation = { [N in OperationName]: (typeof OPERATIONS)[N]['result'] extends 'arrow' ? N : never }[OperationName];

/** Operations whose result is a JSON value. */
export type JsonOperation = Exclude<OperationName, ArrowOperation>;

/**
 * The result schema(s) of every Arrow operation, declared once.
 *
 * `records` marks a participant table (`view.records`, `view.record`): its
 * columns are the record family's own. An Arrow operation missing here, or a
 * schema name the contract does not declare, fails the build.
 */
export const ARROW_OPERATION_SCHEMAS = {
  'checkpoints.list': ['checkpoint@1', 'checkpoint_tombstone@1'],
  'checkpoints.show': ['checkpoint@1'],
  'checkpoints.create': ['checkpoint_receipt@1'],
  'checkpoints.delete': ['checkpoint_receipt@1'],
  'checkpoints.revert': ['checkpoint_receipt@1'],
  'checkpoints.diff': ['checkpoint_summary_diff@1', 'checkpoint_record_diff@1', 'checkpoint_record_diff_display@1', 'checkpoint_record_diff_values@1'],
  'view.records': 'records',
  'view.record': 'records',
  // workspace documents (o21)
  'workspace.ontology': ['workspace_ontology_info@1'],
  'workspace.configuration': ['workspace_configuration_info@1'],
  'workspace.adopt_ontology': ['ontology_receipt@1'],
  'workspace.clear_ontology': ['ontology_receipt@1'],
  'graph.find_nodes': ['graph_element@1'],
  'graph.neighbourhood': ['graph_element@1'],
  'graph.diff': ['graph_element@1'],
} as const satisfies { readonly [N in ArrowOperation]: readonly ArrowSchemaName[] | 'records' };

/** The result schema names an Arrow operation can return. */
export type SchemasOf<N extends ArrowOperation> = (typeof ARROW_OPERATION_SCHEMAS)[N] extends readonly (infer S extends ArrowSchemaName)[] ? S : never;

/**
 * One decoded row of an Arrow operation's result.
 *
 * A union when the operation has several schemas; narrow with `S` (e.g.
 * `Row<'checkpoints.list', 'checkpoint@1'>`). Participant tables are `RecordRow`s.
 */
export type Row<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>> = (typeof ARROW_OPERATION_SCHEMAS)[N] extends 'records'
  ? RecordRow
  : S extends ArrowSchemaName
    ? ArrowRow<S>
    : never;

/** Every JSON operation has a declared result type (a missing one fails here). */
const JSON_RESULTS_COMPLETE: [Exclude<JsonOperation, keyof JsonResults>] extends [never] ? true : false = true;
void JSON_RESULTS_COMPLETE;
