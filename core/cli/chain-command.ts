import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ChainError } from '../chain/errors';
import type { WorkflowId } from '../chain/event';
import type { ChainStoreWithReaders } from '../chain/port';
import { addChainPostgresOption, openPostgresChainStore, resolveChainPostgresTarget, type ChainPostgresTarget, type OpenedPostgresChainStore } from '../chain/postgres/postgres-config';
import type { VerifyResult } from '../chain/verify';
import { GfError } from '../errors';
import type { CliIo } from './io';
import { projectOption } from './project-option';

interface CommonOpts {
  readonly project: string;
  readonly json?: boolean;
  readonly chainPostgresUrl?: string;
}

interface VerifyOpts extends CommonOpts {
  readonly all?: boolean;
  readonly expectHead?: string;
}

/** One line of `verify --json`. */
interface VerifyReport {
  readonly workflow_id: string;
  readonly status: VerifyResult['status'] | 'unreadable';
  readonly first_bad_sequence: number | null;
  readonly rows: number;
  readonly tail_head: string;
  readonly ledger?: string;
  readonly cause?: string;
}

/** `unreadable` reports for ledger files that cannot be read (one bad file never hides the others). */
async function unreadableReports(store: ChainStoreWithReaders): Promise<VerifyReport[]> {
  const out: VerifyReport[] = [];
  const { SqliteChainStore } = await chainEngine();
  if (!(store instanceof SqliteChainStore)) return out; // only per-project SQLite ledgers are files that can be unreadable
  for (const l of await store.scanLedgers()) {
    if (l.kind === 'unreadable') out.push({ workflow_id: l.ledger.split('/')[1] ?? l.ledger, status: 'unreadable', first_bad_sequence: null, rows: 0, tail_head: '', ledger: l.ledger, cause: l.cause });
  }
  return out;
}

/** The chain root of a project: `<project>/chain` (the project directory must exist). */
function chainRoot(project: string): string {
  if (!existsSync(project)) throw new GfError('GF_IO', 'project directory not found', {}, false);
  return join(project, 'chain');
}

/** The shared Postgres ledger when `--chain-postgres-url` or `GF_CHAIN_POSTGRES_URL` names one, else none. */
function postgresTarget(opts: CommonOpts): ChainPostgresTarget | null {
  return resolveChainPostgresTarget({ option: opts.chainPostgresUrl, env: process.env });
}

/** Opens the chain store the options select (the shared Postgres ledger, or `<project>/chain`), runs `fn`, closes it. */
async function withStore<T>(opts: CommonOpts, fn: (s: ChainStoreWithReaders, pg: OpenedPostgresChainStore | null) => Promise<T>): Promise<T> {
  const target = postgresTarget(opts);
  if (target !== null) {
    const opened = await openPostgresChainStore(target.url).catch((e: unknown) => {
      if (e instanceof GfError || e instanceof ChainError) throw e;
      // The driver's text is not echoed; only its code, and the URL with its password redacted.
      const code = (e as { code?: unknown } | null)?.code;
      throw new GfError('GF_CHAIN_STORE', `the PostgreSQL chain store at ${target.redacted} did not answer`, { reason: typeof code === 'string' ? code : 'unreachable' });
    });
    try {
      return await fn(opened.store, opened);
    } finally {
      await opened.close();
    }
  }
  const { SqliteChainStore } = await chainEngine();
  const store = new SqliteChainStore(chainRoot(opts.project));
  try {
    return await fn(store, null);
  } finally {
    await store.close();
  }
}

/** `gf chain health`: the chain store's record (the app's `chain.health` shape). */
interface ChainHealthReport {
  readonly backend: 'sqlite' | 'postgres';
  readonly workflows: number;
  readonly pool_in_use?: number;
  readonly pool_idle?: number;
  /** `null` in JSON and "never" in the table before this process's first write. */
  readonly last_write_age_seconds?: number | null;
}

/** The chain engine, loaded by the chain commands when they run (so `gf --help` stays fast). */
async function chainEngine() {
  const [head, sqlite, support, verifier] = await Promise.all([
    import('../chain/head'),
    import('../chain/sqlite/sqlite-store'),
    import('../chain/store-support'),
    import('../chain/verify'),
  ]);
  return { isChainHead: head.isChainHead, SqliteChainStore: sqlite.SqliteChainStore, decodeEventBytes: support.decodeEventBytes, verify: verifier.verify };
}

async function workflowArg(text: string): Promise<WorkflowId> {
  const assertWorkflowId: (id: string) => asserts id is WorkflowId = (await import('../chain/event')).assertWorkflowId;
  assertWorkflowId(text); // error carries no caller text
  return text;
}

async function requireRows(store: ChainStoreWithReaders, id: WorkflowId): Promise<void> {
  for await (const _row of store.readPersistedRows(id)) return;
  throw new ChainError('workflows.workflow_not_found', 'no chain for this workflow in the project');
}

