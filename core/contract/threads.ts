// Agent threads: the result shapes of the `threads.*` operations,
// declared once for the facade, the CLI and the renderer. Browser-safe.

/** Page sizes of the thread operations (default and largest). */
export const THREAD_PAGE_LIMITS = { default: 50, max: 500 } as const;

/** Largest thread id or checkpoint id a request may name (characters). */
export const THREAD_ID_MAX_CHARS = 256;

/** The selector naming a thread's newest checkpoint in `threads.diff`. */
export const THREAD_HEAD_SELECTOR = 'HEAD';

/** The demo's LangGraph database file name, written beside the demo workspace directory (and the app's default threads source there). */
export const DEMO_LANGGRAPH_FILE = 'langgraph.sqlite';

/** The environment variable holding the LangGraph Postgres URL given at launch (never written anywhere). */
export const LANGGRAPH_POSTGRES_URL_ENV = 'GF_LANGGRAPH_POSTGRES_URL';

/** Per-channel change kinds of a thread diff, in display order. */
export const THREAD_CHANNEL_CHANGES = ['added', 'removed', 'modified', 'unchanged'] as const;
/** One channel's change kind. */
export type ThreadChannelChange = (typeof THREAD_CHANNEL_CHANGES)[number];

/** A JSON value as a thread operation returns it. */
export type ThreadJson = null | boolean | number | string | readonly ThreadJson[] | { readonly [key: string]: ThreadJson };

/**
 * The JSON form of a Python value that is not plain JSON, as `threads.state`,
 * `threads.diff` and `gf threads show --json` give it for a database written
 * by Python LangGraph (JsonPlusSerializer). Every such value is an object
 * whose `python_type` names the Python type; the other members depend on it:
 *
 * - `bytes` / `bytearray`: `size` (bytes) and `base64`.
 * - `datetime` / `date` / `time`: `iso` (ISO 8601, as Python's `isoformat()`; a `time` also has `fields`).
 * - `timedelta`: `days`, `seconds`, `microseconds` (Python's attributes) and `total_seconds`.
 * - `UUID`: `value` (canonical dashed form); `Decimal`: `value` (the exact decimal text).
 * - `set` / `frozenset` / `deque`: `items` (in stored order).
 * - `dict`: `items` as `[key, value]` pairs, used only when a key is not a
 *   string or a key is itself named `python_type` (any other dict is a plain object).
 * - `int`: `value` as decimal text, for integers beyond ±2^53.
 * - a class built from one argument (an `Enum`, `SecretStr`, an IP address, …): `python_module` and `value`.
 * - a class built from positional arguments (`Send`, `Path`, …): `python_module` and `args`.
 * - a dataclass, named tuple or keyword-built class (`Interrupt`, …): `python_module` and `fields`.
 * - a Pydantic model (LangChain messages are Pydantic v2 models): `python_module`, `pydantic` (`v1` or `v2`) and `fields`.
 * - a class built by a named method: `python_module`, `method` and `value`.
 * - `ndarray` (numpy): `dtype`, `shape`, `order`, `size` and `base64` (the raw buffer).
 * - `_DeltaSnapshot` (a delta channel's snapshot): `value`.
 * - `unreadable`: a part that was not understood: `problem` (one of
 *   `PYTHON_VALUE_PROBLEMS`) and `detail` (a sentence fragment); the rest of the value is still given.
 *
 * Lists, tuples outside constructor arguments (Python itself reads them back
 * as lists), strings, numbers, booleans and None are plain JSON. Nothing
 * named in the data is ever imported or run: a class is shown as data.
 */
export interface PythonValueJson {
  readonly python_type: string;
  readonly python_module?: string;
  readonly value?: ThreadJson;
  readonly items?: readonly ThreadJson[];
  readonly args?: readonly ThreadJson[];
  readonly fields?: { readonly [key: string]: ThreadJson };
  readonly pydantic?: 'v1' | 'v2';
  readonly method?: string;
  readonly iso?: string;
  readonly days?: number;
  readonly seconds?: number;
  readonly microseconds?: number;
  readonly total_seconds?: number;
  readonly size?: number;
  readonly base64?: string;
  readonly dtype?: string;
  readonly shape?: readonly number[];
  readonly order?: 'C' | 'F';
  readonly problem?: PythonValueProblem;
  readonly detail?: string;
}

