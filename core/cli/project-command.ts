import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { DEMO_DEFAULT_RECORDS, DEMO_DEFAULT_SEED } from '../demo/defaults';
import { GfError } from '../errors';
import type { ParticipantChange, registryCatalog as RegistryCatalog } from '../project/index';
import type { CliIo } from './io';
import { projectOption } from './project-option';

function collect(value: string, previous: readonly string[]): string[] {
  return [...previous, value];
}

const FAMILY_RE = /^([a-z][a-z0-9_]{0,63})\/([a-z][a-z0-9_]{0,63})$/;

function familyRef(registryCatalog: typeof RegistryCatalog, text: string): { capabilityId: string; recordFamilyId: string } {
  const m = FAMILY_RE.exec(text);
  if (m === null || registryCatalog.family(m[1] as string, m[2] as string) === undefined) {
    // The family text is caller input: reported by length only.
    throw new GfError('GF_VALIDATION', 'not a registered record family (expected CAPABILITY/FAMILY)', { length: text.length });
  }
  return { capabilityId: m[1] as string, recordFamilyId: m[2] as string };
}

function readParticipant(file: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(file));
  } catch {
    throw new GfError('GF_IO', 'cannot read the participant file', {}, false);
  }
}

interface PublishOpts {
  readonly project: string;
  readonly family: readonly string[];
  readonly file: readonly string[];
  readonly remove: readonly string[];
  readonly timeoutMs?: string;
}

/**
 * `gf publish`: publishes one generation from CURRENT plus changed participants.
 *
 * `--family CAP/FAMILY --file PATH` pairs (repeatable) add or replace
 * families, `--remove CAP/FAMILY` drops one. Unchanged participants are
 * referenced, not copied. Prints the new generation as JSON; a failure
 * prints its code and `committed`.
 */
export function registerProjectCommands(program: Command, io: CliIo): void {
  registerDemoCommands(program, io);
  program
    .command('publish')
    .description('publish a new generation: CURRENT plus added, replaced or removed participants')
    .addOption(projectOption())
    .option('--family <cap/family>', 'record family of the following --file (repeatable)', collect, [])
    .option('--file <path>', 'participant bytes (Arrow IPC file or canonical JSON document) (repeatable)', collect, [])
    .option('--remove <cap/family>', 'remove a record family (repeatable)', collect, [])
    .option('--timeout-ms <ms>', 'wait this long for a busy writer lock (default: fail at once)')
    .action(async (opts: PublishOpts) => {
      if (opts.family.length !== opts.file.length) {
        throw new GfError('GF_VALIDATION', 'every --family needs exactly one --file', { families: opts.family.length, files: opts.file.length }, false);
      }
      if (opts.family.length + opts.remove.length === 0) {
        throw new GfError('GF_VALIDATION', 'nothing to publish (give --family/--file or --remove)', {}, false);
      }
      // The engine loads when a publish runs, not for `gf --help`.
      const [{ openCheckpointedProject }, { registryCatalog }] = await Promise.all([import('../checkpoints/checkpoints'), import('../project/index')]);
      const changes: ParticipantChange[] = [
        ...opts.family.map((f, i) => ({ kind: 'put' as const, ...familyRef(registryCatalog, f), bytes: readParticipant(opts.file[i] as string) })),
        ...opts.remove.map((f) => ({ kind: 'remove' as const, ...familyRef(registryCatalog, f) })),
      ];
      const timeoutMs = opts.timeoutMs === undefined ? 0 : Number(opts.timeoutMs);
      if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0) {
        throw new GfError('GF_VALIDATION', '--timeout-ms must be a non-negative integer', {}, false);
      }
      // Opened with the checkpoint registry's pins: every publish runs cleanup, which must keep checkpointed generations.
      const project = await openCheckpointedProject(opts.project);
      const r = await project.withWriter((w) => w.publish({ parent: w.current()?.generationUuid ?? null, changes }), { timeoutMs });
      io.stdout(
        `${JSON.stringify({
          generation_uuid: r.generationUuid,
          manifest_sha256: r.manifestSha256,
          transaction_uuid: r.transactionUuid,
          parent_generation_uuid: r.parentGenerationUuid,
          removed_generations: r.cleanup.removedGenerations.length,
        })}\n`,
      );
    });
}

function intOption(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const v = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(v)) throw new GfError('GF_VALIDATION', `${name} must be a non-negative integer`, {}, false);
  return v;
}

/**
 * `gf demo create DIR [--records N] [--seed S]`: the deterministic demo research workspace.
 *
 * Same (records, seed) → byte-identical objects and manifests. Prints one
 * JSON line per generation built.
 */
export function registerDemoCommands(program: Command, io: CliIo): void {
  const demo = program.command('demo').description('the demo research workspace');
  demo
    .command('create')
    .description('create the demo workspace (a research knowledge graph with a real history) and langgraph.sqlite beside it (agent threads)')
    .addHelpText('after', '\nAlso writes langgraph.sqlite next to DIR: 12 LangGraph threads of a literature-review pipeline\n(finished, interrupted, failed and retried, restored). Its checkpoint ids are time-based, so that\nfile is not byte-identical across runs (the workspace is). An existing langgraph.sqlite is kept.\n')
    .argument('<dir>', 'new project directory (absent or empty)')
    .option('--records <n>', `graph records (nodes + edges), default ${DEMO_DEFAULT_RECORDS}`)
    .option('--seed <s>', `seed, default ${DEMO_DEFAULT_SEED}`)
    .action(async (dir: string, opts: { records?: string; seed?: string }) => {
      const { createDemoWorkspace } = await import('../demo/index');
      const r = await createDemoWorkspace(dir, {
        records: intOption(opts.records, DEMO_DEFAULT_RECORDS, '--records'),
        seed: intOption(opts.seed, DEMO_DEFAULT_SEED, '--seed'),
      });
      for (const g of r.generations) {
        io.stdout(`${JSON.stringify({ step: g.step, generation_uuid: g.generationUuid, manifest_sha256: g.manifestSha256 })}\n`);
      }
      // Agent threads (issue 17): a real LangGraph run beside the workspace.
      await (await import('../demo/langgraph-demo')).writeLangGraphDemo(dir);
    });
}