async function report(store: ChainStoreWithReaders, id: WorkflowId): Promise<VerifyReport> {
  const { verify } = await chainEngine();
  const v = await verify(store, id);
  return { workflow_id: id, status: v.status, first_bad_sequence: v.first_bad_sequence ?? null, rows: v.rows, tail_head: v.tail_head };
}

function reportLine(r: VerifyReport): string {
  if (r.status === 'unreadable') return `${r.ledger ?? r.workflow_id}: unreadable (${r.cause ?? 'unknown'})\n`;
  const where = r.first_bad_sequence === null ? '' : ` at sequence ${r.first_bad_sequence}`;
  return `${r.workflow_id}: ${r.status}${where} (${r.rows} rows, tail ${r.tail_head})\n`;
}

/** Expected tail heads from a file of `<workflow_id> <head>` lines (blank lines and `#` comments skipped). */
async function readExpectedHeads(file: string): Promise<Map<string, string>> {
  const { isChainHead } = await chainEngine();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new GfError('GF_VALIDATION', 'cannot read the file of expected heads', { field: 'expect_head' });
  }
  const out = new Map<string, string>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+)\s+(\S+)$/.exec(line);
    if (m === null || !isChainHead(m[2] as string)) throw new GfError('GF_VALIDATION', 'expected heads: each line is `<workflow_id> <blake3 head>`', { line: i + 1 });
    await workflowArg(m[1] as string);
    out.set(m[1] as string, m[2] as string);
  }
  if (out.size === 0) throw new GfError('GF_VALIDATION', 'the file of expected heads names no workflow', { field: 'expect_head' });
  return out;
}

function failureFor(reports: readonly VerifyReport[]): ChainError | GfError | undefined {
  if (reports.some((r) => r.status === 'torn_write')) return new ChainError('workflows.checkpoint_torn_write', 'a chain has a torn row');
  if (reports.some((r) => r.status === 'chain_mismatch')) return new ChainError('workflows.checkpoint_chain_mismatch', 'a chain head does not match its recomputation');
  const unreadable = reports.find((r) => r.status === 'unreadable');
  if (unreadable !== undefined) return new GfError('GF_PROJECT_CORRUPT', 'a ledger file is unreadable', { name: unreadable.ledger ?? 'chain' });
  return undefined;
}

/**
 * `gf chain list|show|verify`: inspect and verify a project's workflow ledgers.
 *
 * The store is `<project>/chain` (SQLite, one database per workflow), or the
 * shared PostgreSQL ledger named by `--chain-postgres-url` or (preferred: it
 * never shows in `ps`) `GF_CHAIN_POSTGRES_URL`; the connection string is
 * never printed. `health` prints the store's health record.
 * `verify` recomputes every head; a damaged chain, or a tail different from
 * `--expect-head` (a head recorded elsewhere, which exposes a truncated
 * tail), exits 1 with the error id on stderr after printing the report.
 */
