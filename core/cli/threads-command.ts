// `gf threads list | history | show | diff | restore | prune | health`: LangGraph
// agent threads, through the dispatcher (no engine import here: the readers
// and LangGraph load on first call, via ./lazy-engine).
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { parsePostgresUrl } from '../contract/postgres-url';
import { reasonProblem } from '../contract/reasons';
import { threadValueText } from '../contract/python-values';
import type { ThreadJson } from '../contract/threads';
import { GfError } from '../errors';
import type { CliIo } from './io';
import { actorOption, resolveActor } from './actor-option';
import { cliThreadsEngine } from './lazy-engine';
import { formatOf, withOutputOptions, type OutputFlags } from './output-options';

/** The environment variable of the launch Postgres URL (core/contract/threads.ts declares it; repeated here so `--help` loads no contract). */
const POSTGRES_ENV = 'GF_LANGGRAPH_POSTGRES_URL';

interface SourceOpts extends OutputFlags {
  readonly postgresUrl?: string;
  readonly sqlite?: string;
  readonly limit?: string;
  readonly after?: string;
  readonly prefix?: string;
  readonly reason?: string;
  readonly actor?: string;
  readonly expectHead?: string;
  readonly idempotencyKey?: string;
  readonly namespace?: string;
  readonly keepLast?: string;
  readonly thread?: string;
  readonly preview?: boolean;
  readonly expectPreview?: string;
}

type Source = { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres' };

/** Refuses a `--postgres-url` that is not a postgres:// or postgresql:// URL (`GF_VALIDATION`; the value is never echoed). */
export function assertPostgresUrl(url: string): void {
  if (parsePostgresUrl(url) === null) {
    throw new GfError('GF_VALIDATION', 'the --postgres-url value is not a postgres:// or postgresql:// connection string', { field: 'postgres_url' });
  }
}

/** The source the options name: `--sqlite PATH`, or `--postgres-url URL` / `GF_LANGGRAPH_POSTGRES_URL`. */
function sourceOf(opts: SourceOpts): { source: Source; url: string | undefined } {
  const env = process.env[POSTGRES_ENV];
  const url = opts.postgresUrl ?? (opts.sqlite === undefined && env !== undefined && env !== '' ? env : undefined);
  if ((url === undefined) === (opts.sqlite === undefined)) throw new GfError('GF_VALIDATION', `give exactly one of --postgres-url or --sqlite (or set ${POSTGRES_ENV})`);
  if (url !== undefined) {
    assertPostgresUrl(url);
    return { source: { kind: 'postgres' }, url };
  }
  return { source: { kind: 'sqlite', path: resolve(opts.sqlite as string) }, url: undefined };
}

function limitOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,5}$/.test(text)) throw new GfError('GF_VALIDATION', '--limit must be a whole number from 1', { field: 'limit' });
  return Number(text);
}

type Call = Parameters<Parameters<Awaited<ReturnType<typeof cliThreadsEngine>>['withThreads']>[1]>[0];

function withSource(cmd: Command): Command {
  return cmd
    .option('--sqlite <path>', 'LangGraph SQLite checkpoint database file (opened read-only)')
    .option('--postgres-url <url>', `LangGraph PostgreSQL database (or ${POSTGRES_ENV}); read-only session; never printed`);
}

function paged(cmd: Command): Command {
  return cmd.option('--limit <n>', 'rows per page (default 50, at most 500)').option('--after <token>', 'the next-page token a previous page printed');
}

const list = (v: readonly string[]): string => v.join(' ');
/** A value's cell text: Python's `repr` for values Python LangGraph wrote, else JSON (`--json` keeps the documented JSON form). */
const text = (v: ThreadJson): string => threadValueText(v);

/**
 * `gf threads …`: browse, diff and restore LangGraph agent threads.
 *
 * Every subcommand takes `--sqlite PATH` or `--postgres-url URL` (or
 * `GF_LANGGRAPH_POSTGRES_URL`); browsing never writes to the database.
 * Output: a table on a terminal, `--json` or `--csv`.
 */
