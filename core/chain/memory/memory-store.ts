import { CheckpointStoreClosedError, DuplicateTransitionIdError } from '../errors';
import { assertWorkflowId, toMicrosIso, type TransitionEvent, type WorkflowId } from '../event';
import { GENESIS, nextHead, type ChainHead } from '../head';
import type { ChainStoreWithReaders, Clock, PersistedRow } from '../port';
import { decodeEventBytes, prepareAppend } from '../store-support';
import { WorkflowMutex } from '../workflow-mutex';

/** Options of the in-memory store. */
export interface InMemoryChainStoreOptions {
  /** Source of `written_at` (audit only); defaults to the system clock. */
  readonly clock?: Clock;
}

/** The columns a test may overwrite to play an attacker or a bad disk. */
export type TamperablePersistedFields = Partial<Pick<PersistedRow, 'prior_head' | 'next_head' | 'event_bytes' | 'transition_id'>>;

/**
 * The in-memory chain store: the reference adapter for tests and the demo.
 *
 * Same observable contract as the SQLite and Postgres adapters (one
 * conformance suite), single process only. Rows keep their persisted bytes so
 * the verifier works on it exactly as on a database.
 */
export class InMemoryChainStore implements ChainStoreWithReaders {
  readonly #rows = new Map<WorkflowId, PersistedRow[]>();
  readonly #clock: Clock;
  readonly #mutex = new WorkflowMutex();
  #closed = false;

  constructor(options: InMemoryChainStoreOptions = {}) {
    this.#clock = options.clock ?? (() => new Date());
    Object.freeze(this); // AC-14: no stray attributes; mutable state lives in private fields
  }

  async append(event: TransitionEvent): Promise<ChainHead> {
    this.#assertOpen();
    const prepared = prepareAppend(event);
    const id = prepared.event.workflow_id;
    return this.#mutex.run(id, async () => {
      this.#assertOpen();
      const rows = this.#rows.get(id) ?? [];
      if (rows.some((r) => r.transition_id === prepared.event.transition_id)) throw new DuplicateTransitionIdError();
      const last = rows[rows.length - 1];
      const prior = (last?.next_head ?? GENESIS) as ChainHead;
      const next = nextHead(prior, prepared.bytes);
      rows.push(
        Object.freeze({
          sequence: rows.length + 1,
          transition_id: prepared.event.transition_id,
          prior_head: prior,
          next_head: next,
          event_bytes: prepared.bytes.slice(),
          written_at: toMicrosIso(this.#clock()),
        }),
      );
      this.#rows.set(id, rows);
      return next;
    });
  }

  async *readAllForWorkflow(workflowId: WorkflowId): AsyncIterable<TransitionEvent> {
    for await (const row of this.readPersistedRows(workflowId)) yield decodeEventBytes(row.event_bytes);
  }

  async tailChainHead(workflowId: WorkflowId): Promise<ChainHead> {
    this.#assertOpen();
    assertWorkflowId(workflowId);
    const rows = this.#rows.get(workflowId) ?? [];
    return (rows[rows.length - 1]?.next_head ?? GENESIS) as ChainHead;
  }

  async lock<T>(workflowId: WorkflowId, fn: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    assertWorkflowId(workflowId);
    return this.#mutex.run(workflowId, fn);
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  async listWorkflows(): Promise<readonly WorkflowId[]> {
    this.#assertOpen();
    return [...this.#rows.entries()].filter(([, rows]) => rows.length > 0).map(([id]) => id).sort();
  }

  async *readPersistedRows(workflowId: WorkflowId): AsyncIterable<PersistedRow> {
    this.#assertOpen();
    assertWorkflowId(workflowId);
    const rows = [...(this.#rows.get(workflowId) ?? [])];
    for (const row of rows) yield { ...row, event_bytes: row.event_bytes.slice() };
  }

  /**
   * Overwrites persisted columns of one row, bypassing every check.
   *
   * Test and demo hook only (the conformance suite's `tamper`, the tampered
   * demo ledger): it plays the attacker the verifier must catch.
   */
  tamperPersistedRow(workflowId: WorkflowId, sequence: number, fields: TamperablePersistedFields): void {
    const rows = this.#rows.get(workflowId);
    const row = rows?.[sequence - 1];
    if (rows === undefined || row === undefined) throw new RangeError('no such persisted row');
    rows[sequence - 1] = Object.freeze({ ...row, ...fields });
  }

  #assertOpen(): void {
    if (this.#closed) throw new CheckpointStoreClosedError();
  }
}
