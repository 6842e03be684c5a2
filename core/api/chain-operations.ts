// chain.* operations over the project's SQLite chain store (core/chain).
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { ChainStoreWithReaders, PersistedRow, PersistedRowReader } from '../chain/port';
import { decodeEventBytes } from '../chain/store-support';
import { openPostgresChainStore, redactConnectionString, resolveChainPostgresTarget, type OpenedPostgresChainStore } from '../chain/postgres/postgres-config';
import { SqliteChainStore } from '../chain/sqlite/sqlite-store';
import { verify, type VerifyResult } from '../chain/verify';
import { ChainError, hasErrorId } from '../chain/errors';
import { GfError, NETWORK_ERRNOS } from '../errors';
import { verifyFailure } from '../contract/chain';
import type { ChainRowEntry } from '../contract/maintenance';
import type { ChainEvent, UnreadableLedger, VerifyEntry, WorkflowEntry } from '../contract/operations';
import { LAYOUT } from '../project/layout';
import { readLineage, type LineageRecord } from '../project/index';
import { evidenceGenerations } from './chain-evidence';
import type { PartialImplementations } from './dispatcher';
import type { ProjectSession } from './project-session';
import type { SessionTable } from './sessions';

/**
 * Where ledgers live: each project's own SQLite store (`<project>/chain`), or
 * one shared PostgreSQL store when many machines write (connection string
 * from `GF_CHAIN_POSTGRES_URL`; kept in memory only).
 */
export type ChainBackend = { readonly kind: 'sqlite' } | { readonly kind: 'postgres'; readonly url: string };

/**
 * Where one handle's ledgers live: a project's root, or a directory opened by
 * `chain.open` (ledgers without a project). `closers` run when the handle closes.
 */
export interface LedgerScope {
  readonly root: string;
  readonly closers: Set<() => Promise<void> | void>;
  /** The workspace's lineage records (where evidence finds the generation it names), or null for ledgers of no workspace. */
  readonly lineage: () => readonly LineageRecord[] | null;
}

/**
 * The backend `--chain-postgres-url` (or, when absent or empty, `GF_CHAIN_POSTGRES_URL` in `env`) selects,
 * with the URL's redacted form for people; the per-project SQLite stores when neither names one.
 */
export function chainBackendOf(option: string | undefined, env: Readonly<Record<string, string | undefined>>): { readonly backend: ChainBackend; readonly redacted: string | null } {
  const target = resolveChainPostgresTarget({ option, env });
  return target === null ? { backend: { kind: 'sqlite' }, redacted: null } : { backend: { kind: 'postgres', url: target.url }, redacted: target.redacted };
}

/** The chain store(s) of one facade. */
export class ChainStores {
  readonly #backend: ChainBackend;
  readonly #sqlite = new WeakMap<LedgerScope['closers'], SqliteChainStore>();
  #postgres: Promise<OpenedPostgresChainStore> | undefined;

  constructor(backend: ChainBackend) {
    this.#backend = backend;
  }

  get kind(): ChainBackend['kind'] {
    return this.#backend.kind;
  }

  /** The store for a project session (opened once, closed with the session or the facade). */
  async storeOf(scope: LedgerScope): Promise<ChainStoreWithReaders> {
    if (this.#backend.kind === 'postgres') return (await this.#pg()).store;
    let s = this.#sqlite.get(scope.closers);
    if (s === undefined) {
      const store = new SqliteChainStore(join(scope.root, LAYOUT.chain));
      this.#sqlite.set(scope.closers, store);
      scope.closers.add(() => store.close());
      s = store;
    }
    return s;
  }

  /** Pool counters of the shared Postgres store (Infinity becomes null on the wire). */
  async postgresHealth(): Promise<Readonly<Record<string, number | null>>> {
    const h = (await this.#pg()).store.health();
    return { pool_in_use: h.pool_in_use, pool_idle: h.pool_idle, last_write_age_seconds: Number.isFinite(h.last_write_age_seconds) ? h.last_write_age_seconds : null };
  }

  #pg(): Promise<OpenedPostgresChainStore> {
    if (this.#backend.kind !== 'postgres') throw new Error('invariant violated: not a Postgres chain backend');
    const url = this.#backend.url;
    this.#postgres ??= openPostgresChainStore(url).catch((e: unknown) => {
      this.#postgres = undefined;
      if (e instanceof GfError || e instanceof ChainError) throw e;
      // An unreachable server is GF_STORE_UNREACHABLE (host, port and errno only), not a generic store error.
      const explained = this.explain(e);
      if (explained !== e) throw explained;
      // The driver's text is not echoed; only its code, and the URL with its password redacted.
      const code = (e as { code?: unknown } | null)?.code;
      throw new GfError('GF_CHAIN_STORE', `the PostgreSQL chain store at ${redactConnectionString(url)} did not answer`, { reason: typeof code === 'string' ? code : 'unreachable' });
    });
    return this.#postgres;
  }

