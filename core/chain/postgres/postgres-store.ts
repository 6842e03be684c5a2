import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { GfError } from '../../errors';
import { CheckpointStoreClosedError, CheckpointStoreCorruptError, DuplicateTransitionIdError } from '../errors';
import { assertWorkflowId, toMicrosIso, type TransitionEvent, type WorkflowId } from '../event';
import { fastHeadsReady, GENESIS, nextHead, type ChainHead } from '../head';
import type { ChainStoreWithReaders, Clock, PersistedRow } from '../port';
import { decodeEventBytes, prepareAppend, type PreparedEvent } from '../store-support';
import { WorkflowMutex } from '../workflow-mutex';
import { CHAIN_TABLE_VERSION, chainSql, DEFAULT_CHAIN_SCHEMA, quoteSchema, setupSql, workflowLockKey, type ChainSql } from './postgres-schema';

/**
 * The subset of a `pg` Pool the store uses (structural, so any compatible pool fits).
 *
 * The store never creates, configures or ends it: the caller owns the pool.
 */
export type PostgresPool = Pick<Pool, 'connect' | 'query' | 'totalCount' | 'idleCount' | 'waitingCount' | 'on' | 'off'>;

/** Options of {@link PostgresChainStore}. */
export interface PostgresChainStoreOptions {
  /** The injected connection pool (never created or ended by the store). */
  readonly pool: PostgresPool;
  /**
   * The schema holding the `checkpoint_chain` table (default `gf_chain`).
   *
   * Lowercase `[a-z0-9_]`; lets several independent ledgers share one database.
   */
  readonly schema?: string;
  /** Source of `written_at` (audit only, never in the chain); defaults to the system clock. */
  readonly clock?: Clock;
  /** Monotonic milliseconds for `last_write_age_seconds`; defaults to `performance.now()`. */
  readonly monotonicNow?: () => number;
}

/**
 * What `health()` reports, read from the pool's own counters.
 *
 * Exactly these three fields: dashboards format `Infinity` as "never written".
 */
export interface PostgresChainHealth {
  /** Connections checked out of the pool right now (`totalCount - idleCount`). */
  readonly pool_in_use: number;
  /** Connections open and idle in the pool (`idleCount`). */
  readonly pool_idle: number;
  /** Seconds since this store's last durable write (monotonic clock); `Infinity` before the first. */
  readonly last_write_age_seconds: number;
}

/** The per-workflow tail this store last saw (a hint: the database decides). */
interface TailHint {
  readonly sequence: number;
  readonly head: ChainHead;
}

/**
 * The connection that a `lock(id, fn)` call holds (or an append's own transaction), visible to `fn`'s async context.
 *
 * A `lock` holds session-level advisory locks on a connection in autocommit:
 * each append `fn` makes commits on its own (durable when it resolves,
 * whatever `fn` does next), while the session lock keeps every other writer
 * out. An append's own transaction holds transaction-level locks.
 */
interface HeldTransaction {
  readonly client: PoolClient;
  /** True for a `lock`'s session (session-level advisory locks, autocommit statements). */
  readonly session: boolean;
  /** Workflow ids whose advisory locks this transaction holds. */
  readonly locked: Set<string>;
  /** Serialises statements issued from `fn` (concurrent appends must not interleave). */
  queue: Promise<void>;
  wrote: boolean;
}

/** One append waiting for the group commit. */
interface PendingAppend {
  readonly prepared: PreparedEvent;
  readonly tail: TailHint;
  readonly next: ChainHead;
  readonly resolve: (head: ChainHead | null) => void;
  readonly reject: (e: unknown) => void;
}

const PAGE_ROWS = 500;
const TAIL_HINTS_MAX = 4096;
/** Linked-insert statements in flight at once; appends arriving meanwhile wait and share the next one. */
const MAX_APPENDS_IN_FLIGHT = 2;
/** Rows per group-commit statement. */
const MAX_BATCH_ROWS = 64;

function isChainOrGfError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && ('errorId' in e || e instanceof GfError);
}

