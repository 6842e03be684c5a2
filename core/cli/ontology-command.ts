// `gf ontology adopt FILE --mode advisory|strict`, `gf ontology clear`,
// `gf ontology show` and `gf config show`: parse, dispatch the workspace.*
// operations in-process, format. No engine import here (lazy engine only).
import { readUserFileOrRefuse } from './user-file';
import { extname } from 'node:path';
import type { Command } from 'commander';
import { GfError } from '../errors';
import { ADOPT_MODES, ONTOLOGY_INPUT_LIMITS } from '../contract/workspace';
import { idempotencyKey, intOption, timeoutOption } from './checkpoint-command';
import type { CliIo } from './io';
import { actorOption, resolveActor } from './actor-option';
import { formatOf, withOutputOptions, type OutputFlags } from './output-options';
import type { CellsOf } from './output';
import { cliEngine } from './lazy-engine';
import { projectOption } from './project-option';

interface WriteOpts extends OutputFlags {
  readonly project: string;
  readonly mode?: string;
  readonly format?: string;
  readonly idempotencyKey?: string;
  readonly actor?: string;
  readonly timeoutMs?: string;
}

/** The people-facing line of an ontology receipt. */
const receiptLine = (rows: readonly CellsOf<'workspace.adopt_ontology'>[]): string =>
  rows.map((r) => `${String(r.operation)} mode=${String(r.mode)} generation=${String(r.result_generation_uuid)} parent=${String(r.prior_current_generation_uuid)}\n`).join('');

/** The people-facing text of `gf ontology show`: the mode and counts first, identities after. */
const ontologyText = (rows: readonly CellsOf<'workspace.ontology'>[]): string =>
  rows
    .map((r) =>
      r.mode === 'none'
        ? `no ontology adopted (mode none)\ngeneration ${String(r.generation_uuid)}\n`
        : `ontology: ${String(r.class_count)} classes, ${String(r.relation_count)} relations, mode ${String(r.mode)} (from ${String(r.source_format)})\nsha256 ${String(r.canonical_ontology_sha256)}\ngeneration ${String(r.generation_uuid)}\n`,
    )
    .join('');

const configText = (rows: readonly CellsOf<'workspace.configuration'>[]): string =>
  rows
    .map((r) => `ontology mode ${String(r.ontology_mode)}\ncapabilities ${String(r.capability_configuration)}\nembedding ${String(r.embedding_configuration)}\ngeneration ${String(r.generation_uuid)}\n`)
    .join('');

/** The input format: `--format`, else the file's extension (.yaml/.yml/.json). */
function sourceFormat(file: string, given: string | undefined): 'yaml' | 'json' {
  const f = given ?? ({ '.yaml': 'yaml', '.yml': 'yaml', '.json': 'json' } as Record<string, string>)[extname(file).toLowerCase()];
  if (f !== 'yaml' && f !== 'json') throw new GfError('GF_VALIDATION', 'say the input format with --format yaml|json (or use a .yaml, .yml or .json file)', { field: 'source_format' }, false);
  return f;
}

/** Reads the input file, bounded (never more than the engine's limit plus one byte). */
function readSource(file: string): string {
  const bytes = readUserFileOrRefuse(file, { what: 'ontology file', maxBytes: ONTOLOGY_INPUT_LIMITS.bytes, rule: 'workspace.ontology.input_limit', field: 'source' });
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (_e) {
    throw new GfError('GF_VALIDATION', 'the ontology file is not valid UTF-8 text', { field: 'source', rule: 'workspace.ontology.input_syntax' }, false);
  }
}

/** Registrar: `gf ontology adopt|clear|show` and `gf config show`. */
export function registerOntologyCommands(program: Command, io: CliIo): void {
  const ontology = program.command('ontology').description('the adopted ontology of the workspace (a new generation on every change)');
  withOutputOptions(
    timeoutOption(
      ontology
        .command('adopt')
        .description('adopt an ontology file (YAML or JSON) as the workspace ontology: publishes one generation')
        .argument('<file>', 'ontology file (.yaml, .yml or .json)')
        .addOption(projectOption())
        .option('--mode <mode>', `enforcement: ${ADOPT_MODES.join(' or ')}`)
        .option('--format <format>', 'input format yaml|json (default: from the file extension)')
        .option('--idempotency-key <uuid>', 'operation UUID (canonical lowercase); generated and printed when omitted')
        .addOption(actorOption()),
    ),
  ).action(async (file: string, opts: WriteOpts, cmd: Command) => {
    if (opts.mode === undefined) cmd.error("error: required option '--mode <mode>' not specified", { exitCode: 2, code: 'commander.missingMandatoryOptionValue' });
    const format = sourceFormat(file, opts.format);
    const source = readSource(file);
    const timeout_ms = intOption(opts.timeoutMs, 'timeout_ms');
    const key = idempotencyKey(io, opts.idempotencyKey);
    const e = await cliEngine();
    const receipt = await e.withProject(opts.project, async (s) =>
      s.call('workspace.adopt_ontology', { source, source_format: format, mode: opts.mode as 'advisory', idempotency_key: key, actor_uuid: await resolveActor(s.callRaw, opts.actor), timeout_ms }),
    );
    e.writeArrowResult(io, formatOf(opts), receipt, 'workspace.adopt_ontology', undefined, { single: true, text: receiptLine });
  });
  withOutputOptions(
    timeoutOption(
      ontology
        .command('clear')
        .description('clear the adopted ontology (mode none): publishes one generation')
        .addOption(projectOption())
        .option('--idempotency-key <uuid>', 'operation UUID (canonical lowercase); generated and printed when omitted')
        .addOption(actorOption()),
    ),
  ).action(async (opts: WriteOpts) => {
    const timeout_ms = intOption(opts.timeoutMs, 'timeout_ms');
    const key = idempotencyKey(io, opts.idempotencyKey);
    const e = await cliEngine();
    const receipt = await e.withProject(opts.project, async (s) => s.call('workspace.clear_ontology', { idempotency_key: key, actor_uuid: await resolveActor(s.callRaw, opts.actor), timeout_ms }));
    e.writeArrowResult(io, formatOf(opts), receipt, 'workspace.clear_ontology', undefined, { single: true, text: receiptLine });
  });
  withOutputOptions(ontology.command('show').description('the adopted ontology of CURRENT').addOption(projectOption())).action(async (opts: WriteOpts) => {
    const e = await cliEngine();
    const result = await e.withProject(opts.project, (s) => s.call('workspace.ontology', {}));
    e.writeArrowResult(io, formatOf(opts), result, 'workspace.ontology', undefined, { single: true, text: ontologyText });
  });
  const config = program.command('config').description('the workspace configuration (engine-recognized settings only)');
  withOutputOptions(config.command('show').description('the configuration of CURRENT').addOption(projectOption())).action(async (opts: WriteOpts) => {
    const e = await cliEngine();
    const result = await e.withProject(opts.project, (s) => s.call('workspace.configuration', {}));
    e.writeArrowResult(io, formatOf(opts), result, 'workspace.configuration', undefined, { single: true, text: configText });
  });
}