export function registerChainCommands(program: Command, io: CliIo): void {
  const chain = program.command('chain').description('inspect and verify hash-chained workflow ledgers');

  addChainPostgresOption(chain
    .command('list'))
    .description('list the workflows that have a ledger')
    .addOption(projectOption('project directory (ledgers live in <dir>/chain)'))
    .option('--json', 'print JSON')
    .action(async (opts: CommonOpts) => {
      const listed = await withStore(opts, async (store) => {
        const out: { workflow_id: string; rows: number; tail_head: string }[] = [];
        for (const id of await store.listWorkflows()) {
          let n = 0;
          for await (const _r of store.readPersistedRows(id)) n += 1;
          out.push({ workflow_id: id, rows: n, tail_head: await store.tailChainHead(id) });
        }
        return { out, bad: await unreadableReports(store) };
      });
      const rows = [...listed.out, ...listed.bad.map((b) => ({ ledger: b.ledger, status: b.status, cause: b.cause }))];
      if (opts.json === true) io.stdout(`${JSON.stringify(rows)}\n`);
      else {
        for (const r of listed.out) io.stdout(`${r.workflow_id}\t${r.rows} rows\t${r.tail_head}\n`);
        for (const b of listed.bad) io.stdout(reportLine(b));
      }
    });

  addChainPostgresOption(chain
    .command('show'))
    .description('show the persisted rows of one workflow (not verified: use verify)')
    .argument('<workflow>', 'workflow id')
    .addOption(projectOption('project directory (ledgers live in <dir>/chain)'))
    .option('--json', 'print JSON')
    .action(async (workflow: string, opts: CommonOpts) => {
      const id = await workflowArg(workflow);
      const { decodeEventBytes } = await chainEngine();
      const rows = await withStore(opts, async (store) => {
        await requireRows(store, id);
        const out: Record<string, unknown>[] = [];
        for await (const r of store.readPersistedRows(id)) {
          let event: unknown = null;
          try {
            event = decodeEventBytes(r.event_bytes);
          } catch (_e) {
            event = null; // torn row: shown without its event; verify classifies it
          }
          out.push({ sequence: r.sequence, transition_id: r.transition_id, prior_head: r.prior_head, next_head: r.next_head, written_at: r.written_at, event });
        }
        return out;
      });
      if (opts.json === true) {
        io.stdout(`${JSON.stringify({ workflow_id: id, rows })}\n`);
        return;
      }
      for (const r of rows) {
        const e = r.event as { prior_state_id: string; next_state_id: string; occurred_at: string; triggering_outcome: { kind: string } } | null;
        const what = e === null ? '(unreadable event bytes)' : `${e.prior_state_id} -> ${e.next_state_id}  ${e.triggering_outcome.kind}  ${e.occurred_at}`;
        io.stdout(`#${String(r.sequence)}  ${what}  ${String(r.next_head)}\n`);
      }
    });

  addChainPostgresOption(chain
    .command('verify'))
    .description('recompute every chain head of one workflow (or --all) from the persisted bytes')
    .argument('[workflow]', 'workflow id')
    .option('--all', 'verify every workflow in the project')
    .option('--expect-head <head>', 'fail unless the tail head equals this recorded head (detects a truncated tail); with --all, a file of `<workflow_id> <head>` lines')
    .addOption(projectOption('project directory (ledgers live in <dir>/chain)'))
    .option('--json', 'print JSON')
    .action(async (workflow: string | undefined, opts: VerifyOpts) => {
      if ((workflow === undefined) === (opts.all !== true)) throw new GfError('GF_VALIDATION', 'give exactly one of WORKFLOW or --all');
      const { isChainHead } = await chainEngine();
      // With --all, --expect-head names a file of expected heads: one `<workflow_id> <head>` per line.
      const expected = opts.all === true && opts.expectHead !== undefined ? await readExpectedHeads(opts.expectHead) : undefined;
      if (opts.expectHead !== undefined && opts.all !== true && !isChainHead(opts.expectHead)) {
        throw new GfError('GF_VALIDATION', '--expect-head takes one chain head (blake3:<64 hex>) with one WORKFLOW, or a file of heads with --all');
      }
      const reports = await withStore(opts, async (store) => {
        if (opts.all === true) {
          const out: VerifyReport[] = [];
          for (const id of await store.listWorkflows()) out.push(await report(store, id));
          out.push(...(await unreadableReports(store)));
          return out;
        }
        const id = await workflowArg(workflow as string);
        await requireRows(store, id);
        return [await report(store, id)];
      });
      if (opts.json === true) io.stdout(`${JSON.stringify(opts.all === true ? reports : reports[0])}\n`);
      else for (const r of reports) io.stdout(reportLine(r));
      const failure = failureFor(reports);
      if (failure !== undefined) throw failure;
      if (expected !== undefined) {
        for (const [id, head] of expected) {
          if (reports.find((r) => r.workflow_id === id)?.tail_head !== head) {
            throw new ChainError('workflows.checkpoint_head_unexpected', 'a tail head differs from the expected head');
          }
        }
      } else if (opts.expectHead !== undefined && reports[0]?.tail_head !== opts.expectHead) {
        throw new ChainError('workflows.checkpoint_head_unexpected', 'the tail head differs from the expected head');
      }
    });

  addChainPostgresOption(chain
    .command('health'))
    .description("print the chain store's health record: backend, workflows, and for PostgreSQL the pool counters")
    .addOption(projectOption('project directory (ledgers live in <dir>/chain)'))
    .option('--json', 'print JSON (last_write_age_seconds is null before a write)')
    .addHelpText('after', '\nExample:\n  gf chain health --project ./demo --json   (GF_CHAIN_POSTGRES_URL set: the shared Postgres ledger)\n')
    .action(async (opts: CommonOpts) => {
      const record = await withStore(opts, async (store, pg): Promise<ChainHealthReport> => {
        const workflows = (await store.listWorkflows()).length;
        if (pg === null) return { backend: 'sqlite', workflows };
        const h = pg.store.health();
        const age = Number.isFinite(h.last_write_age_seconds) ? h.last_write_age_seconds : null;
        return { backend: 'postgres', workflows, pool_in_use: h.pool_in_use, pool_idle: h.pool_idle, last_write_age_seconds: age };
      });
      if (opts.json === true) {
        io.stdout(`${JSON.stringify(record)}\n`);
        return;
      }
      for (const [field, value] of Object.entries(record)) io.stdout(`${field.padEnd(24)}${value === null ? 'never' : String(value)}\n`);
    });
}