function sqlstateOf(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/**
 * True when a statement failed because the connection is gone (not because the statement was wrong).
 *
 * Class 08, the admin-shutdown family (57P01–57P03), or a driver error with
 * no SQLSTATE at all (socket closed, "Connection terminated unexpectedly").
 */
function isConnectionError(e: unknown): boolean {
  if (isChainOrGfError(e)) return false;
  const sqlstate = sqlstateOf(e);
  if (sqlstate !== null) return sqlstate.startsWith('08') || sqlstate === '57P01' || sqlstate === '57P02' || sqlstate === '57P03';
  return e instanceof Error;
}

/**
 * Turns a driver failure during a statement into a stable engine error.
 *
 * Chain errors pass through. The message and details never carry the
 * driver's text (it can quote row values); only the SQLSTATE.
 */
function storeError(e: unknown, operation: string, committed?: boolean): unknown {
  if (isChainOrGfError(e)) return e;
  const sqlstate = sqlstateOf(e);
  if (isConnectionError(e)) {
    return new GfError('GF_CHAIN_STORE', `postgres chain store: the database connection was lost during ${operation}`, { operation, reason: 'connection_lost', sqlstate }, committed);
  }
  return new GfError('GF_CHAIN_STORE', `postgres chain store: the database rejected ${operation}`, { operation, reason: 'database_error', sqlstate }, committed);
}

/** Stores per pool that rely on the shared idle-error guard. */
const guardedPools = new WeakMap<PostgresPool, number>();

/**
 * An idle connection terminated by the server makes the pool emit 'error';
 * with no listener that would crash the process. The pool has already
 * discarded the connection and the next checkout opens a fresh one, so the
 * event needs no handling, only a listener (one per pool, shared by its stores).
 */
function ignoreIdleError(): void {}

function guardPool(pool: PostgresPool): void {
  const n = guardedPools.get(pool) ?? 0;
  if (n === 0) pool.on('error', ignoreIdleError);
  guardedPools.set(pool, n + 1);
}

function unguardPool(pool: PostgresPool): void {
  const n = guardedPools.get(pool) ?? 0;
  if (n <= 1) {
    pool.off('error', ignoreIdleError);
    guardedPools.delete(pool);
  } else guardedPools.set(pool, n - 1);
}

function toBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice();
  throw new CheckpointStoreCorruptError('event_bytes_not_binary');
}

/**
 * The PostgreSQL chain store: one shared, durable ledger for workflows that run on many machines.
 *
 * Same bytes and heads as the SQLite and in-memory adapters (the shared
 * `prepareAppend`, `nextHead`). The database makes a fork impossible: rows
 * are unique on `(workflow_id, sequence)` and `(workflow_id, prior_head)`,
 * and an append inserts only a row that links to the persisted row before it.
 * The usual append is one round trip (an optimistic linked insert from the
 * tail this store last saw); on a conflict it re-reads the tail under the
 * workflow's advisory lock and inserts again. Appends to different workflows
 * that arrive while earlier ones are in flight share one statement and one
 * commit (group commit): each row is still linked, locked and judged on its
 * own, and each caller is answered only after the commit. Commits are durable: `setup()`
 * refuses a server with `synchronous_commit` or `fsync` off.
 *
 * The pool is injected and never ended here; `pg` itself is never imported
 * at run time by this file (types only).
 */
export class PostgresChainStore implements ChainStoreWithReaders {
  readonly #pool: PostgresPool;
  readonly #schema: string;
  readonly #sql: ChainSql;
  readonly #clock: Clock;
  readonly #now: () => number;
  readonly #mutex = new WorkflowMutex();
  readonly #held = new AsyncLocalStorage<HeldTransaction>();
  readonly #tails = new Map<WorkflowId, TailHint>();
  readonly #lockKeys = new Map<WorkflowId, string>();
  readonly #pending: PendingAppend[] = [];
  #inFlight = 0;
  #setupDone = false;
  #setupRunning: Promise<void> | undefined;
  #lastWriteAt: number | undefined;
  #closed = false;

