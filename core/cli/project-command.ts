// `gf publish` and `gf demo create`: parse, dispatch `project.publish` /
// `demo.create`, format.
import { readUserFileOrRefuse } from './user-file';
import type { Command } from 'commander';
import { DEMO_DEFAULT_RECORDS, DEMO_DEFAULT_SEED } from '../contract/demo';
import { PARTICIPANT_LIMITS, type DemoCreated, type PublishReceipt } from '../contract/maintenance';
import { GfError } from '../errors';
import type { CliIo } from './io';
import { cliEngine } from './lazy-engine';
import { formatOf, withOutputOptions, type OutputFlags } from './output-options';
import { projectOption } from './project-option';

function collect(value: string, previous: readonly string[]): string[] {
  return [...previous, value];
}

const FAMILY_RE = /^([a-z][a-z0-9_]{0,63})\/([a-z][a-z0-9_]{0,63})$/;

/** `CAPABILITY/FAMILY` (whether it is registered is the operation's check). */
function familyRef(text: string): { capability_id: string; record_family_id: string } {
  const m = FAMILY_RE.exec(text);
  // The family text is caller input: reported by length only.
  if (m === null) throw new GfError('GF_VALIDATION', 'not a registered record family (expected CAPABILITY/FAMILY)', { length: text.length }, false);
  return { capability_id: m[1] as string, record_family_id: m[2] as string };
}

function readParticipant(file: string): string {
  return readUserFileOrRefuse(file, { what: 'participant file', maxBytes: PARTICIPANT_LIMITS.bytes, rule: 'participant.bytes', field: 'file' }).toString('base64');
}

/** A non-negative integer option (`GF_VALIDATION`, committed: false, never echoing the text). */
function intOption(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const v = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(v)) throw new GfError('GF_VALIDATION', `${name} must be a non-negative integer`, {}, false);
  return v;
}

interface PublishOpts extends OutputFlags {
  readonly project: string;
  readonly family: readonly string[];
  readonly file: readonly string[];
  readonly remove: readonly string[];
  readonly timeoutMs?: string;
}

/** The receipt as one JSON line (the default text, kept for scripts). */
const receiptText = (r: PublishReceipt): string => `${JSON.stringify(r)}\n`;

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
  withOutputOptions(
    program
      .command('publish')
      .description('publish a new generation: CURRENT plus added, replaced or removed participants')
      .addOption(projectOption())
      .option('--family <cap/family>', 'record family of the following --file (repeatable)', collect, [])
      .option('--file <path>', 'participant bytes (Arrow IPC file or canonical JSON document) (repeatable)', collect, [])
      .option('--remove <cap/family>', 'remove a record family (repeatable)', collect, [])
      .option('--timeout-ms <ms>', 'wait this long for a busy writer lock (default: fail at once)'),
  ).action(async (opts: PublishOpts) => {
    const format = formatOf(opts);
    if (opts.family.length !== opts.file.length) {
      throw new GfError('GF_VALIDATION', 'every --family needs exactly one --file', { families: opts.family.length, files: opts.file.length }, false);
    }
    if (opts.family.length + opts.remove.length === 0) {
      throw new GfError('GF_VALIDATION', 'nothing to publish (give --family/--file or --remove)', {}, false);
    }
    const timeout_ms = intOption(opts.timeoutMs, '--timeout-ms');
    const changes = [
      ...opts.family.map((f, i) => ({ kind: 'put' as const, ...familyRef(f), bytes_base64: readParticipant(opts.file[i] as string) })),
      ...opts.remove.map((f) => ({ kind: 'remove' as const, ...familyRef(f) })),
    ];
    const e = await cliEngine();
    const receipt = await e.withProject(opts.project, (s) => s.call('project.publish', { changes, timeout_ms }));
    e.writeJsonResult(io, format, receipt, receiptText, (r) => [{ ...r }]);
  });
}

/** One JSON line per generation built (the default text, kept for scripts). */
const demoText = (d: DemoCreated): string => d.generations.map((g) => `${JSON.stringify(g)}\n`).join('');

/**
 * `gf demo create DIR [--records N] [--seed S]`: the deterministic demo research workspace.
 *
 * Same (records, seed) → byte-identical objects and manifests. Prints one
 * JSON line per generation built (`--json`: the whole result as one object).
 */
export function registerDemoCommands(program: Command, io: CliIo): void {
  const demo = program.command('demo').description('the demo research workspace');
  withOutputOptions(
    demo
      .command('create')
      .description('create the demo workspace (a research knowledge graph with a real history) and langgraph.sqlite beside it (agent threads)')
      .addHelpText('after', '\nAlso writes langgraph.sqlite next to DIR: 12 LangGraph threads of a literature-review pipeline\n(finished, interrupted, failed and retried, restored). Its checkpoint ids are time-based, so that\nfile is not byte-identical across runs (the workspace is). An existing langgraph.sqlite is kept.\n')
      .argument('<dir>', 'new project directory (absent or empty)')
      .option('--records <n>', `graph records (nodes + edges), default ${DEMO_DEFAULT_RECORDS}`)
      .option('--seed <s>', `seed, default ${DEMO_DEFAULT_SEED}`),
  ).action(async (dir: string, opts: OutputFlags & { records?: string; seed?: string }) => {
    const format = formatOf(opts);
    const records = intOption(opts.records, '--records');
    const seed = intOption(opts.seed, '--seed');
    const e = await cliEngine();
    const { resolve } = await import('node:path');
    const created = await e.withFacade((call) => call('demo.create', { path: resolve(dir), records, seed }));
    e.writeJsonResult(io, format, created, demoText, (d) => d.generations.map((g) => ({ ...g })));
  });
}
