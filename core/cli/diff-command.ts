// `gf checkpoint diff FROM TO`: parse, dispatch `checkpoints.diff`, format.
import type { Command } from 'commander';
import { DIFF_DETAILS, DIFF_SCOPES, RECORD_CHANGE_KINDS, type DiffDetail, type DiffScope, type DiffStatResult, type RecordChangeKind } from '../contract/diff';
import { diffText, statText } from './diff-table';
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
  readonly wide?: boolean;
  readonly stat?: boolean;
  readonly kind?: string;
  readonly changedField?: string;
  readonly search?: string;
  readonly position?: string;
}

/** Width of the terminal the table is fitted to (`COLUMNS`, else stdout's, else 120). */
function terminalColumns(): number {
  const env = Number(process.env['COLUMNS']);
  if (Number.isInteger(env) && env >= 20) return env;
  return process.stdout.columns !== undefined && process.stdout.columns >= 20 ? process.stdout.columns : 120;
}

function parsePosition(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text)) throw new GfError('GF_VALIDATION', 'position must be a row number from 0', { field: 'position' });
  return Number(text);
}

/**
 * `--family`: a record family id (`node`) or the capability/family form
 * `--stat` and the summary print (`graph/node`).
 */
export function parseFamily(text: string | undefined): { readonly record_family_id?: string; readonly capability_id?: string } {
  if (text === undefined) return {};
  const slash = text.indexOf('/');
  if (slash === -1) return { record_family_id: text };
  const capability = text.slice(0, slash);
  const family = text.slice(slash + 1);
  if (capability === '' || family === '' || family.includes('/')) {
    throw new GfError('GF_VALIDATION', '--family is a record family (node) or capability/family (graph/node)', { field: 'record_family_id' });
  }
  return { capability_id: capability, record_family_id: family };
}

/** A shell word: as it is when plain, else single-quoted. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that prints the next page of a family's display page
 * (`--position` of its next row): a short line to copy, where the next-page
 * token is hundreds of characters.
 */
export function continueCommand(from: string, to: string, opts: Pick<DiffOpts, 'project' | 'scope' | 'family' | 'limit' | 'kind' | 'changedField' | 'search' | 'wide'>, nextRow: number): string {
  const words = ['gf', 'checkpoint', 'diff', from, to, '--project', opts.project];
  if (opts.scope !== 'all') words.push('--scope', opts.scope);
  if (opts.family !== undefined) words.push('--family', opts.family);
  if (opts.kind !== undefined) words.push('--kind', opts.kind);
  if (opts.changedField !== undefined) words.push('--changed-field', opts.changedField);
  if (opts.search !== undefined) words.push('--search', opts.search);
  if (opts.limit !== undefined) words.push('--limit', opts.limit);
  if (opts.wide === true) words.push('--wide');
  words.push('--position', String(nextRow));
  return words.map(shellWord).join(' ');
}

function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,6}$/.test(text)) throw new GfError('GF_VALIDATION', 'limit must be an integer from 1 to 10000', { field: 'limit' });
  return Number(text);
}


