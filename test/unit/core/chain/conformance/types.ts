import type { TransitionEvent, WorkflowId } from '../../../../../core/chain/event';
import type { ChainStoreWithReaders, Clock } from '../../../../../core/chain/port';

/** Columns the `tamper` hook may overwrite. */
export interface TamperFields {
  readonly next_head?: string;
  readonly prior_head?: string;
  readonly event_bytes?: Uint8Array;
}

/**
 * How the conformance suite builds and tears down one adapter.
 *
 * One initializer per adapter; the suite creates a fresh store per case.
 */
export interface ChainConformanceInitializer<S extends ChainStoreWithReaders = ChainStoreWithReaders> {
  /** Adapter name shown in test titles. */
  readonly name: string;
  /** Once before all cases (e.g. start a database server). */
  beforeAll?(): Promise<void>;
  /** Once after all cases. */
  afterAll?(): Promise<void>;
  /** A fresh, empty store whose `written_at` comes from `clock`. */
  create(options: { readonly clock: Clock }): Promise<S>;
  /** Disposes a store made by `create` (it may already be closed). */
  destroy?(store: S): Promise<void>;
  /**
   * Overwrites persisted columns of one row behind the port's back (an attacker, a bad disk).
   *
   * `sequence` is the row's 1-based per-workflow position.
   */
  tamper(store: S, workflowId: WorkflowId, sequence: number, fields: TamperFields): Promise<void>;
  /**
   * A real crash inside `lock`: in a child process, over the substrate of `store`, runs `lock(workflowId, fn)`
   * where `fn` appends `event` and never settles; kills the child with SIGKILL once it reported that the append
   * resolved, and resolves when the child is dead. Absent only for a process-local adapter (in-memory), whose
   * case checks the same promise in process (the row is readable while `fn` has not settled).
   */
  crashInsideLock?(store: S, workflowId: WorkflowId, event: TransitionEvent): Promise<void>;
  /** fast-check runs per property (default 12); keep it modest for slow substrates. */
  readonly numRuns?: number;
  /** Known gaps: case id → the written reason it fails (the case runs and must fail). The goal is none. */
  readonly knownGaps?: Readonly<Record<string, string>>;
}

/** What a case gets: a fresh store and helpers. */
export interface CaseContext<S extends ChainStoreWithReaders = ChainStoreWithReaders> {
  readonly init: ChainConformanceInitializer<S>;
  readonly store: S;
  readonly numRuns: number;
  /** A workflow id never used before in this run. */
  freshWorkflowId(prefix?: string): WorkflowId;
  /** Creates one more store through the initializer (destroyed after the case). */
  extraStore(clock: Clock): Promise<S>;
}

/** The port operations, one suite file each. */
export const PORT_OPERATIONS = [
  'append',
  'readAllForWorkflow',
  'tailChainHead',
  'lock',
  'close',
  'listWorkflows',
  'readPersistedRows',
] as const;

/** One port operation. */
export type PortOperation = (typeof PORT_OPERATIONS)[number];

/** One conformance case: an invariant of one operation. */
export interface ConformanceCase {
  /** Stable id (kebab-case), used for known gaps and by the meta-test. */
  readonly id: string;
  /** The invariant in words; failures are prefixed with it. */
  readonly invariant: string;
  readonly operation: PortOperation;
  run(ctx: CaseContext): Promise<void>;
}

/** A conformance failure, naming the violated invariant. */
export class ConformanceFailure extends Error {
  readonly caseId: string;
  readonly invariant: string;

  constructor(c: ConformanceCase, adapter: string, cause: unknown) {
    const inner = cause instanceof Error ? cause.message : String(cause);
    super(`[${adapter}] invariant violated: ${c.invariant} (${c.id})\n${inner}`, { cause });
    this.name = 'ConformanceFailure';
    this.caseId = c.id;
    this.invariant = c.invariant;
  }
}
