import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { GfError } from '../errors';
import type { CliIo } from './io';
import { projectOption } from './project-option';

interface RevertOpts {
  readonly project: string;
  readonly reason: string;
  readonly idempotencyKey?: string;
  readonly actor?: string;
  readonly timeoutMs?: string;
  readonly json?: boolean;
  readonly arrow?: boolean;
}

function timeout(text: string | undefined): number {
  if (text === undefined) return 0;
  if (!/^\d{1,9}$/.test(text)) throw new GfError('GF_VALIDATION', 'timeout_ms must be a non-negative integer', { field: 'timeout_ms' });
  return Number(text);
}

/**
 * Adds `revert NAME --reason TEXT` to a `checkpoint` command group.
 *
 * `gf checkpoint revert NAME --project DIR --reason TEXT [--idempotency-key UUID]
 * [--actor UUID] [--timeout-ms MS] [--json|--arrow]`. Publishes a new
 * generation restoring the checkpoint; no interactive prompt (the reason is
 * the confirmation). Without a key one is generated and printed on stderr so
 * the command can be replayed safely after a crash or timeout.
 */
export function addRevertSubcommand(group: Command, io: CliIo): void {
  group
    .command('revert')
    .description('restore a checkpoint as a new generation (history is kept; CURRENT moves forward)')
    .argument('<name>', 'checkpoint name')
    .addOption(projectOption())
    .requiredOption('--reason <text>', 'why (1–1,024 UTF-8 bytes after trimming; stored with the restoration record)')
    .option('--idempotency-key <uuid>', 'operation UUID (canonical lowercase); generated and printed when omitted')
    .option('--actor <uuid>', 'actor UUID')
    .option('--timeout-ms <ms>', 'wait this long for a busy writer lock')
    .option('--json', 'JSON output (checkpoint_receipt@1 row)')
    .option('--arrow', 'Arrow IPC stream output (checkpoint_receipt@1)')
    .action(async (name: string, opts: RevertOpts) => {
      const writerTimeoutMs = timeout(opts.timeoutMs);
      let key = opts.idempotencyKey;
      if (key === undefined) {
        key = randomUUID();
        io.stderr(`idempotency key: ${key} (replay with --idempotency-key ${key})\n`);
      }
      // The engine loads when a revert runs, not for `gf --help`.
      const [{ receiptTable, toIpc }, { openCheckpointedProject }, { RevertEngine }] = await Promise.all([
        import('../checkpoints/arrow-results'),
        import('../checkpoints/checkpoints'),
        import('../revert/index'),
      ]);
      const engine = new RevertEngine(await openCheckpointedProject(opts.project), { writerTimeoutMs });
      const receipt = await engine.revertToCheckpoint({ name, reason: opts.reason, idempotencyKey: key, actorUuid: opts.actor });
      if (opts.arrow === true) io.stdout(toIpc(receiptTable(receipt)));
      else if (opts.json === true) io.stdout(`${JSON.stringify(receipt)}\n`);
      else io.stdout(`revert_to_checkpoint ${receipt.name} checkpoint_uuid=${receipt.checkpoint_uuid} generation=${receipt.result_generation_uuid} parent=${receipt.prior_current_generation_uuid}\n`);
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
