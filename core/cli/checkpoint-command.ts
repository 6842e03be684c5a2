import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { GfError } from '../errors';
import type { Checkpoints } from '../checkpoints/checkpoints';
import type { CheckpointReceipt } from '../checkpoints/registry-core';
import type { CellValue } from '../participants/index';
import type { CheckpointView } from '../views/checkpoint-view';
import type { CliIo } from './io';
import { projectOption } from './project-option';

/** The engine modules of these commands, loaded when one runs (so `gf --help` loads none of them). */
async function engine() {
  const [arrow, results, checkpoints, tombstones, participants, project, arrowResult, output] = await Promise.all([
    import('apache-arrow'),
    import('../checkpoints/arrow-results'),
    import('../checkpoints/checkpoints'),
    import('../checkpoints/tombstones'),
    import('../participants/index'),
    import('../project/index'),
    import('../api/arrow-result'),
    import('./output'),
  ]);
  return {
    tableFromIPC: arrow.tableFromIPC,
    ...results,
    Checkpoints: checkpoints.Checkpoints,
    openCheckpointedProject: checkpoints.openCheckpointedProject,
    deletedCheckpointPage: tombstones.deletedCheckpointPage,
    familyByKey: participants.familyByKey,
    recordsFromTable: participants.recordsFromTable,
    manifestEntryJson: project.manifestEntryJson,
    arrowResultFromBytes: arrowResult.arrowResultFromBytes,
    writeTableResult: output.writeTableResult,
  };
}

type Engine = Awaited<ReturnType<typeof engine>>;

interface CommonOpts {
  readonly project: string;
  readonly json?: boolean;
  readonly arrow?: boolean;
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

function jsonSafe(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as unknown;
}

function intOption(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text)) throw new GfError('GF_VALIDATION', `${field} must be a non-negative integer`, { field });
  return Number(text);
}

async function open(opts: CommonOpts & { readonly timeoutMs?: string }): Promise<Checkpoints> {
  const { Checkpoints, openCheckpointedProject } = await engine();
  const project = await openCheckpointedProject(opts.project);
  return new Checkpoints(project, { writerTimeoutMs: intOption(opts.timeoutMs, 'timeout_ms') ?? 0 });
}

async function printReceipt(io: CliIo, opts: CommonOpts, receipt: CheckpointReceipt): Promise<void> {
  const { toIpc, receiptTable } = await engine();
  if (opts.arrow === true) io.stdout(toIpc(receiptTable(receipt)));
  else if (opts.json === true) io.stdout(`${JSON.stringify(receipt)}\n`);
  else io.stdout(`${receipt.operation} ${receipt.name} checkpoint_uuid=${receipt.checkpoint_uuid} generation=${receipt.source_generation_uuid} revision=${receipt.registry_revision}\n`);
}

/** The operation UUID: the caller's, or a fresh one announced on stderr so the command can be replayed. */
function idempotencyKey(io: CliIo, given: string | undefined): string {
  if (given !== undefined) return given;
  const key = randomUUID();
  io.stderr(`idempotency key: ${key} (replay with --idempotency-key ${key})\n`);
  return key;
}

function parseCell(kind: string, text: string): CellValue {
  if (kind === 'int32' || kind === 'uint32') {
    if (!/^-?\d{1,10}$/.test(text)) throw new GfError('GF_VALIDATION', 'identity value must be an integer', {});
    return Number(text);
  }
  if (kind === 'timestamp_us') {
    if (!/^-?\d{1,19}$/.test(text)) throw new GfError('GF_VALIDATION', 'identity value must be integer microseconds', {});
    return BigInt(text);
  }
  if (kind === 'bool') return text === 'true';
  return text;
}

/**
 * Runs one read command against a view (never a shell):
 * `participants` | `records CAP/FAMILY [--limit N] [--after T]` | `record CAP/FAMILY VALUE…`
 * (one value per identity field, in the family's identity order).
 */
function runRead(e: Engine, io: CliIo, opts: CommonOpts, view: CheckpointView, words: readonly string[]): void {
  const { manifestEntryJson, familyByKey, arrowResultFromBytes, recordsFromTable, tableFromIPC } = e;
  const [verb, ...rest] = words;
  const usage = (): never => {
    throw new GfError('GF_VALIDATION', 'read command: participants | records CAP/FAMILY [--limit N] [--after T] | record CAP/FAMILY VALUE...', {});
  };
  if (verb === 'participants' && rest.length === 0) {
    const rows = view.participants.map(manifestEntryJson);
    if (opts.json === true) io.stdout(`${JSON.stringify({ participants: rows })}\n`);
    else for (const r of rows) io.stdout(`${r.capability_id}/${r.record_family_id}\t${r.row_count} rows\t${r.content_sha256}\n`);
    return;
  }
  if ((verb !== 'records' && verb !== 'record') || rest[0] === undefined) return usage();
  const key = rest[0];
  const family = familyByKey(key);
  if (family === undefined) throw new GfError('GF_VALIDATION', 'not a registered record family (expected CAP/FAMILY)', { length: key.length });
  let page;
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
    page = view.readRecords(key, { limit, after });
  } else {
    const values = rest.slice(1);
    if (values.length !== family.identityFields.length) return usage();
    const identity: Record<string, CellValue> = {};
    family.identityFields.forEach((f, i) => {
      identity[f] = parseCell(family.field(f)?.kind ?? 'utf8', values[i] as string);
    });
    page = view.readRecord(key, identity);
  }
  if (opts.arrow === true) {
    // The facade's own encoding: the next-page token rides in the schema metadata (issue 9).
    io.stdout(arrowResultFromBytes(page.bytes, page.next).bytes);
    return;
  }
  const records = recordsFromTable(family, tableFromIPC(page.bytes));
  if (opts.json === true) io.stdout(`${JSON.stringify(jsonSafe({ records, next_page_token: page.next }))}\n`);
  else {
    for (const r of records) io.stdout(`${JSON.stringify(jsonSafe(r))}\n`);
    if (page.next !== null) io.stderr(`next page: --after ${page.next}\n`);
  }
}

