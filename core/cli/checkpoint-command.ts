// `gf checkpoint create|list|show|open|delete` (ADR-0014; diff and revert
// register their own subcommands). Each command parses its arguments, calls
// one contract operation through the dispatcher and formats the result.
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { GfError } from '../errors';
import type { ArrowResult } from '../contract/operations';
import type { CliIo } from './io';
import { formatOf, withOutputOptions, type OutputFlags, type OutputFormat } from './output-options';
import type { CellsOf } from './output';
import { cliEngine, type CliEngine } from './lazy-engine';
import { projectOption } from './project-option';
import type { CliSession } from './session';
import { withValidationProgress } from './validation-progress';

interface CommonOpts extends OutputFlags {
  readonly project: string;
}

interface MutateOpts extends CommonOpts {
  readonly idempotencyKey?: string;
  readonly actor?: string;
  readonly description?: string;
  readonly timeoutMs?: string;
}

interface ListOpts extends CommonOpts {
  readonly limit?: string;
  readonly after?: string;
  readonly deleted?: boolean;
}

/** A non-negative integer option (usage errors are `GF_VALIDATION`, naming the field, never echoing the text). */
export function intOption(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text)) throw new GfError('GF_VALIDATION', `${field} must be a non-negative integer`, { field });
  return Number(text);
}

/** The operation UUID: the caller's, or a fresh one (announced by `announceKey` once the write succeeded). */
export function idempotencyKey(_io: CliIo, given: string | undefined): string {
  return given ?? randomUUID();
}

/**
 * After a successful write with a generated key: the key on stderr, so the
 * same request can be repeated idempotently. A failed write prints no replay
 * hint (nothing to replay when `committed: false`; the error says what happened).
 */
export function announceKey(io: CliIo, given: string | undefined, key: string): void {
  if (given === undefined) io.stderr(`idempotency key: ${key}\n`);
}

/** `--timeout-ms`: the contract's `timeout_ms` of writes. */
export function timeoutOption(cmd: Command): Command {
  return cmd.option('--timeout-ms <ms>', 'wait this long for a busy writer lock');
}

type Receipt = CellsOf<'checkpoints.create'>;

/** The people-facing line of a create/delete receipt. */
const receiptLine = (rows: readonly Receipt[]): string =>
  rows.map((r) => `${String(r.operation)} ${String(r.name)} checkpoint_uuid=${String(r.checkpoint_uuid)} generation=${String(r.source_generation_uuid)} revision=${String(r.registry_revision)}\n`).join('');

/**
 * A write subcommand of `gf checkpoint`: `<name>`, `--project`, the command's
 * own options, `--idempotency-key`, `--actor`, `--timeout-ms` and the output formats.
 */
function writeCommand(group: Command, verb: string, description: string, own: (c: Command) => Command = (c) => c): Command {
  const base = group.command(verb).description(description).argument('<name>', 'checkpoint name (content, never a path)').addOption(projectOption());
  return withOutputOptions(
    timeoutOption(
      own(base)
        .option('--idempotency-key <uuid>', 'operation UUID (canonical lowercase); generated and printed when omitted')
        .option('--actor <uuid>', 'actor UUID'),
    ),
  );
}

/** The write fields every write request carries. */
interface WriteFields {
  readonly idempotency_key: string;
  readonly actor_uuid: string | undefined;
  readonly timeout_ms: number | undefined;
}

/** Runs one write: the key (generated when absent, announced only after success), one dispatched call, the receipt printed. */
async function runWrite(io: CliIo, opts: MutateOpts, op: 'checkpoints.create' | 'checkpoints.delete', send: (s: CliSession, write: WriteFields) => Promise<ArrowResult>): Promise<void> {
  const e = await cliEngine();
  const format = formatOf(opts);
  const timeout_ms = intOption(opts.timeoutMs, 'timeout_ms');
  const write: WriteFields = { idempotency_key: idempotencyKey(io, opts.idempotencyKey), actor_uuid: opts.actor, timeout_ms };
  const receipt = await e.withProject(opts.project, (s) => send(s, write));
  announceKey(io, opts.idempotencyKey, write.idempotency_key);
  e.writeArrowResult(io, format, receipt, op, undefined, { single: true, text: receiptLine });
}

/**
 * Runs one read command against an open view (never a shell):
 * `participants` | `records CAP/FAMILY [--limit N] [--after T]` | `record CAP/FAMILY VALUE…`
 * (one value per identity field, in the family's identity order).
 */