/** Why a stored value (or a part of one) was not understood. */
export const PYTHON_VALUE_PROBLEMS = ['unknown_serializer', 'unknown_extension', 'undecodable', 'pickle', 'too_deep'] as const;
/** One of {@link PYTHON_VALUE_PROBLEMS}. */
export type PythonValueProblem = (typeof PYTHON_VALUE_PROBLEMS)[number];

/** One thread of `threads.list`: its newest checkpoint's facts. */
export interface ThreadListRow {
  readonly thread_id: string;
  /** Checkpoints of the thread's root namespace. */
  readonly checkpoint_count: number;
  readonly latest_checkpoint_id: string;
  /** The newest checkpoint's own timestamp (ISO 8601, as LangGraph wrote it). */
  readonly latest_time: string;
  readonly latest_step: number | null;
  /** LangGraph's metadata source: `input`, `loop`, `update` or `fork`. */
  readonly latest_source: string | null;
  /** True when the newest checkpoint has an `interrupt` waiting for an answer. */
  readonly interrupted: boolean;
}

/** One checkpoint of `threads.history`. */
export interface ThreadHistoryRow {
  readonly checkpoint_id: string;
  readonly parent_checkpoint_id: string | null;
  readonly time: string;
  readonly step: number | null;
  readonly source: string | null;
  /** Nodes whose writes produced this checkpoint (their `versions_seen` changed since the parent). */
  readonly writes: readonly string[];
  /** Nodes LangGraph runs next from this checkpoint (empty when the run ended). */
  readonly next: readonly string[];
  /** The checkpoint this one restored (set by `threads.restore`), else null. */
  readonly restored_from: string | null;
  /** Why this checkpoint could not be read (its document or metadata does not decode), else null; the rest of the history is still given. */
  readonly unreadable: string | null;
  /** A restore's reason as stored (trimmed), else null. */
  readonly restore_reason: string | null;
  /** Who restored (the actor the restore recorded: an actor UUID from the app, or the CLI's `--actor`), else null. */
  readonly restore_actor: string | null;
}

/** One subgraph checkpoint namespace of a thread (LangGraph names it `node:task-id`; nested ones join with `|`). */
export interface ThreadNamespaceRow {
  readonly checkpoint_ns: string;
  /** The subgraph's node in the parent graph (the text before the last `:`), the label a user knows it by. */
  readonly node: string;
  /** The task of that node run (the text after the last `:`). */
  readonly task_id: string;
  /** The namespace it ran under (`""` = the thread's root). */
  readonly parent_ns: string;
  readonly checkpoint_count: number;
  readonly latest_checkpoint_id: string;
  /** The parent namespace's checkpoint the subgraph ran under (its metadata's `parents`), else null. */
  readonly parent_checkpoint_id: string | null;
}

/** `threads.namespaces`: a thread's subgraph namespaces, by name. */
export interface ThreadNamespaces {
  readonly thread_id: string;
  readonly rows: readonly ThreadNamespaceRow[];
}

/** A page of rows and the token of the next page (null on the last). */
export interface ThreadPage<R> {
  readonly rows: readonly R[];
  readonly next_page_token: string | null;
}

/** One channel value of `threads.state`: JSON, with the value's type noted. */
export interface ThreadChannelValue {
  readonly channel: string;
  /** `string`, `number`, `boolean`, `null`, `array`, `object` or a class name (`HumanMessage`, `Date`, …). */
  readonly type: string;
  readonly value: ThreadJson;
  /** The channel's version in this checkpoint (text: versions may be numbers or strings). */
  readonly version: string | null;
  /**
   * How a delta channel (Python LangGraph's `DeltaChannel`) stored this value, else null:
   * `snapshot` (the value is the stored snapshot), or `deltas` (the checkpoint stores no value: `value` is
   * `{ python_type: 'delta_channel', seed, writes }`, the nearest stored value and the writes after it, oldest
   * first, found as upstream's `get_delta_channel_history` finds them; LangGraph rebuilds the value by passing
   * them through the channel's reducer, which only the graph's code holds, so no value is made up here).
   */
  readonly delta: 'snapshot' | 'deltas' | null;
}

