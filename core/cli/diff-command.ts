// `gf checkpoint diff FROM TO`: parse, dispatch `checkpoints.diff`, format.
import type { Command } from 'commander';
import { DIFF_DETAILS, DIFF_SCOPES, type DiffDetail, type DiffScope } from '../contract/diff';
import { GfError } from '../errors';
import { withDiffProgress } from './diff-progress';
import type { CliIo } from './io';
import { formatOf, withOutputOptions, type OutputFlags } from './output-options';
import { cliEngine } from './lazy-engine';
import { projectOption } from './project-option';

interface DiffOpts extends OutputFlags {
  readonly project: string;
  readonly scope: string;
  readonly detail: string;
  readonly limit?: string;
  readonly after?: string;
  readonly family?: string;
}

function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,6}$/.test(text)) throw new GfError('GF_VALIDATION', 'limit must be an integer from 1 to 10000', { field: 'limit' });
  return Number(text);
}

/** Tab-separated lines with a header (the diff's default text: one line per row, easy to cut and grep). */
const tsv = (names: readonly string[]) => (rows: readonly Readonly<Record<string, string | number | boolean | null>>[]): string =>
  [names.join('\t'), ...rows.map((r) => names.map((n) => (r[n] === null || r[n] === undefined ? '' : String(r[n]))).join('\t'))].join('\n') + '\n';

/**
 * Adds `diff FROM TO` to a `checkpoint` command group.
 *
 * `gf checkpoint diff FROM TO --project DIR [--scope S] [--detail summary|records]
 * [--limit N] [--after TOKEN] [--family ID] [--json|--csv|--arrow]`. FROM and TO are checkpoint
 * names or `CURRENT`. Output: the contract's Arrow records (`--arrow`, IPC
 * stream), JSON (`{"schema","rows","next_page_token"}`), or tab-separated
 * lines; the next-page token goes to stderr in text mode.
 */
export function addDiffSubcommand(group: Command, io: CliIo): void {
  const cmd = group
    .command('diff')
    .description('logical diff between two checkpoints (or CURRENT): summary or record detail, paged')
    .argument('<from>', 'checkpoint name or CURRENT')
    .argument('<to>', 'checkpoint name or CURRENT')
    .addOption(projectOption())
    .option('--scope <scope>', `one of ${DIFF_SCOPES.join(', ')}`, 'all')
    .option('--detail <detail>', `one of ${DIFF_DETAILS.join(', ')}`, 'summary')
    .option('--limit <n>', 'page size 1–10000 (default 100)')
    .option('--after <token>', 'next-page token from a previous page')
    .option('--family <record_family_id>', 'only this record family of the scope (e.g. node); its pages\' tokens are bound to it');
  withOutputOptions(cmd)
    .action(async (from: string, to: string, opts: DiffOpts) => {
      const e = await cliEngine();
      const format = formatOf(opts);
      // Scope and detail are checked by the contract (GF_VALIDATION), like every other request field.
      const request = { from, to, scope: opts.scope as DiffScope, detail: opts.detail as DiffDetail, limit: parseLimit(opts.limit), after: opts.after, record_family_id: opts.family };
      const page = await e.withProject(opts.project, (s) => withDiffProgress(io, () => s.call('checkpoints.diff', request)));
      e.writeArrowResult(io, format, page, 'checkpoints.diff', undefined, {
        jsonSchema: true,
        // The next-page token rides in the schema metadata; the stderr hint stays for people.
        hintWithArrow: true,
        text: (rows, names) => tsv(names)(rows),
      });
    });
}

/**
 * Registrar: adds `diff` to the existing `gf checkpoint` group (registered
 * before this one in `COMMANDS`), or creates the group when it is absent.
 */
export function registerDiffCommand(program: Command, io: CliIo): void {
  const group =
    program.commands.find((c) => c.name() === 'checkpoint') ??
    program.command('checkpoint').description('named checkpoints: durable names for generations');
  addDiffSubcommand(group, io);
}