  constructor(options: PostgresChainStoreOptions) {
    this.#pool = options.pool;
    this.#schema = options.schema ?? DEFAULT_CHAIN_SCHEMA;
    quoteSchema(this.#schema);
    this.#sql = chainSql(this.#schema);
    this.#clock = options.clock ?? (() => new Date());
    this.#now = options.monotonicNow ?? (() => performance.now());
    guardPool(this.#pool);
    Object.freeze(this);
  }

  /** The schema this store writes to. */
  get schema(): string {
    return this.#schema;
  }

  /**
   * Creates the schema and table if missing, once per store instance.
   *
   * One round trip (idempotent DDL under an advisory lock); later calls
   * resolve without touching the server. Every other operation calls it
   * first, so calling it explicitly is only needed to fail early.
   */
  async setup(): Promise<void> {
    this.#assertOpen();
    if (this.#setupDone) return;
    this.#setupRunning ??= this.#runSetup().finally(() => {
      this.#setupRunning = undefined;
    });
    return this.#setupRunning;
  }

  async #runSetup(): Promise<void> {
    await fastHeadsReady;
    const results = await this.#withPoolClient('setup', async (client) => {
      const r = (await client.query(setupSql(this.#schema))) as unknown;
      return Array.isArray(r) ? (r as QueryResult[]) : [r as QueryResult];
    });
    const settings = results.at(-1)?.rows[0] as { synchronous_commit?: string; fsync?: string; table_version?: string | null } | undefined;
    if (settings?.table_version !== CHAIN_TABLE_VERSION) {
      throw new GfError('GF_CHAIN_STORE', 'postgres chain store: the checkpoint_chain table is not one this engine created (missing or different version stamp)', {
        operation: 'setup',
        reason: 'table_version',
        expected: CHAIN_TABLE_VERSION,
      });
    }
    if (settings?.synchronous_commit === 'off' || settings?.fsync === 'off') {
      throw new GfError('GF_CHAIN_STORE', 'postgres chain store: commits would not be durable (synchronous_commit or fsync is off)', {
        operation: 'setup',
        reason: 'not_durable',
        synchronous_commit: settings.synchronous_commit ?? null,
        fsync: settings.fsync ?? null,
      });
    }
    this.#setupDone = true;
  }

  /**
   * Runs `fn` on a connection checked out of the pool, and gives it back.
   *
   * The checkout itself is not wrapped: pool exhaustion surfaces as the
   * pool's own timeout error, unchanged, for the caller's retry policy.
   * A statement failure becomes a `GF_CHAIN_STORE` error; a connection that
   * died is handed back as broken so the pool discards it.
   */
  async #withPoolClient<T>(operation: string, fn: (client: PoolClient) => Promise<T>, committedOnLoss?: () => Promise<boolean | undefined>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: unknown;
    const onClientError = (e: unknown): void => {
      broken ??= e;
    };
    client.on('error', onClientError);
    try {
      return await fn(client);
    } catch (e) {
      if (isChainOrGfError(e)) throw e;
      if (isConnectionError(e)) broken ??= e;
      // A write the database refused on a live connection committed nothing; after a lost
      // connection only a fresh look can tell.
      const committed = committedOnLoss === undefined ? undefined : broken === undefined ? false : await committedOnLoss();
      throw storeError(e, operation, committed);
    } finally {
      client.off('error', onClientError);
      client.release(broken instanceof Error ? broken : broken === undefined ? undefined : new Error('connection lost'));
    }
  }