/** A pending write of a checkpoint (a task's output not yet applied). */
export interface ThreadPendingWrite {
  readonly task_id: string;
  readonly channel: string;
  readonly type: string;
  readonly value: ThreadJson;
}

/** An interrupt waiting for an answer. */
export interface ThreadInterrupt {
  readonly id: string | null;
  readonly value: ThreadJson;
}

/** A part of a checkpoint that was not understood (its value is shown as `{ python_type: 'unreadable', … }`). */
export interface ThreadValueProblem {
  /** Always `GF_CHECKPOINT_UNREADABLE`. */
  readonly code: 'GF_CHECKPOINT_UNREADABLE';
  /** The channel (of a value or of a pending write). */
  readonly channel: string;
  /** Where in the value (JSON pointer below the channel; `""` for the whole value). */
  readonly pointer: string;
  readonly problem: PythonValueProblem;
  /** A sentence naming the thread, checkpoint, channel and what was not understood. */
  readonly message: string;
}

/** `threads.state`: one checkpoint in full. */
export interface ThreadState {
  readonly thread_id: string;
  readonly checkpoint_id: string;
  readonly parent_checkpoint_id: string | null;
  readonly time: string;
  readonly is_head: boolean;
  /** The graph's state channels (LangGraph's internal `__…__` and `branch:` channels are left out). */
  readonly values: readonly ThreadChannelValue[];
  readonly next: readonly string[];
  readonly metadata: ThreadJson;
  readonly pending_writes: readonly ThreadPendingWrite[];
  readonly interrupts: readonly ThreadInterrupt[];
  /** Every channel's version, internal channels included. */
  readonly channel_versions: Readonly<Record<string, string>>;
  /** The parts of the values and pending writes that were not understood (empty when everything was read). */
  readonly problems: readonly ThreadValueProblem[];
}

/** One channel of a thread diff. */
export interface ThreadChannelSummary {
  readonly channel: string;
  readonly change: ThreadChannelChange;
  /** Value changes under this channel (0 when unchanged). */
  readonly changes: number;
}

/** One value change: a JSON pointer (`/channel/…`) and the values before and after (absent = null with `kind`). */
export interface ThreadValueChange {
  readonly pointer: string;
  readonly kind: 'added' | 'removed' | 'modified';
  readonly before: ThreadJson;
  readonly after: ThreadJson;
}

/** `threads.diff`: the channel summary (on every page) and one page of value changes. */
export interface ThreadDiff {
  readonly thread_id: string;
  readonly from_checkpoint_id: string;
  readonly to_checkpoint_id: string;
  readonly channels: readonly ThreadChannelSummary[];
  readonly total_changes: number;
  readonly rows: readonly ThreadValueChange[];
  readonly next_page_token: string | null;
}

/** `threads.restore`: the receipt (the same object for an identical replay, with `replayed: true`). */
export interface ThreadRestoreReceipt {
  readonly thread_id: string;
  /** The new head checkpoint written by the restore. */
  readonly checkpoint_id: string;
  /** The head it was appended after. */
  readonly parent_checkpoint_id: string;
  readonly restored_from: string;
  readonly reason: string;
  readonly actor: string | null;
  readonly idempotency_key: string;
  readonly restored_at: string;
  /** True when this call found the restore already done and wrote nothing. */
  readonly replayed: boolean;
}

/** Largest `keep_last` a prune accepts (checkpoints kept per thread). */
export const THREAD_PRUNE_KEEP_MAX = 1_000_000;

/**
 * Why a checkpoint older than the kept ones stays anyway, in the order a prune checks them:
 * the thread's head, an interrupt waiting for an answer (pending `__interrupt__` writes),
 * a restore's head (its metadata names `restored_from`), the checkpoint a restore copied,
 * or metadata that does not read (nothing unread is ever deleted).
 */
export const THREAD_PRUNE_KEPT_REASONS = ['head', 'interrupted', 'restored_head', 'restore_target', 'unreadable'] as const;
/** One of {@link THREAD_PRUNE_KEPT_REASONS}. */
export type ThreadPruneKeptReason = (typeof THREAD_PRUNE_KEPT_REASONS)[number];

/**
 * The table a prune records itself in, inside the LangGraph database (created on the first prune, beside the saver's
 * tables, never one of them): one row per prune with its reason, actor, time, counts and every deleted checkpoint id.
 */
