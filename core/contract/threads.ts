// Agent threads (issue 17): the result shapes of the `threads.*` operations,
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
  /** A restore's reason as stored (trimmed), else null. */
  readonly restore_reason: string | null;
  /** Who restored (the actor the restore recorded: an actor UUID from the app, or the CLI's `--actor`), else null. */
  readonly restore_actor: string | null;
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

/** `threads.health`: the adapter's health record ("never" = `last_write_age_seconds: null`). */
export interface ThreadHealth {
  readonly backend: 'sqlite' | 'postgres';
  readonly pool_in_use: number;
  readonly pool_idle: number;
  readonly last_write_age_seconds: number | null;
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
