import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';

/**
 * The LangGraph checkpointer port (story S5-01).
 *
 * Agent workflows built on LangGraph.js keep their checkpoints through one
 * of LangGraph's own savers. An adapter hands out that upstream saver,
 * unchanged in format and behaviour, and adds the one thing upstream lacks:
 * a health record an operator can poll. Readers (thread browsing, diff,
 * restore) sit beside this port and use the same `saver()`.
 */
export interface LangGraphCheckpointerPort {
  /**
   * The upstream saver, set up and ready; the same object on every call.
   *
   * Pass it to LangGraph's `compile({ checkpointer })`. Its schema is
   * created (upstream `setup()`) once, on the first call.
   */
  saver(): Promise<BaseCheckpointSaver>;
  /**
   * The pool counters and the age of the last successful write.
   *
   * Synchronous and side-effect free: never checks out a connection and
   * never waits, so dashboards may poll it as often as they like.
   */
  health(): CheckpointerHealth;
}

/**
 * What `health()` reports: exactly these three fields, frozen.
 *
 * `last_write_age_seconds` is `Infinity` until the adapter's first
 * successful `put`/`putWrites` (tables and the CLI show "never"); it is
 * measured on a monotonic clock, so a wall-clock jump never makes it lie.
 */
export interface CheckpointerHealth {
  /** Connections checked out of the pool right now. */
  readonly pool_in_use: number;
  /** Connections open and idle in the pool. */
  readonly pool_idle: number;
  /** Seconds since this adapter's last successful write; `Infinity` before the first. */
  readonly last_write_age_seconds: number;
}

/** The field names of {@link CheckpointerHealth}, in display order. */
export const CHECKPOINTER_HEALTH_FIELDS = ['pool_in_use', 'pool_idle', 'last_write_age_seconds'] as const;

/** A frozen health record (the only way adapters build one). */
export function checkpointerHealth(pool_in_use: number, pool_idle: number, last_write_age_seconds: number): CheckpointerHealth {
  return Object.freeze({ pool_in_use, pool_idle, last_write_age_seconds });
}
