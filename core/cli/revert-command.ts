// `gf checkpoint revert NAME --reason TEXT` and `gf checkpoint revert NAME --preview`:
// parse, dispatch `checkpoints.revert` / `revert.preview`, format.
import type { Command } from 'commander';
import { GfError } from '../errors';
import type { JsonResults } from '../contract/operations';
import { announceKey, idempotencyKey, intOption, timeoutOption } from './checkpoint-command';
import type { CliIo } from './io';
import { formatOf, withOutputOptions, type OutputFlags } from './output-options';
import type { CellsOf } from './output';
import { cliEngine } from './lazy-engine';
import { projectOption } from './project-option';
import { withValidationProgress } from './validation-progress';

interface RevertOpts extends OutputFlags {
  readonly project: string;
  readonly reason?: string;
  readonly preview?: boolean;
  readonly idempotencyKey?: string;
  readonly actor?: string;
  readonly timeoutMs?: string;
}

/** The people-facing lines of a revert receipt: the receipt, then the reason as history stores it. */
const revertLines = (reason: string | null) => (rows: readonly CellsOf<'checkpoints.revert'>[]): string =>
  rows
    .map(
      (r) =>
        `revert_to_checkpoint ${String(r.name)} checkpoint_uuid=${String(r.checkpoint_uuid)} generation=${String(r.result_generation_uuid)} parent=${String(r.prior_current_generation_uuid)}\n` +
        (reason === null ? '' : `reason: ${reason}\n`),
    )
    .join('');

/** The people-facing text of a revert preview: what would change, participant by participant. */
function previewText(p: JsonResults['revert.preview']): string {
  const c = p.participant_changes;
  const lines = [
    `revert preview: CURRENT ${p.current_generation_uuid} would be followed by a copy of ${p.source_generation_uuid}`,
    `participants: ${c.added} added, ${c.removed} removed, ${c.modified} modified, ${c.unchanged} unchanged`,
    ...p.changes.filter((x) => x.change_kind !== 'unchanged').map((x) => `  ${x.change_kind}\t${x.capability_id}/${x.record_family_id}\t${x.from_row_count ?? 0} → ${x.to_row_count ?? 0} rows`),
    ...(p.same_content ? ["same content: the checkpoint's records already equal CURRENT's; the revert still publishes a generation, which differs from CURRENT only by its restoration record"] : []),
    `retention keeps ${p.retain_ancestors} ${p.retain_ancestors === 1 ? 'ancestor' : 'ancestors'} of CURRENT, plus checkpoints and leases`,
    p.prunable.length === 0
      ? 'no generation becomes prunable'
      : `becomes prunable (no checkpoint names ${p.prunable.length === 1 ? 'it' : 'them'}; create one on it first to keep it):`,
    ...p.prunable.map((g) => `  ${g.generation_uuid}${g.published_at === null ? '' : `\t${g.published_at}`}${g.kind === null ? '' : `\t${g.kind}`}${g.reason === null ? '' : `\t${g.reason}`}`),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Adds `revert NAME` to a `checkpoint` command group.
 *
 * `gf checkpoint revert NAME --project DIR --reason TEXT [--idempotency-key UUID]
 * [--actor UUID] [--timeout-ms MS] [--json|--csv|--arrow]` publishes a new
 * generation restoring the checkpoint; no interactive prompt (the reason is
 * the confirmation). Without a key one is generated and printed on stderr so
 * the command can be replayed safely after a crash or timeout.
 * `gf checkpoint revert NAME --preview` (preview_revert_to_checkpoint) shows
 * what a revert would change and writes nothing.
 */
export function addRevertSubcommand(group: Command, io: CliIo): void {
  withOutputOptions(
    timeoutOption(
      group
        .command('revert')
        .description('restore a checkpoint as a new generation (history is kept; CURRENT moves forward); --preview only shows what would change')
        .argument('<name>', 'checkpoint name')
        .addOption(projectOption())
        .option('--reason <text>', 'why (1–1,024 UTF-8 bytes after trimming; stored with the restoration record); required unless --preview')
        .option('--preview', 'show what the revert would change, write nothing (preview_revert_to_checkpoint)')
        .option('--idempotency-key <uuid>', 'operation UUID (canonical lowercase); generated and printed when omitted')
        .option('--actor <uuid>', 'actor UUID'),
    ),
  ).action(async (name: string, opts: RevertOpts, cmd: Command) => {
    const e = await cliEngine();
    const format = formatOf(opts);
    if (opts.preview === true) {
      if (opts.reason !== undefined || opts.idempotencyKey !== undefined) throw new GfError('GF_VALIDATION', '--preview writes nothing: it takes no --reason or --idempotency-key', { flags: ['preview'] });
      const preview = await e.withProject(opts.project, (s) => s.call('revert.preview', { name }));
      e.writeJsonResult(io, format, preview, previewText);
      return;
    }
    if (opts.reason === undefined) cmd.error("error: required option '--reason <text>' not specified", { exitCode: 2, code: 'commander.missingMandatoryOptionValue' });
    const timeout_ms = intOption(opts.timeoutMs, 'timeout_ms');
    const key = idempotencyKey(io, opts.idempotencyKey);
    const { receipt, reason } = await e.withProject(opts.project, async (s) => {
      const r = await withValidationProgress(io, 'revert', () =>
        s.call('checkpoints.revert', {
          name,
          reason: opts.reason ?? '',
          idempotency_key: key,
          actor_uuid: opts.actor,
          timeout_ms,
        }),
      );
      // The reason as history keeps it (trimmed), from the lineage record of the generation just published.
      const generation = e.resultRows(r, 'checkpoints.revert').rows[0]?.result_generation_uuid;
      // A read after the committed write: if it fails, the revert still succeeded, so the receipt prints without the reason line.
      let stored: string | null = null;
      try {
        if (typeof generation === 'string') stored = (await s.call('history.list', { generation_uuid: generation, limit: 1 })).entries[0]?.reason ?? null;
      } catch {
        stored = null;
      }
      return { receipt: r, reason: stored };
    });
    announceKey(io, opts.idempotencyKey, key);
    e.writeArrowResult(io, format, receipt, 'checkpoints.revert', undefined, { single: true, text: revertLines(reason) });
  });
}

/**
 * Registrar: adds `revert` to the existing `gf checkpoint` group (registered
 * before this one in `COMMANDS`), or creates the group when it is absent.
 */
export function registerRevertCommand(program: Command, io: CliIo): void {
  const group =
    program.commands.find((c) => c.name() === 'checkpoint') ??
    program.command('checkpoint').description('named checkpoints: durable names for generations');
  addRevertSubcommand(group, io);
}