  /**
   * The pool's counters and the age of this store's last durable write.
   *
   * Synchronous and side-effect free: reads counters only, checks out no
   * connection and sends nothing, so any number of callers may poll it.
   */
  health(): PostgresChainHealth {
    const total = this.#pool.totalCount;
    const idle = this.#pool.idleCount;
    const at = this.#lastWriteAt;
    return {
      pool_in_use: Math.max(0, total - idle),
      pool_idle: idle,
      last_write_age_seconds: at === undefined ? Number.POSITIVE_INFINITY : Math.max(0, (this.#now() - at) / 1000),
    };
  }

  async append(event: TransitionEvent): Promise<ChainHead> {
    this.#assertOpen();
    const prepared = prepareAppend(event);
    const id = prepared.event.workflow_id;
    if (!this.#setupDone) await this.setup();
    // Only inside `lock` does user code hold the workflow; an append itself never calls back.
    return this.#mutex.runInternal(id, async () => {
      this.#assertOpen();
      const tx = this.#held.getStore();
      if (tx !== undefined) {
        // Inside `lock`: the row commits on its own (autocommit under the session lock), durable when this resolves.
        try {
          const head = await this.#inTransaction(tx, () => this.#appendLocked(tx, prepared));
          this.#markWritten();
          return head;
        } catch (e) {
          this.#tails.delete(id);
          throw storeError(e, 'append', isConnectionError(e) ? undefined : false);
        }
      }
      try {
        const hint = this.#tails.get(id) ?? { sequence: 0, head: GENESIS };
        const fast = await this.#linkedInsert(prepared, hint);
        const head = fast ?? (await this.#appendInOwnTransaction(prepared));
        this.#markWritten();
        return head;
      } catch (e) {
        this.#tails.delete(id);
        if ((e as { committed?: unknown }).committed === true) this.#markWritten();
        throw e;
      }
    });
  }

  /**
   * The optimistic insert linking to `tail`, through the group commit.
   *
   * Resolves with the new head once committed, or null when the database
   * refused the row (the tail moved on, or the transition id exists).
   */
  #linkedInsert(p: PreparedEvent, tail: TailHint): Promise<ChainHead | null> {
    if (this.#inFlight === 0 && this.#pending.length === 0) {
      // Nothing to share a statement with: the lone insert, without queueing.
      const next = nextHead(tail.head, p.bytes);
      this.#inFlight += 1;
      return this.#withPoolClient('append', (c) => this.#tryLinkedInsertAutocommit(c, p, tail, next), () => this.#resolveOutcome(p)).finally(() => {
        this.#inFlight -= 1;
        this.#pump();
      });
    }
    return new Promise<ChainHead | null>((resolve, reject) => {
      this.#pending.push({ prepared: p, tail, next: nextHead(tail.head, p.bytes), resolve, reject });
      this.#pump();
    });
  }

  /** Sends waiting appends while fewer than the limit are in flight. */
  #pump(): void {
    while (this.#inFlight < MAX_APPENDS_IN_FLIGHT && this.#pending.length > 0) {
      const batch = this.#pending.splice(0, MAX_BATCH_ROWS);
      this.#inFlight += 1;
      void this.#flush(batch).finally(() => {
        this.#inFlight -= 1;
        this.#pump();
      });
    }
  }

  /** Runs one statement for `batch` and answers every append in it (never rejects itself). */
  async #flush(batch: readonly PendingAppend[]): Promise<void> {
    if (batch.length === 1) {
      const one = batch[0] as PendingAppend;
      try {
        one.resolve(await this.#withPoolClient('append', (c) => this.#tryLinkedInsertAutocommit(c, one.prepared, one.tail, one.next), () => this.#resolveOutcome(one.prepared)));
      } catch (e) {
        one.reject(e);
      }
      return;
    }
    let inserted: Set<string>;
    try {
      // One statement is one transaction: the first row's outcome after a lost connection is every row's.
      const first = batch[0] as PendingAppend;
      inserted = await this.#withPoolClient('append', (c) => this.#tryLinkedBatch(c, batch), () => this.#resolveOutcome(first.prepared));
    } catch (e) {
      if (e instanceof GfError && e.details.reason === 'database_error') {
        // The statement as a whole was refused (e.g. a deadlock with a lock holder, or one row's
        // constraint): nothing of it was committed, so each append is retried on its own.
        await Promise.all(batch.map((b) => this.#flush([b])));
        return;
      }
      for (const b of batch) b.reject(e);
      return;
    }
    for (const b of batch) {
      const id = b.prepared.event.workflow_id;
      if (!inserted.has(id)) {
        b.resolve(null);
        continue;
      }
      this.#rememberTail(id, { sequence: b.tail.sequence + 1, head: b.next });
      b.resolve(b.next);
    }
  }

  /** The group-commit statement: the workflow ids whose rows were inserted. */
  async #tryLinkedBatch(client: PoolClient, batch: readonly PendingAppend[]): Promise<Set<string>> {
    const r = await client.query<{ workflow_id: string }>({
      name: this.#sql.insertLinkedBatchName,
      text: this.#sql.insertLinkedBatch,
      values: [
        batch.map((b) => this.#lockKey(b.prepared.event.workflow_id)),
        batch.map((b) => b.prepared.event.workflow_id),
        batch.map((b) => b.tail.sequence + 1),
        batch.map((b) => b.prepared.event.transition_id),
        batch.map((b) => b.tail.head),
        batch.map((b) => b.next),
        batch.map((b) => Buffer.from(b.prepared.bytes.buffer, b.prepared.bytes.byteOffset, b.prepared.bytes.byteLength)),
        batch.map(() => toMicrosIso(this.#clock())),
      ],
    });
    return new Set(r.rows.map((row) => row.workflow_id));
  }

  /**
   * The optimistic one-round-trip insert linking to `tail`.
   *
   * Null when the database refused it: the tail moved on (another writer,
   * another machine) or the transition id is already persisted.
   */
  async #tryLinkedInsert(client: PoolClient, p: PreparedEvent, tail: TailHint, next: ChainHead = nextHead(tail.head, p.bytes)): Promise<ChainHead | null> {
    const id = p.event.workflow_id;
    const r = await client.query({ name: this.#sql.insertLinkedName, text: this.#sql.insertLinked, values: this.#linkedValues(p, tail, next) });
    if (r.rowCount !== 1) return null;
    this.#rememberTail(id, { sequence: tail.sequence + 1, head: next });
    return next;
  }

  /**
   * The same insert as its own autocommit statement, without `ON CONFLICT`.
   *
   * A unique violation (SQLSTATE 23505) is the refusal here: it rolls back
   * only this statement's own transaction, and the statement skips the
   * speculative-insertion work that `ON CONFLICT` costs on every success.
   * Never used inside a held transaction (an error would abort it).
   */
  async #tryLinkedInsertAutocommit(client: PoolClient, p: PreparedEvent, tail: TailHint, next: ChainHead): Promise<ChainHead | null> {
    const id = p.event.workflow_id;
    let r: QueryResult;
    try {
      r = await client.query({ name: this.#sql.insertLinkedStrictName, text: this.#sql.insertLinkedStrict, values: this.#linkedValues(p, tail, next) });
    } catch (e) {
      if (sqlstateOf(e) === '23505') return null;
      throw e;
    }
    if (r.rowCount !== 1) return null;
    this.#rememberTail(id, { sequence: tail.sequence + 1, head: next });
    return next;
  }

  #linkedValues(p: PreparedEvent, tail: TailHint, next: ChainHead): unknown[] {
    const id = p.event.workflow_id;
    return [
      this.#lockKey(id),
      id,
      tail.sequence + 1,
      p.event.transition_id,
      tail.head,
      next,
      Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength),
      toMicrosIso(this.#clock()),
    ];
  }

  /** After a lost connection: is the row there? (undefined when that cannot be known now). */
  async #resolveOutcome(p: PreparedEvent): Promise<boolean | undefined> {
    try {
      const r = await this.#pool.query(this.#sql.hasTransition, [p.event.workflow_id, p.event.transition_id]);
      return r.rowCount === 1;
    } catch (_e) {
      return undefined;
    }
  }

  /** The conflict path: a transaction holding the workflow's advisory lock while it reads the tail and inserts. */
  async #appendInOwnTransaction(p: PreparedEvent): Promise<ChainHead> {
    return this.#withPoolClient(
      'append',
      async (client) => {
        await client.query('BEGIN');
        const tx: HeldTransaction = { client, session: false, locked: new Set(), queue: Promise.resolve(), wrote: false };
        let head: ChainHead;
        try {
          head = await this.#appendLocked(tx, p);
        } catch (e) {
          if (!isConnectionError(e)) await client.query('ROLLBACK');
          throw e;
        }
        const c = await client.query('COMMIT');
        if (c.command !== 'COMMIT') {
          throw new GfError('GF_CHAIN_STORE', 'postgres chain store: the append transaction was rolled back', { operation: 'append', reason: 'rolled_back' }, false);
        }
        return head;
      },
      () => this.#resolveOutcome(p),
    );
  }

  /** Appends inside a transaction: takes the workflow's lock if needed, reads the fresh tail, inserts. */
  async #appendLocked(tx: HeldTransaction, p: PreparedEvent): Promise<ChainHead> {
    const id = p.event.workflow_id;
    await this.#acquire(tx, id);
    const r = await tx.client.query<{ sequence: string; next_head: string }>(this.#sql.tail, [id]);
    const row = r.rows[0];
    // Links to the persisted tail as it is (even a tampered one): judging it is the verifier's job.
    const tail: TailHint = row === undefined ? { sequence: 0, head: GENESIS } : { sequence: Number(row.sequence), head: row.next_head as ChainHead };
    const head = await this.#tryLinkedInsert(tx.client, p, tail);
    if (head !== null) {
      tx.wrote = true;
      return head;
    }
    // Holding the lock, only an existing transition id (or a tampered table) can refuse the row.
    const dup = await tx.client.query(this.#sql.hasTransition, [id, p.event.transition_id]);
    if (dup.rowCount === 1) throw new DuplicateTransitionIdError();
    throw new CheckpointStoreCorruptError('tail_not_linkable');
  }

  async #acquire(tx: HeldTransaction, workflowId: WorkflowId): Promise<void> {
    if (tx.locked.has(workflowId)) return;
    await tx.client.query(tx.session ? 'SELECT pg_advisory_lock($1::bigint)' : 'SELECT pg_advisory_xact_lock($1::bigint)', [this.#lockKey(workflowId)]);
    tx.locked.add(workflowId);
  }

  /** Runs `op` on a held transaction, one statement sequence at a time. */
  #inTransaction<T>(tx: HeldTransaction, op: () => Promise<T>): Promise<T> {
    const run = tx.queue.then(op);
    tx.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async *readAllForWorkflow(workflowId: WorkflowId): AsyncIterable<TransitionEvent> {
    for await (const row of this.readPersistedRows(workflowId)) yield decodeEventBytes(row.event_bytes);
  }

  async tailChainHead(workflowId: WorkflowId): Promise<ChainHead> {
    this.#assertOpen();
    assertWorkflowId(workflowId);
    await this.setup();
    const r = await this.#read<{ sequence: string; next_head: string }>('tailChainHead', this.#sql.tail, [workflowId]);
    const row = r.rows[0];
    return (row?.next_head ?? GENESIS) as ChainHead;
  }

  async lock<T>(workflowId: WorkflowId, fn: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    assertWorkflowId(workflowId);
    await this.setup();
    return this.#mutex.run(workflowId, async () => {
      this.#assertOpen();
      const outer = this.#held.getStore();
      if (outer !== undefined) {
        await this.#inTransaction(outer, () => this.#acquire(outer, workflowId));
        return fn();
      }
      return this.#runLocked(workflowId, fn);
    });
  }

  async #runLocked<T>(workflowId: WorkflowId, fn: () => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: unknown;
    const onClientError = (e: unknown): void => {
      broken ??= e;
    };
    client.on('error', onClientError);
    const tx: HeldTransaction = { client, session: true, locked: new Set(), queue: Promise.resolve(), wrote: false };
    try {
      try {
        await this.#acquire(tx, workflowId);
      } catch (e) {
        if (isConnectionError(e)) broken ??= e;
        throw storeError(e, 'lock', false);
      }
      let outcome: { ok: true; value: T } | { ok: false; error: unknown };
      try {
        outcome = { ok: true, value: await this.#held.run(tx, fn) };
      } catch (e) {
        outcome = { ok: false, error: e };
      }
      await tx.queue;
      // Session locks outlive statements: give them back before the connection goes back to the pool
      // (a connection that cannot is destroyed, and the server drops its locks with it).
      if (broken === undefined) {
        try {
          await client.query('SELECT pg_advisory_unlock_all()');
        } catch (e) {
          broken = e instanceof Error ? e : new Error('advisory unlock failed');
        }
      }
      if (!outcome.ok) throw outcome.error;
      // The connection died while `fn` ran: the lock did not hold to the end (appends `fn` saw resolve are committed).
      if (broken !== undefined) throw storeError(broken, 'lock');
      return outcome.value;
    } catch (e) {
      this.#forgetTails(tx);
      throw e;
    } finally {
      client.off('error', onClientError);
      client.release(broken instanceof Error ? broken : broken === undefined ? undefined : new Error('connection lost'));
    }
  }

  #forgetTails(tx: HeldTransaction): void {
    for (const id of tx.locked) this.#tails.delete(id);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#tails.clear();
    unguardPool(this.#pool);
  }

  async listWorkflows(): Promise<readonly WorkflowId[]> {
    this.#assertOpen();
    await this.setup();
    const r = await this.#read<{ workflow_id: string }>('listWorkflows', this.#sql.listWorkflows, []);
    return r.rows.map((row) => row.workflow_id);
  }

  async *readPersistedRows(workflowId: WorkflowId): AsyncIterable<PersistedRow> {
    this.#assertOpen();
    assertWorkflowId(workflowId);
    await this.setup();
    let after = 0;
    for (;;) {
      const r = await this.#read<{ sequence: string; transition_id: string; prior_head: string; next_head: string; event_bytes: unknown; written_at: string }>(
        'readPersistedRows',
        this.#sql.rowsPage,
        [workflowId, after, PAGE_ROWS],
      );
      for (const row of r.rows) {
        after = Number(row.sequence);
        yield {
          sequence: after,
          transition_id: row.transition_id,
          prior_head: row.prior_head,
          next_head: row.next_head,
          event_bytes: toBytes(row.event_bytes),
          written_at: row.written_at,
        };
      }
      if (r.rows.length < PAGE_ROWS) return;
      this.#assertOpen();
    }
  }

  /** A read: through the held transaction when inside `lock` (it sees its own rows), else the pool. */
  async #read<R extends QueryResultRow>(operation: string, text: string, params: readonly unknown[]): Promise<QueryResult<R>> {
    const tx = this.#held.getStore();
    if (tx === undefined) return this.#withPoolClient(operation, (c) => c.query<R>(text, params as unknown[]));
    try {
      return await this.#inTransaction(tx, () => tx.client.query<R>(text, params as unknown[]));
    } catch (e) {
      throw storeError(e, operation);
    }
  }

  /** The workflow's advisory-lock key (hashed once, then remembered). */
  #lockKey(id: WorkflowId): string {
    let key = this.#lockKeys.get(id);
    if (key === undefined) {
      if (this.#lockKeys.size >= TAIL_HINTS_MAX) this.#lockKeys.clear();
      key = workflowLockKey(this.#schema, id);
      this.#lockKeys.set(id, key);
    }
    return key;
  }

  #rememberTail(id: WorkflowId, tail: TailHint): void {
    this.#tails.delete(id);
    this.#tails.set(id, tail);
    if (this.#tails.size > TAIL_HINTS_MAX) {
      const oldest = this.#tails.keys().next();
      if (oldest.done !== true) this.#tails.delete(oldest.value);
    }
  }

  #markWritten(): void {
    this.#lastWriteAt = this.#now();
  }

  #assertOpen(): void {
    if (this.#closed) throw new CheckpointStoreClosedError();
  }
}