/**
 * Adds `diff FROM TO` to a `checkpoint` command group.
 *
 * `gf checkpoint diff FROM TO --project DIR [--scope S] [--detail summary|records]
 * [--limit N] [--after TOKEN] [--family ID] [--kind K,..] [--changed-field F]
 * [--search TEXT] [--position N] [--wide] [--stat] [--json|--csv|--arrow]`.
 * FROM and TO are checkpoint names or `CURRENT`. The default text is a table
 * fitted to the terminal: a record diff of one family (`--family`) shows the
 * change, the family's display fields, the changed fields and
 * middle-truncated ids, then "rows X–Y of N"; `--wide` prints every column.
 * `--json`/`--csv`/`--arrow` print the contract's rows as before (display
 * columns only when a filter, search or position asks for display pages).
 * `--stat` prints per-family counts like `git diff --stat` (`--json`: the
 * `checkpoints.diff_stat` result). The next-page token goes to stderr.
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
    .option('--family <record_family_id>', 'only this record family of the scope (e.g. node); its pages\' tokens are bound to it')
    .option('--kind <kinds>', `only these change kinds, comma-separated (${RECORD_CHANGE_KINDS.join(', ')}); needs --family`)
    .option('--changed-field <field>', 'only modified records in which this field changed; needs --family')
    .option('--search <text>', 'record-id prefix or display-text substring; needs --family')
    .option('--position <n>', 'jump: the page starting at this 0-based row; needs --family')
    .option('--wide', 'every column, untruncated (fingerprints included)')
    .option('--stat', 'per-family counts of added, removed and modified records and changed cells per field');
  withOutputOptions(cmd)
    .action(async (from: string, to: string, opts: DiffOpts, command: Command) => {
      const e = await cliEngine();
      const format = formatOf(opts);
      const family = parseFamily(opts.family);
      if (opts.stat === true) {
        const request = { from, to, scope: opts.scope as DiffScope, ...family };
        const stat = (await e.withProject(opts.project, (s) => withDiffProgress(io, () => s.call('checkpoints.diff_stat', request)))) as DiffStatResult;
        e.writeJsonResult(io, format, stat, (v) => statText(v, terminalColumns()));
        return;
      }
      const filters = ([['kind', opts.kind], ['changed-field', opts.changedField], ['search', opts.search], ['position', opts.position]] as const).filter(([, v]) => v !== undefined).map(([k]) => `--${k}`);
      const filtered = filters.length > 0;
      if (filtered && opts.family === undefined) {
        throw new GfError('GF_VALIDATION', `${filters.join(', ')} ${filters.length === 1 ? 'needs' : 'need'} --family (one record family, e.g. --family graph/node)`, { field: 'record_family_id' });
      }
      // A family's diff is its records: --family alone implies --detail records (an explicit --detail summary with a filter says what is missing).
      const detailGiven = command.getOptionValueSource('detail') !== 'default';
      const detail = (opts.family !== undefined && !detailGiven ? 'records' : opts.detail) as DiffDetail;
      if (filtered && detail !== 'records') {
        throw new GfError('GF_VALIDATION', `${filters.join(', ')} ${filters.length === 1 ? 'needs' : 'need'} --detail records (or leave --detail out: --family implies it)`, { field: 'detail' });
      }
      // Display pages for people (a table of one family), and whenever a filter asks for them; the machine formats stay as they were.
      const display = filtered || (format === 'table' && detail === 'records' && opts.family !== undefined);
      // Scope and detail are checked by the contract (GF_VALIDATION), like every other request field.
      const request = {
        from,
        to,
        scope: opts.scope as DiffScope,
        detail,
        limit: parseLimit(opts.limit),
        after: opts.after,
        ...family,
        ...(display ? { display: true } : {}),
        ...(opts.kind === undefined ? {} : { change_kinds: opts.kind.split(',').map((k) => k.trim() as RecordChangeKind) }),
        ...(opts.changedField === undefined ? {} : { changed_field: opts.changedField }),
        ...(opts.search === undefined ? {} : { search: opts.search }),
        ...(opts.position === undefined ? {} : { position: parsePosition(opts.position) }),
      };
      // The people-facing summary shows each family's added, removed and modified records (the exact statistics).
      const withCounts = format === 'table' && detail === 'summary' && opts.wide !== true;
      const [page, stat] = await e.withProject(opts.project, (s) =>
        withDiffProgress(io, async () => [
          await s.call('checkpoints.diff', request),
          withCounts ? ((await s.call('checkpoints.diff_stat', { from, to, scope: opts.scope as DiffScope, ...family })) as DiffStatResult) : null,
        ] as const),
      );
      e.writeArrowResult(io, format, page, 'checkpoints.diff', undefined, {
        jsonSchema: true,
        // The next-page token rides in the schema metadata; the stderr hint stays for people.
        hintWithArrow: true,
        text: (rows, names) => diffText(rows, names, terminalColumns(), opts.wide === true, stat),
        // A display page continues by row number: print the command (the token is hundreds of characters).
        ...(display && format === 'table'
          ? { nextHint: (rows: readonly Readonly<Record<string, unknown>>[]) => {
            const last = Number(rows[rows.length - 1]?.['row_number'] ?? 0);
            return `more rows: ${continueCommand(from, to, opts, last)}`;
          } }
          : {}),
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