/** `gf checkpoint create|list|open|delete` (ADR-0014; diff and revert register their own subcommands). */
export function registerCheckpointCommands(program: Command, io: CliIo): void {
  const group = program.command('checkpoint').description('named checkpoints: durable names for generations');

  group
    .command('create')
    .description('name the current generation')
    .argument('<name>', 'checkpoint name (content, never a path)')
    .addOption(projectOption())
    .option('--description <text>', 'description (at most 1,024 UTF-8 bytes)')
    .option('--idempotency-key <uuid>', 'operation UUID (canonical lowercase); generated and printed when omitted')
    .option('--actor <uuid>', 'actor UUID')
    .option('--timeout-ms <ms>', 'wait this long for a busy writer lock')
    .option('--json', 'JSON output')
    .option('--arrow', 'Arrow IPC stream output (checkpoint_receipt@1)')
    .action(async (name: string, opts: MutateOpts) => {
      const cps = await open(opts);
      const receipt = await cps.checkpoint({ name, description: opts.description, idempotencyKey: idempotencyKey(io, opts.idempotencyKey), actorUuid: opts.actor });
      await printReceipt(io, opts, receipt);
    });

  group
    .command('delete')
    .description('delete a checkpoint name (its generation stays until ordinary retention)')
    .argument('<name>', 'checkpoint name')
    .addOption(projectOption())
    .option('--idempotency-key <uuid>', 'operation UUID; generated and printed when omitted')
    .option('--actor <uuid>', 'actor UUID')
    .option('--timeout-ms <ms>', 'wait this long for a busy writer lock')
    .option('--json', 'JSON output')
    .option('--arrow', 'Arrow IPC stream output (checkpoint_receipt@1)')
    .action(async (name: string, opts: MutateOpts) => {
      const cps = await open(opts);
      await printReceipt(io, opts, await cps.deleteCheckpoint({ name, idempotencyKey: idempotencyKey(io, opts.idempotencyKey), actorUuid: opts.actor }));
    });

  group
    .command('list')
    .description('active checkpoints sorted by (name, checkpoint_uuid)')
    .addOption(projectOption())
    .option('--limit <n>', 'page size 1–10000 (default 100)')
    .option('--after <token>', 'next-page token from a previous page')
    .option('--json', 'JSON output')
    .option('--arrow', 'Arrow IPC stream output (checkpoint@1; next-page token in the schema metadata)')
    .option('--deleted', 'list deleted checkpoints instead (checkpoint_tombstone@1, deletion order; --json prints {"rows","next_page_token"})')
    .action(async (opts: ListOpts) => {
      const cps = await open(opts);
      const { deletedCheckpointPage, writeTableResult, tombstoneTable, checkpointTable } = await engine();
      if (opts.deleted === true) {
        const gone = deletedCheckpointPage(cps.registryState().doc, intOption(opts.limit, 'limit'), opts.after);
        writeTableResult(io, opts.arrow === true ? 'arrow' : opts.json === true ? 'json' : 'table', tombstoneTable(gone.rows), gone.next);
        return;
      }
      const page = cps.listCheckpoints({ limit: intOption(opts.limit, 'limit'), after: opts.after });
      // One encoding for every format (issue 9 synopsis): --json prints { "rows", "next_page_token" } with the
      // checkpoint@1 field names in schema order, UUIDs as text and timestamps as ISO-8601 UTC with microseconds.
      writeTableResult(io, opts.arrow === true ? 'arrow' : opts.json === true ? 'json' : 'table', checkpointTable(page.rows), page.next);
    });

  group
    .command('open')
    .description('run one read command against a read-only view: open NAME -- participants | records CAP/FAMILY | record CAP/FAMILY VALUE...')
    .argument('<name>', 'checkpoint name')
    .argument('[read...]', 'the read command, after --')
    .addOption(projectOption())
    .option('--json', 'JSON output')
    .option('--arrow', 'Arrow IPC stream output for records (next-page token in the schema metadata)')
    .action(async (name: string, read: readonly string[], opts: CommonOpts) => {
      const cps = await open(opts);
      const view = cps.openCheckpoint(name);
      try {
        if (read.length === 0) {
          io.stdout(`${JSON.stringify({ checkpoint_uuid: view.checkpointUuid, name: view.name, generation_uuid: view.generationUuid, manifest_sha256: view.manifestSha256, registry_revision: view.registryRevision })}\n`);
        } else runRead(await engine(), io, opts, view, read);
      } finally {
        view.release();
      }
    });
}