async function runRead(e: CliEngine, io: CliIo, format: OutputFormat, session: CliSession, view: string, words: readonly string[]): Promise<void> {
  const [verb, ...rest] = words;
  const usage = (): never => {
    throw new GfError('GF_VALIDATION', 'read command: participants | records CAP/FAMILY [--limit N] [--after T] | record CAP/FAMILY VALUE...', {});
  };
  const { participants } = await session.callRaw('view.participants', { view });
  if (verb === 'participants' && rest.length === 0) {
    e.writeJsonResult(io, format, { participants }, (v) => v.participants.map((r) => `${r.capability_id}/${r.record_family_id}\t${r.row_count} rows\t${r.content_sha256}\n`).join(''));
    return;
  }
  if ((verb !== 'records' && verb !== 'record') || rest[0] === undefined) return usage();
  const key = rest[0];
  const participant = participants.find((p) => `${p.capability_id}/${p.record_family_id}` === key && p.scope !== null);
  if (participant === undefined) throw new GfError('GF_VALIDATION', 'not a registered record family of this checkpoint (expected CAP/FAMILY)', { length: key.length });
  const family = { capability_id: participant.capability_id, record_family_id: participant.record_family_id };
  if (verb === 'records') {
    let limit: number | undefined;
    let after: string | undefined;
    for (let i = 1; i < rest.length; i += 2) {
      const flag = rest[i];
      const value = rest[i + 1];
      if (value === undefined) return usage();
      if (flag === '--limit') limit = intOption(value, 'limit');
      else if (flag === '--after') after = value;
      else return usage();
    }
    writeRecords(e, io, format, await session.callRaw('view.records', { view, ...family, limit, after }));
    return;
  }
  const values = rest.slice(1);
  if (values.length !== participant.identity_fields.length) return usage();
  const identity = Object.fromEntries(participant.identity_fields.map((f, i) => [f, values[i] as string]));
  writeRecords(e, io, format, await session.callRaw('view.record', { view, ...family, identity }));
}

/** Records of a view: `--json` prints `{"records","next_page_token"}`, the default one JSON line per record. */
function writeRecords(e: CliEngine, io: CliIo, format: OutputFormat, page: ArrowResult): void {
  if (format === 'arrow' || format === 'csv') {
    e.writeArrowResult(io, format, page, 'view.records');
    return;
  }
  const { rows } = e.resultRows(page, 'view.records');
  if (format === 'json') io.stdout(`${JSON.stringify({ records: rows, next_page_token: page.next_page_token })}\n`);
  else {
    for (const r of rows) io.stdout(`${JSON.stringify(r)}\n`);
    if (page.next_page_token !== null) io.stderr(`next page: --after ${page.next_page_token}\n`);
  }
}

/** `gf checkpoint create|list|show|open|delete` (ADR-0014; diff and revert register their own subcommands). */
export function registerCheckpointCommands(program: Command, io: CliIo): void {
  const group = program.command('checkpoint').description('named checkpoints: durable names for generations');

  writeCommand(group, 'create', 'name the current generation', (c) => c.option('--description <text>', 'description (at most 1,024 UTF-8 bytes)')).action(async (name: string, opts: MutateOpts) => {
    await runWrite(io, opts, 'checkpoints.create', (s, write) => withValidationProgress(io, 'checkpoint', () => s.call('checkpoints.create', { name, description: opts.description, ...write })));
  });

  writeCommand(group, 'delete', 'delete a checkpoint name (its generation stays until ordinary retention)').action(async (name: string, opts: MutateOpts) => {
    await runWrite(io, opts, 'checkpoints.delete', (s, write) => s.call('checkpoints.delete', { name, ...write }));
  });

  withOutputOptions(
    group
      .command('list')
      .description('active checkpoints sorted by (name, checkpoint_uuid)')
      .addOption(projectOption())
      .option('--limit <n>', 'page size 1–10000 (default 100)')
      .option('--after <token>', 'next-page token from a previous page')
      .option('--deleted', 'list deleted checkpoints instead (checkpoint_tombstone@1, deletion order)'),
  ).action(async (opts: ListOpts) => {
    const e = await cliEngine();
    const format = formatOf(opts);
    const limit = intOption(opts.limit, 'limit');
    const page = await e.withProject(opts.project, (s) => s.call('checkpoints.list', { limit, after: opts.after, ...(opts.deleted === true ? { deleted: true } : {}) }));
    // One encoding for every format: --json prints { "rows", "next_page_token" } with the schema's field names in
    // schema order, UUIDs as text and timestamps as ISO-8601 UTC with microseconds.
    e.writeArrowResult(io, format, page, 'checkpoints.list');
  });

  withOutputOptions(
    group
      .command('show')
      .description('one active checkpoint by name (show_checkpoint)')
      .argument('<name>', 'checkpoint name')
      .addOption(projectOption()),
  ).action(async (name: string, opts: CommonOpts) => {
    const e = await cliEngine();
    const format = formatOf(opts);
    const one = await e.withProject(opts.project, (s) => s.call('checkpoints.show', { name }));
    e.writeArrowResult(io, format, one, 'checkpoints.show', undefined, { single: true });
  });

  withOutputOptions(
    group
      .command('open')
      .description('run one read command against a read-only view: open NAME -- participants | records CAP/FAMILY | record CAP/FAMILY VALUE...')
      .argument('<name>', 'checkpoint name')
      .argument('[read...]', 'the read command, after --')
      .addOption(projectOption()),
  ).action(async (name: string, read: readonly string[], opts: CommonOpts) => {
    const e = await cliEngine();
    await e.withProject(opts.project, async (s) => {
      const opened = await s.call('view.open', { name });
      try {
        if (read.length === 0) {
          e.writeJsonResult(io, formatOf(opts), { checkpoint_uuid: opened.checkpoint_uuid, name, generation_uuid: opened.generation_uuid, manifest_sha256: opened.manifest_sha256 }, (v) => `${JSON.stringify(v)}\n`);
          return;
        }
        await runRead(e, io, formatOf(opts), s, opened.view, read);
      } finally {
        await s.callRaw('view.close', { view: opened.view });
      }
    });
  });
}
