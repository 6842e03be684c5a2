import type { Table } from 'apache-arrow';
import type { Command } from 'commander';
import { toHex } from '../canonical/index';
import { Checkpoints, openCheckpointedProject } from '../checkpoints/checkpoints';
import { DIFF_DETAILS, DIFF_SCOPES, diffProjectCheckpoints } from '../diff/index';
import { GfError } from '../errors';
import { withDiffProgress } from './diff-progress';
import type { CliIo } from './io';
import { writeTableResult } from './output';
import { projectOption } from './project-option';
import { tokenSecretInMemory } from '../diff/token-secret';

interface DiffOpts {
  readonly project: string;
  readonly scope: string;
  readonly detail: string;
  readonly limit?: string;
  readonly after?: string;
  readonly family?: string;
  readonly json?: boolean;
  readonly arrow?: boolean;
}

function cell(v: unknown): unknown {
  if (v instanceof Uint8Array) return toHex(v);
  if (typeof v === 'bigint') return Number(v);
  return v;
}

/** Plain rows of a result table: binary cells as lowercase hex, counts as numbers. */
function plainRows(t: Table): Record<string, unknown>[] {
  const names = t.schema.fields.map((f) => f.name);
  return t.toArray().map((r) => {
    const o = r.toJSON() as Record<string, unknown>;
    return Object.fromEntries(names.map((n) => [n, cell(o[n] ?? null)]));
  });
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
 * [--limit N] [--after TOKEN] [--family ID] [--json|--arrow]`. FROM and TO are checkpoint
 * names or `CURRENT`. Output: the contract's Arrow records (`--arrow`, IPC
 * stream), JSON (`{"schema","rows","next_page_token"}`), or tab-separated
 * lines; the next-page token goes to stderr in text mode.
 */
export function addDiffSubcommand(group: Command, io: CliIo): void {
  group
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
    .option('--json', 'JSON output')
    .option('--arrow', 'Arrow IPC stream output (checkpoint_summary_diff@1 or checkpoint_record_diff@1; next-page token in the schema metadata)')
    .action(async (from: string, to: string, opts: DiffOpts) => {
      const cps = new Checkpoints(await openCheckpointedProject(opts.project));
      const page = await withDiffProgress(io, () =>
        diffProjectCheckpoints(cps, {
          from,
          to,
          scope: opts.scope,
          detail: opts.detail,
          limit: parseLimit(opts.limit),
          after: opts.after,
          record_family_id: opts.family,
        }),
      );
      if (tokenSecretInMemory(cps.project.root)) {
        io.stderr('note: the workspace cannot be written (read-only); the page-token key is kept in memory, so this diff\'s page tokens are valid in this process only\n');
      }
      if (opts.arrow === true) {
        // The next-page token rides in the schema metadata (issue 9); the stderr hint stays for people.
        writeTableResult(io, 'arrow', page.table, page.nextPageToken);
        if (page.nextPageToken !== null) io.stderr(`next page: --after ${page.nextPageToken}\n`);
        return;
      }
      const rows = plainRows(page.table);
      if (opts.json === true) {
        io.stdout(`${JSON.stringify({ schema: page.schema, rows, next_page_token: page.nextPageToken })}\n`);
        return;
      }
      const names = page.table.schema.fields.map((f) => f.name);
      io.stdout(`${names.join('\t')}\n`);
      for (const r of rows) io.stdout(`${names.map((n) => (r[n] === null ? '' : String(r[n]))).join('\t')}\n`);
      if (page.nextPageToken !== null) io.stderr(`next page: --after ${page.nextPageToken}\n`);
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
