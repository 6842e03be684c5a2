import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { LangGraphCheckpointerPort } from '../../../../../core/langgraph';

/** An adapter under test, with the pool counters it must report. */
export interface PortUnderTest {
  readonly adapter: LangGraphCheckpointerPort;
  /** Connections open in the adapter's pool right now (`pool.totalCount`; SQLite: 1 while open). */
  poolTotal(): number;
  /** Connections handed to callers and not returned, counted by the test from the pool's own acquire/release events (SQLite: 0, its one connection is synchronous). */
  checkedOut(): number;
  /** Idle connections as the pool itself says (`pool.idleCount`; SQLite: 1 while open). */
  poolIdle(): number;
  /** True when writes hold a connection across awaits (a pool), so a health call can see one in use. */
  readonly pooled: boolean;
}

/**
 * How the port conformance suite builds and tears down one adapter kind.
 *
 * One initializer per adapter; every case gets a fresh adapter.
 */
export interface CheckpointerPortInitializer {
  /** Adapter name shown in test titles. */
  readonly name: string;
  /** Once before all cases (e.g. start a database server). */
  beforeAll?(): Promise<void>;
  /** Once after all cases. */
  afterAll?(): Promise<void>;
  /** A fresh adapter over the shared database. */
  create(): Promise<PortUnderTest>;
  /** The bare upstream saver of the same kind on the same database (the reference for errors). */
  bare(): Promise<BaseCheckpointSaver>;
  /** Releases what `create` and `bare` opened (called after every case). */
  destroy?(): Promise<void>;
}

/** A case found the adapter in breach of one named invariant. */
export class ConformanceFailure extends Error {
  constructor(
    readonly invariant: string,
    detail: string,
  ) {
    super(`${invariant}: ${detail}`);
  }
}

/** What a case gets. */
export interface CaseContext {
  readonly init: CheckpointerPortInitializer;
  /** A thread id never used before in this process. */
  freshThread(prefix?: string): string;
}

/** One case: its invariant id and its check (throws a ConformanceFailure). */
export interface PortCase {
  readonly id: string;
  readonly title: string;
  run(ctx: CaseContext): Promise<void>;
}

/** Throws a ConformanceFailure for `invariant` unless `ok`. */
export function check(ok: boolean, invariant: string, detail: string): asserts ok {
  if (!ok) throw new ConformanceFailure(invariant, detail);
}