  /**
   * The error a person can act on when the shared PostgreSQL store cannot be reached.
   *
   * A socket errno (refused, reset, timed out, unknown host) anywhere in the
   * error or its causes becomes `GF_STORE_UNREACHABLE`, "PostgreSQL at
   * HOST:PORT refused the connection" (host and port only: never the user,
   * password or database). Anything else passes through unchanged.
   */
  explain(e: unknown): unknown {
    if (this.#backend.kind !== 'postgres') return e;
    const errno = networkErrno(e, 0);
    if (errno === undefined) return e;
    let host = 'the configured host';
    let port = '5432';
    try {
      const u = new URL(this.#backend.url);
      host = u.hostname === '' ? host : u.hostname;
      port = u.port === '' ? port : u.port;
    } catch {
      // An unparsable URL names no host; the sentence still says what failed.
    }
    const what = errno === 'ECONNREFUSED' ? 'refused the connection' : errno === 'ETIMEDOUT' ? 'did not answer in time' : errno === 'ECONNRESET' ? 'closed the connection' : 'could not be reached';
    return new GfError('GF_STORE_UNREACHABLE', `PostgreSQL at ${host}:${port} ${what}`, { backend: 'postgres', host, port: Number(port), errno });
  }

  /** Closes the shared store (per-project stores close with their sessions). */
  async close(): Promise<void> {
    const pg = this.#postgres;
    this.#postgres = undefined;
    if (pg !== undefined) await (await pg).close();
  }
}

/** The first socket errno in an error, its `cause` or its `errors` (an AggregateError of several addresses). */
function networkErrno(e: unknown, depth: number): string | undefined {
  if (typeof e !== 'object' || e === null || depth > 4) return undefined;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_ERRNOS.has(code)) return code;
  const nested = [(e as { cause?: unknown }).cause, ...(Array.isArray((e as { errors?: unknown }).errors) ? ((e as { errors: unknown[] }).errors) : [])];
  for (const n of nested) {
    const found = networkErrno(n, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function decodeAfter(after: string | null | undefined, method: 'chain.read' | 'chain.rows'): number {
  if (after === undefined || after === null) return 0;
  const m = /^s(\d{1,9})$/.exec(after);
  if (m === null) throw new GfError('GF_PAGE_INVALID', `the page token is not valid for ${method}`, { method });
  return Number(m[1]);
}

/**
 * One page of a workflow's rows in append order: skips what earlier pages
 * returned (token `s<count>`), maps at most `limit` (default 100) with their
 * 1-based position, and stops reading at the first row past the page.
 */
async function pageOf<R, T>(rows: AsyncIterable<R>, method: 'chain.read' | 'chain.rows', limit: number | undefined, after: string | null | undefined, map: (row: R, position: number) => T): Promise<{ items: T[]; next_page_token: string | null }> {
  const skip = decodeAfter(after, method);
  const max = limit ?? 100;
  const items: T[] = [];
  let position = 0;
  for await (const row of rows) {
    position++;
    if (position <= skip) continue;
    if (items.length === max) return { items, next_page_token: `s${skip + items.length}` };
    items.push(map(row, position));
  }
  return { items, next_page_token: null };
}

/** Refuses a workflow with no persisted row (as `gf chain show|verify` do). */
async function requireRows(store: ChainStoreWithReaders, workflowId: string): Promise<void> {
  for await (const _row of store.readPersistedRows(workflowId)) return;
  throw new ChainError('workflows.workflow_not_found', 'no chain for this workflow in the project');
}

/** A verifier result as the contract reports it (the break's heads only at a break). */
function verifyEntry(workflowId: string, r: VerifyResult): VerifyEntry {
  return {
    workflow_id: workflowId,
    status: r.status,
    first_bad_sequence: r.first_bad_sequence ?? null,
    rows: r.rows,
    tail_head: r.tail_head,
    ...(r.break_head === undefined ? {} : { break_head: r.break_head }),
  };
}

async function verifyOne(store: ChainStoreWithReaders, workflowId: string): Promise<VerifyEntry> {
  const r = await verify(store, workflowId);
  return verifyEntry(workflowId, r);
}

/**
 * One workflow of `chain.list`: verified, with its latest state, in one read.
 *
 * The verifier reads every persisted row once; the last row it saw gives the
 * latest state (decoded from its bytes), so a screen needs no second read.
 */
async function listEntry(store: ChainStoreWithReaders, workflowId: string): Promise<WorkflowEntry> {
  let last: PersistedRow | undefined;
  const tap: PersistedRowReader = {
    async *readPersistedRows(id) {
      for await (const row of store.readPersistedRows(id)) {
        last = row;
        yield row;
      }
    },
  };
  const r = await verify(tap, workflowId);
  let latest: string | null = null;
  try {
    latest = last === undefined ? null : decodeEventBytes(last.event_bytes).next_state_id;
  } catch (_e) {
    latest = null; // a torn last row has no readable state; the verdict says why
  }
  const verdict = verifyEntry(workflowId, r);
  return { workflow_id: workflowId, rows: r.rows, tail_head: r.tail_head, latest_state_id: latest, verify: verdict };
}

/** Ledger files of a SQLite store that cannot be read (none for other backends). */
async function unreadableLedgers(store: ChainStoreWithReaders): Promise<UnreadableLedger[]> {
  if (!(store instanceof SqliteChainStore)) return [];
  const out: UnreadableLedger[] = [];
  for (const l of await store.scanLedgers()) if (l.kind === 'unreadable') out.push({ ledger: l.ledger, cause: l.cause });
  return out;
}

/** The unreadable ledger a store's read failure names, or null for any other failure. */
function unreadableOf(e: unknown): UnreadableLedger | null {
  if (!hasErrorId(e, 'workflows.checkpoint_store_corrupt')) return null;
  const d = (e as ChainError).details;
  return typeof d['ledger'] === 'string' && typeof d['reason'] === 'string' ? { ledger: d['ledger'], cause: d['reason'] } : null;
}

function unreadableEntry(u: UnreadableLedger): VerifyEntry {
  return { workflow_id: u.ledger.split('/')[1] ?? u.ledger, status: 'unreadable', first_bad_sequence: null, rows: 0, tail_head: '', ledger: u.ledger, cause: u.cause };
}

/** One persisted row as `chain.rows` returns it (a torn row keeps its heads, without its event). */
function rowEntry(r: PersistedRow): ChainRowEntry {
  let event: ChainRowEntry['event'] = null;
  try {
    event = decodeEventBytes(r.event_bytes);
  } catch (_e) {
    event = null; // torn row: shown without its event; verify classifies it
  }
  return { sequence: r.sequence, transition_id: r.transition_id, prior_head: r.prior_head, next_head: r.next_head, written_at: r.written_at, event };
}

/**
 * The ledger scope of a handle: a project's (`project.open`) or a ledger
 * directory's (`chain.open`); an unknown handle is `GF_VALIDATION`.
 */
function scopes(projects: SessionTable<ProjectSession>, ledgers: SessionTable<LedgerScope>): (handle: string) => LedgerScope {
  return (handle) => {
    try {
      const s = projects.get(handle);
      return { root: s.project.root, closers: s.closers, lineage: () => s.project.lineage().records };
    } catch (e) {
      if (e instanceof GfError && e.code === 'GF_VALIDATION') return ledgers.get(handle);
      throw e;
    }
  };
}

/** chain.open / list / read / rows / verify / health implementations. */
export function chainOperations(projects: SessionTable<ProjectSession>, stores: ChainStores, ledgers: SessionTable<LedgerScope>) {
  const scopeOf = scopes(projects, ledgers);
  const ops = {
    'chain.open': async ({ path }) => {
      if (!isAbsolute(path)) throw new GfError('GF_VALIDATION', 'the directory must be an absolute path', { field: 'path' });
      if (!existsSync(path)) throw new GfError('GF_IO', 'project directory not found', {}, false);
      const closers = new Set<() => Promise<void> | void>();
      // A workspace directory (its FORMAT file) has a lineage log; any other directory's ledgers link to no generation.
      const workspace = existsSync(join(path, LAYOUT.format));
      const project = ledgers.add({
        value: { root: path, closers, lineage: () => (workspace ? readLineage(path).records : null) },
        close: async () => {
          for (const c of [...closers]) await c();
          closers.clear();
        },
      });
      return { project };
    },
    'chain.rows': async ({ project, workflow_id, limit, after }) => {
      const scope = scopeOf(project);
      const store = await stores.storeOf(scope);
      await requireRows(store, workflow_id);
      const page = await pageOf(store.readPersistedRows(workflow_id), 'chain.rows', limit, after, (r) => rowEntry(r));
      const evidence_generations = evidenceGenerations(scope.lineage(), page.items.map((r) => r.event?.triggering_outcome.evidence_digest ?? null));
      return { rows: page.items, next_page_token: page.next_page_token, evidence_generations };
    },
    'chain.list': async ({ project }) => {
      const store = await stores.storeOf(scopeOf(project));
      const workflows: WorkflowEntry[] = [];
      for (const id of await store.listWorkflows()) workflows.push(await listEntry(store, id));
      const unreadable = await unreadableLedgers(store);
      return unreadable.length === 0 ? { workflows } : { workflows, unreadable };
    },
    'chain.read': async ({ project, workflow_id, limit, after }) => {
      const scope = scopeOf(project);
      const store = await stores.storeOf(scope);
      await requireRows(store, workflow_id);
      const page = await pageOf(store.readAllForWorkflow(workflow_id), 'chain.read', limit, after, (e, sequence): ChainEvent => ({ sequence, ...e }));
      const evidence_generations = evidenceGenerations(scope.lineage(), page.items.map((e) => e.triggering_outcome.evidence_digest));
      return { events: page.items, next_page_token: page.next_page_token, evidence_generations };
    },
    'chain.verify': async ({ project, workflow_id, expect_head }) => {
      const store = await stores.storeOf(scopeOf(project));
      if (workflow_id === undefined) {
        if (expect_head !== undefined) throw new GfError('GF_VALIDATION', 'expect_head needs one workflow_id', { field: 'expect_head' });
        const results: VerifyEntry[] = [];
        for (const id of await store.listWorkflows()) results.push(await verifyOne(store, id));
        for (const u of await unreadableLedgers(store)) results.push(unreadableEntry(u));
        return { results };
      }
      let one: VerifyEntry;
      try {
        await requireRows(store, workflow_id);
        one = await verifyOne(store, workflow_id);
      } catch (e) {
        // The same verdict as `--all` gives the same file: unreadable, with its cause.
        const u = unreadableOf(e);
        if (u === null) throw e;
        return { results: [{ ...unreadableEntry(u), workflow_id }] };
      }
      // A tail other than the head recorded elsewhere exposes a truncated chain (the CLI's --expect-head).
      if (one.status === 'ok' && expect_head !== undefined) {
        const failure = verifyFailure([one], new Map([[workflow_id, expect_head]]));
        if (failure !== null) throw failure;
      }
      return { results: [one] };
    },
    'chain.health': async ({ project }) => {
      const store = await stores.storeOf(scopeOf(project));
      const workflows = (await store.listWorkflows()).length;
      if (stores.kind === 'postgres') return { backend: 'postgres', workflows, details: await stores.postgresHealth() };
      return { backend: 'sqlite', workflows, details: {} };
    },
  } satisfies PartialImplementations;
  // Every chain call names an unreachable database server in plain words (never `GF_IO`, never the credentials).
  const guarded = Object.fromEntries(
    Object.entries(ops).map(([name, impl]) => [
      name,
      async (request: never) => {
        try {
          return await (impl as (r: never) => Promise<unknown>)(request);
        } catch (e) {
          throw stores.explain(e);
        }
      },
    ]),
  );
  return guarded as typeof ops;
}
