import type { TransitionEvent, WorkflowId } from './event';
import type { ChainHead } from './head';

export type { ChainHead } from './head';
export type { TransitionEvent, WorkflowId } from './event';

/**
 * The largest persisted (sanitized, canonical) event, in bytes.
 *
 * Over it, `append` raises `CheckpointPayloadTooLargeError`
 * (`workflows.checkpoint_payload_too_large`): evidence is linked by digest,
 * never inlined, so a big event means something is being inlined by mistake.
 */
export const MAX_EVENT_BYTES = 65_536;

/** An injected wall clock; stores use it only for `written_at` (never in the chain). */
export type Clock = () => Date;

/**
 * The semantic-checkpoint chain store (the writer port).
 *
 * Promise-based (Postgres drivers are asynchronous), otherwise the seed's
 * five operations. Every adapter (SQLite, in-memory, Postgres) runs the same
 * conformance suite (test/unit/core/chain/conformance/). Adapters share
 * nothing by inheritance: only this port and the pure functions
 * (`sanitizeEvent`, `canonicalEventBytes`, `nextHead`, `assertSemanticBoundary`).
 */
export interface ChainStore {
  /**
   * Appends `event` under the workflow's append lock and returns the new head.
   *
   * In order: reject a non-boundary `next_state_id`
   * (`workflows.checkpoint_boundary_violation`); sanitize (`sanitizeEvent`);
   * canonical bytes; reject more than `MAX_EVENT_BYTES`
   * (`workflows.checkpoint_payload_too_large`); then, atomically with respect
   * to every other writer of this workflow (other processes and machines
   * included), read the persisted tail head, compute
   * `nextHead(tail, bytes)` and persist the row. On resolve the row is
   * durable; on reject nothing was written. The chain of a workflow never
   * forks.
   */
  append(event: TransitionEvent): Promise<ChainHead>;

  /**
   * Yields the workflow's events in append order, exactly as persisted (sanitized).
   *
   * Only that workflow's events; nothing for an unknown workflow. Reads never
   * recompute or police the chain (that is `verify`'s job).
   */
  readAllForWorkflow(workflowId: WorkflowId): AsyncIterable<TransitionEvent>;

  /**
   * The persisted `next_head` of the workflow's last row, or `GENESIS` when it has none.
   *
   * Detection substrate only: returns what is persisted, even when it is
   * wrong, and never recomputes. The verifier is the sole place that
   * recomputes heads, so "persisted head is wrong" stays observable.
   */
  tailChainHead(workflowId: WorkflowId): Promise<ChainHead>;

  /**
   * Runs `fn` holding the exclusive append lock of `workflowId` and returns its result.
   *
   * No other writer (in this process or another) appends to the workflow
   * while `fn` runs; `append` calls made by `fn` itself proceed (the lock is
   * re-entrant within `fn`'s async context). Appends made inside `fn` are
   * durable no later than when `lock` resolves. The lock is released when
   * `fn` settles, and `fn`'s rejection propagates unchanged. Other workflows
   * are never blocked.
   */
  lock<T>(workflowId: WorkflowId, fn: () => Promise<T>): Promise<T>;

  /**
   * Releases substrate resources (connections, file handles).
   *
   * Calls after `close()` reject with `workflows.checkpoint_store_closed`.
   * Adapters with an injected pool never end the pool (the caller owns it).
   */
  close(): Promise<void>;
}

/**
 * The read-side listing port the app needs (not part of the seed's writer port).
 */
export interface WorkflowLister {
  /**
   * Every workflow id with at least one persisted row, sorted by code unit.
   *
   * Sorted so that listings are stable across adapters and runs.
   */
  listWorkflows(): Promise<readonly WorkflowId[]>;
}

/**
 * One persisted row, as the substrate holds it.
 *
 * The verifier recomputes heads from these bytes; nothing is parsed or
 * normalised on the way out.
 */
export interface PersistedRow {
  /**
   * The row's per-workflow append position: 1 for the first row, then +1.
   *
   * Persisted, never derived at read time, so a deleted row shows as a gap.
   */
  readonly sequence: number;
  /** The transition id column as persisted. */
  readonly transition_id: string;
  /** The persisted prior head. */
  readonly prior_head: string;
  /** The persisted next head (possibly wrong: this port does not check). */
  readonly next_head: string;
  /** The canonical, sanitized event bytes exactly as persisted. */
  readonly event_bytes: Uint8Array;
  /** ISO-8601 UTC from the store's injected clock; audit only, not in the chain. */
  readonly written_at: string;
}

/**
 * The read-side port the verifier uses: raw persisted rows in sequence order.
 *
 * Separate from `ChainStore` because only the verifier and tooling need raw
 * rows; writers never do.
 */
export interface PersistedRowReader {
  /**
   * Yields the workflow's persisted rows in ascending `sequence` order.
   *
   * Nothing for an unknown workflow; never throws on a malformed row's
   * content (the verifier classifies it).
   */
  readPersistedRows(workflowId: WorkflowId): AsyncIterable<PersistedRow>;
}

/** What the app and the CLI hold: the writer port plus both read-side ports. */
export type ChainStoreWithReaders = ChainStore & WorkflowLister & PersistedRowReader;