export const THREAD_PRUNE_RECORD_TABLE = 'gf_thread_prunes';

/** One checkpoint a prune deletes (root namespace), its user facts first. */
export interface ThreadPruneRow {
  readonly thread_id: string;
  /** The checkpoint's own timestamp (ISO 8601 as LangGraph wrote it), else null when its document does not read. */
  readonly time: string | null;
  readonly step: number | null;
  readonly source: string | null;
  readonly checkpoint_id: string;
}

/**
 * `threads.prune_preview`: what `threads.prune` with the same `keep_last` and `thread_id` deletes, without writing.
 *
 * Per thread (its root namespace), the `keep_last` newest checkpoints stay; of the older ones, those with a
 * reason in `kept` stay too; the others go. `preview_digest` names exactly that set: a prune carrying it is
 * refused with `GF_STALE_PREVIEW` (nothing written) when the database would give another set now.
 * Subgraph namespaces are not pruned.
 */
export interface ThreadPrunePreview {
  readonly keep_last: number;
  /** The one thread previewed, else null (every thread). */
  readonly thread_id: string | null;
  /** Checkpoints that would go. */
  readonly total: number;
  /** Threads that would lose at least one checkpoint. */
  readonly threads: number;
  /** Older checkpoints that stay, by the first reason that keeps them. */
  readonly kept: Readonly<Record<ThreadPruneKeptReason, number>>;
  /** The first `limit` checkpoints that would go (by thread, newest first); `truncated` when there are more. */
  readonly rows: readonly ThreadPruneRow[];
  readonly truncated: boolean;
  /** SHA-256 (hex) of the request and the exact set that would go. */
  readonly preview_digest: string;
}

/** `threads.prune`: the receipt (the same object for an identical replay, with `replayed: true`). */
export interface ThreadPruneReceipt {
  readonly thread_id: string | null;
  readonly keep_last: number;
  readonly reason: string;
  readonly actor: string | null;
  readonly idempotency_key: string;
  readonly pruned_at: string;
  readonly preview_digest: string;
  /** Checkpoint rows deleted. */
  readonly checkpoints: number;
  /** Pending-write rows of those checkpoints deleted. */
  readonly writes: number;
  /** Channel blobs no remaining checkpoint references, deleted (PostgreSQL; a SQLite saver keeps values in the checkpoint row: 0). */
  readonly blobs: number;
  readonly threads: number;
  /** Where the prune is recorded ({@link THREAD_PRUNE_RECORD_TABLE}). */
  readonly recorded_in: string;
  /** True when this call found the prune already done and wrote nothing. */
  readonly replayed: boolean;
}

/**
 * `threads.health`: the record of the checkpointer adapter that writes the
 * source in this process (the most recently written one; else the facade's
 * own adapter of the source), "never" = `last_write_age_seconds: null`; and
 * beside the record, the callers waiting for a connection and whether the
 * browser can read the source at all.
 */
export interface ThreadHealth {
  readonly backend: 'sqlite' | 'postgres';
  /** Connections checked out by callers (one being established is not counted). */
  readonly pool_in_use: number;
  readonly pool_idle: number;
  readonly last_write_age_seconds: number | null;
  /** Callers waiting for a connection (an exhausted pool shows here); not part of the adapter's record. */
  readonly pool_waiting: number;
  /** False when the threads browser cannot read the source (no LangGraph tables, or its newest checkpoint does not decode). */
  readonly readable: boolean;
  /** Why it cannot be read (a sentence naming the table, thread or checkpoint), else null. */
  readonly unreadable_reason: string | null;
}

/**
 * What a launch offers the "Agent threads" screen (`app.session.threads`).
 *
 * The launch Postgres is a flag only: its connection string stays in the
 * server's memory, never sent to the renderer.
 */
export interface LaunchThreadSources {
  /** Absolute path of the SQLite checkpoint database to open first (the demo's `langgraph.sqlite` beside the launched workspace), or null. */
  readonly default_sqlite: string | null;
  /** True when the server was given a LangGraph Postgres URL (`--postgres-url` or `GF_LANGGRAPH_POSTGRES_URL`). */
  readonly postgres: boolean;
}