export function registerThreadsCommands(program: Command, io: CliIo): void {
  const threads = program
    .command('threads')
    .description('LangGraph agent threads: list, history, show, diff, restore and prune (with a reason), checkpointer health')
    .addHelpText('after', `\nExamples:\n  gf threads list --sqlite ./demo/langgraph.sqlite\n  gf threads history review-07 --sqlite ./demo/langgraph.sqlite --limit 20\n  ${POSTGRES_ENV}=postgres://… gf threads list --prefix review- --json\n`);

  withOutputOptions(paged(withSource(threads.command('list').description('threads with their checkpoint count, newest checkpoint and whether an interrupt is waiting'))))
    .option('--prefix <text>', 'only threads whose id starts with this text')
    .addHelpText('after', '\nExample:\n  gf threads list --sqlite ./demo/langgraph.sqlite --prefix review- --csv\n')
    .action(async (opts: SourceOpts) => {
      const format = formatOf(opts);
      await runCall(opts, async (c, source, e) => {
        const page = await c('threads.list', { source, prefix: opts.prefix, limit: limitOf(opts.limit), after: opts.after ?? null });
        if (format === 'json') {
          io.stdout(`${JSON.stringify(page)}\n`);
          return;
        }
        const rows = page.rows.map((r) => ({ thread_id: r.thread_id, checkpoints: r.checkpoint_count, latest_time: r.latest_time, step: r.latest_step, source: r.latest_source, interrupted: r.interrupted, latest_checkpoint_id: r.latest_checkpoint_id }));
        e.writeRowsResult(io, format, ['thread_id', 'checkpoints', 'latest_time', 'step', 'source', 'interrupted', 'latest_checkpoint_id'], rows, page.next_page_token);
      });
    });

  withOutputOptions(paged(withSource(threads.command('history').description("a thread's checkpoints, newest first: time, step, source, the nodes that wrote it, the nodes that run next"))))
    .argument('<thread>', 'thread id')
    .option('--namespace <ns>', "a subgraph's checkpoint namespace (see gf threads namespaces); default: the thread's own")
    .addHelpText('after', '\nExample:\n  gf threads history review-07 --sqlite ./demo/langgraph.sqlite --limit 20\n')
    .action(async (thread: string, opts: SourceOpts) => {
      const format = formatOf(opts);
      await runCall(opts, async (c, source, e) => {
        const page = await c('threads.history', { source, thread_id: thread, checkpoint_ns: opts.namespace, limit: limitOf(opts.limit), after: opts.after ?? null });
        if (format === 'json') {
          io.stdout(`${JSON.stringify(page)}\n`);
          return;
        }
        const rows = page.rows.map((r) => ({ time: r.time, step: r.step, source: r.source, writes: list(r.writes), next: list(r.next), restored_from: r.restored_from, checkpoint_id: r.checkpoint_id, parent_checkpoint_id: r.parent_checkpoint_id }));
        e.writeRowsResult(io, format, ['time', 'step', 'source', 'writes', 'next', 'restored_from', 'checkpoint_id', 'parent_checkpoint_id'], rows, page.next_page_token);
      });
    });

  withOutputOptions(withSource(threads.command('show').description('one checkpoint: channel values (JSON, with their types), next nodes, interrupts, pending writes, metadata')))
    .argument('<thread>', 'thread id')
    .argument('[checkpoint]', 'checkpoint id (default: the newest)')
    .option('--namespace <ns>', "a subgraph's checkpoint namespace (see gf threads namespaces); default: the thread's own")
    .addHelpText('after', '\nExample:\n  gf threads show review-07 --sqlite ./demo/langgraph.sqlite --json\n')
    .action(async (thread: string, checkpoint: string | undefined, opts: SourceOpts) => {
      const format = formatOf(opts);
      await runCall(opts, async (c, source, e) => {
        const st = await c('threads.state', { source, thread_id: thread, checkpoint_ns: opts.namespace, ...(checkpoint === undefined ? {} : { checkpoint_id: checkpoint }) });
        if (format === 'json') {
          io.stdout(`${JSON.stringify(st)}\n`);
          return;
        }
        const rows = [
          ...st.values.map((v) => ({ kind: 'value', name: v.channel, type: v.type, value: text(v.value) })),
          ...st.interrupts.map((i) => ({ kind: 'interrupt', name: i.id ?? '', type: 'interrupt', value: text(i.value) })),
          ...st.pending_writes.map((w) => ({ kind: 'pending_write', name: w.channel, type: w.type, value: text(w.value) })),
          { kind: 'next', name: 'next', type: 'nodes', value: list(st.next) },
          { kind: 'metadata', name: 'metadata', type: 'object', value: text(st.metadata) },
        ];
        if (format === 'table') io.stdout(`thread ${st.thread_id} checkpoint ${st.checkpoint_id}${st.is_head ? ' (head)' : ''} at ${st.time}\n`);
        e.writeRowsResult(io, format, ['kind', 'name', 'type', 'value'], rows, null);
      });
    });

  withOutputOptions(withSource(threads.command('namespaces').description("a thread's subgraph checkpoint namespaces: node, task, checkpoints, the parent checkpoint each ran under")))
    .argument('<thread>', 'thread id')
    .addHelpText('after', '\nExample:\n  gf threads namespaces fix-1 --sqlite ./agent/checkpoints.sqlite\n  gf threads history fix-1 --namespace "scan:0b58…" --sqlite ./agent/checkpoints.sqlite\n')
    .action(async (thread: string, opts: SourceOpts) => {
      const format = formatOf(opts);
      await runCall(opts, async (c, source, e) => {
        const ns = await c('threads.namespaces', { source, thread_id: thread });
        if (format === 'json') {
          io.stdout(`${JSON.stringify(ns)}\n`);
          return;
        }
        const rows = ns.rows.map((r) => ({ node: r.node, checkpoints: r.checkpoint_count, parent_checkpoint_id: r.parent_checkpoint_id, latest_checkpoint_id: r.latest_checkpoint_id, namespace: r.checkpoint_ns }));
        e.writeRowsResult(io, format, ['node', 'checkpoints', 'parent_checkpoint_id', 'latest_checkpoint_id', 'namespace'], rows, null);
      });
    });

  withOutputOptions(paged(withSource(threads.command('diff').description('what changed between two checkpoints of a thread: per channel, then each value (JSON pointer, before, after)'))))
    .argument('<thread>', 'thread id')
    .argument('<from>', 'checkpoint id, or HEAD')
    .argument('<to>', 'checkpoint id, or HEAD')
    .addHelpText('after', '\nExample:\n  gf threads diff review-07 1f0c…-… HEAD --sqlite ./demo/langgraph.sqlite\n')
    .action(async (thread: string, from: string, to: string, opts: SourceOpts) => {
      const format = formatOf(opts);
      await runCall(opts, async (c, source, e) => {
        const d = await c('threads.diff', { source, thread_id: thread, from, to, limit: limitOf(opts.limit), after: opts.after ?? null });
        if (format === 'json') {
          io.stdout(`${JSON.stringify(d)}\n`);
          return;
        }
        if (format === 'table') {
          const changed = d.channels.filter((ch) => ch.change !== 'unchanged');
          io.stdout(`channels: ${changed.map((ch) => `${ch.channel} ${ch.change} (${ch.changes})`).join(', ') || 'no changes'}; ${d.total_changes} value changes\n`);
        }
        const rows = d.rows.map((r) => ({ pointer: r.pointer, kind: r.kind, before: text(r.before), after: text(r.after) }));
        e.writeRowsResult(io, format, ['pointer', 'kind', 'before', 'after'], rows, d.next_page_token);
      });
    });

  withOutputOptions(withSource(threads.command('restore').description("append a new head checkpoint equal to CHECKPOINT (history is kept); a reason is required")))
    .argument('<thread>', 'thread id')
    .argument('<checkpoint>', 'the checkpoint to restore')
    .option('--reason <text>', 'why (1–1,024 UTF-8 bytes after trimming; stored in the new checkpoint’s metadata)')
    .addOption(actorOption())
    .option('--expect-head <checkpoint>', 'refuse (GF_STALE_PREVIEW, nothing written) unless the thread\'s head is still this checkpoint')
    .option('--idempotency-key <uuid>', 'operation UUID (canonical lowercase); generated and printed when omitted')
    .addHelpText('after', '\nExample:\n  gf threads restore review-07 1f0c…-… --reason "approval was given by mistake" --sqlite ./demo/langgraph.sqlite\n')
    .action(async (thread: string, checkpoint: string, opts: SourceOpts, cmd: Command) => {
      const format = formatOf(opts);
      const { reason, idempotency_key } = writeBasics(opts, cmd);
      await runCall(opts, async (c, source, e) => {
        // The same actor a workspace write records: a name becomes its derived actor UUID (the app shows the name).
        const actor = (await resolveActor(c, opts.actor)) ?? null;
        const r = await c('threads.restore', { source, thread_id: thread, checkpoint_id: checkpoint, reason, actor, idempotency_key, ...(opts.expectHead === undefined ? {} : { expected_head_checkpoint_id: opts.expectHead }) });
        if (format === 'json') {
          io.stdout(`${JSON.stringify(r)}\n`);
          return;
        }
        const row = { thread_id: r.thread_id, checkpoint_id: r.checkpoint_id, restored_from: r.restored_from, parent_checkpoint_id: r.parent_checkpoint_id, restored_at: r.restored_at, replayed: r.replayed };
        e.writeRowsResult(io, format, Object.keys(row), [row], null);
      });
    });

  withOutputOptions(withSource(threads.command('prune').description("delete old checkpoints: per thread all but the newest N, never a head, an interrupted checkpoint, a restore's head or target; --preview first")))
    .option('--keep-last <n>', "checkpoints kept per thread, newest first (0: only those a prune never deletes)")
    .option('--thread <thread>', 'only this thread (default: every thread)')
    .option('--preview', 'list what would be deleted and the preview digest; writes nothing')
    .option('--limit <n>', 'checkpoints listed by --preview (default 50, at most 500; the count covers all)')
    .option('--reason <text>', 'why (1–1,024 UTF-8 bytes after trimming; recorded with the prune)')
    .addOption(actorOption())
    .option('--expect-preview <digest>', 'the digest --preview printed: refused (GF_STALE_PREVIEW, nothing deleted) when the set differs now')
    .option('--idempotency-key <uuid>', 'operation UUID (canonical lowercase); generated and printed when omitted')
    .addHelpText('after', '\nExample:\n  gf threads prune --keep-last 5 --preview --sqlite ./agent/checkpoints.sqlite\n  gf threads prune --keep-last 5 --reason "old runs" --expect-preview 3f1c… --sqlite ./agent/checkpoints.sqlite\n')
    .action(async (opts: SourceOpts, cmd: Command) => {
      const format = formatOf(opts);
      if (opts.keepLast === undefined) cmd.error("error: required option '--keep-last <n>' not specified", { exitCode: 2, code: 'commander.missingMandatoryOptionValue' });
      if (!/^(0|[1-9][0-9]{0,6})$/.test(opts.keepLast ?? '')) throw new GfError('GF_VALIDATION', '--keep-last must be a whole number from 0', { field: 'keep_last' }, false);
      const keep_last = Number(opts.keepLast);
      const scope = opts.thread === undefined ? {} : { thread_id: opts.thread };
      if (opts.preview === true) {
        await runCall(opts, async (c, source, e) => {
          const p = await c('threads.prune_preview', { source, keep_last, ...scope, limit: limitOf(opts.limit) });
          if (format === 'json') {
            io.stdout(`${JSON.stringify(p)}\n`);
            return;
          }
          const kept = Object.entries(p.kept).filter(([, n]) => n > 0).map(([why, n]) => `${n} ${why.replace('_', ' ')}`).join(', ');
          if (format === 'table') io.stdout(`${p.total} checkpoints of ${p.threads} threads would be deleted${kept === '' ? '' : ` (older ones kept: ${kept})`}${p.truncated ? `; the first ${p.rows.length} listed` : ''}\n`);
          e.writeRowsResult(io, format, ['thread_id', 'time', 'step', 'source', 'checkpoint_id'], p.rows.map((r) => ({ ...r })), null);
          if (format === 'table') io.stdout(`preview digest: ${p.preview_digest}\nto delete them: gf threads prune --keep-last ${keep_last}${opts.thread === undefined ? '' : ' --thread <thread>'} --reason <text> --expect-preview ${p.preview_digest}\n`);
        });
        return;
      }
      if (opts.reason !== undefined && opts.expectPreview === undefined) cmd.error("error: required option '--expect-preview <digest>' not specified (run with --preview first: it prints the digest)", { exitCode: 2, code: 'commander.missingMandatoryOptionValue' });
      const { reason, idempotency_key } = writeBasics(opts, cmd);
      await runCall(opts, async (c, source, e) => {
        const actor = (await resolveActor(c, opts.actor)) ?? null;
        const r = await c('threads.prune', { source, keep_last, ...scope, reason, actor, idempotency_key, expected_preview_digest: opts.expectPreview ?? '' });
        if (format === 'json') {
          io.stdout(`${JSON.stringify(r)}\n`);
          return;
        }
        const row = { checkpoints: r.checkpoints, threads: r.threads, writes: r.writes, blobs: r.blobs, reason: r.reason, pruned_at: r.pruned_at, recorded_in: r.recorded_in, replayed: r.replayed };
        e.writeRowsResult(io, format, Object.keys(row), [row], null);
      });
    });

  withSource(threads.command('health').description("a LangGraph checkpointer adapter's health: pool counters and the age of its last write"))
    .option('--json', 'print JSON (last_write_age_seconds is null before a write; readable is false when the threads browser cannot read the source)')
    .addHelpText('after', '\nExample:\n  gf threads health --sqlite ./agent/checkpoints.sqlite --json\n')
    .action(async (opts: SourceOpts) => {
      await runCall(opts, async (c, source) => {
        const h = await c('threads.health', { source });
        if (opts.json === true) {
          // The adapter's record (its three fields), then what is reported beside it.
          io.stdout(`${JSON.stringify({ pool_in_use: h.pool_in_use, pool_idle: h.pool_idle, last_write_age_seconds: h.last_write_age_seconds, pool_waiting: h.pool_waiting, readable: h.readable, unreadable_reason: h.unreadable_reason })}\n`);
          return;
        }
        const lines: [string, string][] = [
          ['pool_in_use', String(h.pool_in_use)],
          ['pool_idle', String(h.pool_idle)],
          ['last_write_age_seconds', h.last_write_age_seconds === null ? 'never' : h.last_write_age_seconds.toFixed(3)],
          ['pool_waiting', String(h.pool_waiting)],
          ['readable', h.readable ? 'yes' : `no: ${h.unreadable_reason ?? ''}`],
        ];
        io.stdout(lines.map(([k, v]) => `${k.padEnd(24)}${v}\n`).join(''));
      });
    });

  /** A write's required `--reason` (checked by the contract's rule before anything opens) and its idempotency key (generated and printed when omitted). */
  function writeBasics(opts: SourceOpts, cmd: Command): { readonly reason: string; readonly idempotency_key: string } {
    if (opts.reason === undefined) cmd.error("error: required option '--reason <text>' not specified", { exitCode: 2, code: 'commander.missingMandatoryOptionValue' });
    const reason = opts.reason ?? '';
    const problem = reasonProblem(reason);
    if (problem !== null) throw new GfError('GF_VALIDATION', problem, { field: 'reason' }, false);
    let key = opts.idempotencyKey;
    if (key === undefined) {
      key = randomUUID();
      io.stderr(`idempotency key: ${key} (replay with --idempotency-key ${key})\n`);
    }
    return { reason, idempotency_key: key };
  }

  /** One facade per command: `fn` gets the typed call, the source and the formatters. */
  async function runCall(opts: SourceOpts, fn: (c: Call, source: Source, e: Awaited<ReturnType<typeof cliThreadsEngine>>) => Promise<void>): Promise<void> {
    const { source, url } = sourceOf(opts);
    const e = await cliThreadsEngine();
    await e.withThreads(url, (c) => fn(c, source, e));
  }
}
