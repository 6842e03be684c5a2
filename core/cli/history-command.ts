// `gf log` (history from the lineage log, like `git log --oneline`) and
// `gf retention show|set`: parse, dispatch `history.list` / `retention.*`, format.
import type { Command } from 'commander';
import { Option } from 'commander';
import { GfError } from '../errors';
import type { HistoryEntry, HistoryPage, RetentionPolicy } from '../contract/history';
import { LINEAGE_KINDS } from '../contract/history';
import { csvText } from '../contract/csv';
import type { Cell } from '../contract/tables';
import { intOption, timeoutOption } from './checkpoint-command';
import type { CliIo } from './io';
import { formatOf, withOutputOptions, type OutputFlags } from './output-options';
import { cliEngine } from './lazy-engine';
import { projectOption } from './project-option';
import type { ActorNames } from './actor-names';

interface LogOpts extends OutputFlags {
  readonly project: string;
  readonly limit?: string;
  readonly after?: string;
  readonly kind?: (typeof LINEAGE_KINDS)[number];
  readonly name?: string;
  readonly ids?: boolean;
}

/** The columns of `gf log --csv` (a history entry's fields; checkpoint names joined by `; `). */
export const LOG_CSV_COLUMNS = [
  'seq',
  'generation_uuid',
  'parent_generation_uuid',
  'published_at',
  'actor',
  'actor_name',
  'kind',
  'status',
  'checkpoints',
  'restored_checkpoint_uuid',
  'restored_checkpoint_name',
  'reason',
  'participants_changed',
  'manifest_sha256',
] as const;

/** What a row says in words: the checkpoint names and description, or the revert and its reason. */
function describe(e: HistoryEntry): string {
  const parts: string[] = [];
  if (e.checkpoints.length > 0) parts.push(`[${e.checkpoints.map((c) => c.name).join(', ')}]`);
  if (e.kind === 'revert') parts.push(`revert to ${e.restored_checkpoint_name === null ? (e.restored_checkpoint_uuid ?? 'a checkpoint') : JSON.stringify(e.restored_checkpoint_name)}: ${e.reason ?? ''}`);
  else if (e.kind === 'first') parts.push('first generation');
  const description = e.checkpoints.find((c) => c.description !== null)?.description;
  if (description !== undefined && description !== null) parts.push(`— ${description}`);
  parts.push(`(${e.participants_changed} ${e.participants_changed === 1 ? 'participant' : 'participants'} changed)`);
  return parts.join(' ');
}

/** A history entry as `gf log --json` and `--csv` give it: the actor's UUID and, where the app knows it, its name. */
export type LoggedEntry = HistoryEntry & { readonly actor_name: string | null };

/** The page's entries with their actors' names (`actor_name`, null for none or an actor never seen by name). */
export function withActorNames(page: HistoryPage, names: ActorNames): Omit<HistoryPage, 'entries'> & { readonly entries: readonly LoggedEntry[] } {
  return { ...page, entries: page.entries.map((e) => ({ ...e, actor_name: e.actor === null ? null : (names.get(e.actor) ?? null) })) };
}

/**
 * One line per entry, like `git log --oneline`: short UUID, time, kind,
 * status, the words, then who: the actor's name (the short id of an actor
 * never seen by name); `ids` adds the full actor UUID.
 */
export function logLines(page: HistoryPage, actor: (uuid: string) => string): string {
  const lines = page.entries.map((e) => {
    const status = e.status === 'retained' ? '' : ` ${e.status}`;
    return `${e.generation_uuid.slice(0, 8)} ${e.published_at.slice(0, 19).replace('T', ' ')}Z ${e.kind}${status} ${describe(e)}${e.actor === null ? '' : ` by ${actor(e.actor)}`}`;
  });
  return lines.length === 0 ? 'no history yet (nothing published)\n' : `${lines.join('\n')}\n`;
}

/** `gf log --csv`. */
export function logCsv(page: { readonly entries: readonly LoggedEntry[] }): string {
  const row = (e: LoggedEntry): Readonly<Record<string, Cell>> =>
    Object.fromEntries(LOG_CSV_COLUMNS.map((c) => [c, c === 'checkpoints' ? e.checkpoints.map((x) => x.name).join('; ') : (e[c] ?? null)]));
  return csvText(LOG_CSV_COLUMNS, page.entries.map(row));
}

/** The policy in words. */
export function retentionText(p: RetentionPolicy): string {
  const source = p.source === 'default' ? `the default (${p.default_retain_ancestors})` : 'set for this workspace';
  return [
    `retention keeps CURRENT, its ${p.retain_ancestors} most recent ${p.retain_ancestors === 1 ? 'ancestor' : 'ancestors'} (${source}), every checkpointed generation and every generation a reader holds open`,
    `CURRENT: ${p.current_generation_uuid ?? 'none (nothing published)'}`,
    `ancestors kept: ${p.ancestors.length === 0 ? 'none' : p.ancestors.join(', ')}`,
    `checkpointed: ${p.checkpointed.length}`,
    `held open by readers: ${p.leased.length}`,
    'older unnamed generations are pruned at the next cleanup; `gf log` still lists them as pruned',
  ].join('\n') + '\n';
}

/** `gf log` and `gf retention show|set`. */
export function registerHistoryCommands(program: Command, io: CliIo): void {
  withOutputOptions(
    program
      .command('log')
      .description('history from the lineage log, newest first (pruned generations included), like git log --oneline')
      .addOption(projectOption())
      .option('--limit <n>', 'page size 1–10000 (default 100)')
      .option('--after <token>', 'next-page token from a previous page')
      .addOption(new Option('--kind <kind>', 'only this kind of publication').choices(LINEAGE_KINDS))
      .option('--name <text>', 'only generations whose checkpoint name contains this text (case-insensitive)')
      .option('--ids', "show each actor's full UUID beside its name (--json and --csv always carry both)"),
  ).action(async (opts: LogOpts) => {
    const e = await cliEngine();
    const format = formatOf(opts);
    if (format === 'arrow') throw new GfError('GF_VALIDATION', 'gf log prints text, --json or --csv (valid: --json, --csv)', { format });
    const limit = intOption(opts.limit, 'limit');
    const { page, names } = await e.withProject(opts.project, async (s) => {
      const page = await s.call('history.list', { limit, after: opts.after, kind: opts.kind, name: opts.name });
      return { page, names: await e.actorNames(s.callRaw, page.entries.map((x) => x.actor)) };
    });
    if (format === 'json') io.stdout(`${JSON.stringify(withActorNames(page, names))}\n`);
    else io.stdout(format === 'csv' ? logCsv(withActorNames(page, names)) : logLines(page, (a) => e.actorText(names, a, opts.ids === true)));
    if (format !== 'json' && page.next_page_token !== null) io.stderr(`next page: --after ${page.next_page_token}\n`);
  });

  const group = program.command('retention').description('the retention policy: how much unnamed history the workspace keeps');
  withOutputOptions(group.command('show').description('the policy in force and what it keeps now').addOption(projectOption())).action(
    async (opts: OutputFlags & { readonly project: string }) => {
      const e = await cliEngine();
      const policy = await e.withProject(opts.project, (s) => s.call('retention.show', {}));
      e.writeJsonResult(io, formatOf(opts), policy, retentionText);
    },
  );
  withOutputOptions(
    timeoutOption(
      group
        .command('set')
        .description('set how many ancestors of CURRENT retention keeps in this workspace (applied at the next cleanup)')
        .addOption(projectOption())
        .requiredOption('--keep <n>', 'ancestors of CURRENT to keep, 0–1024'),
    ),
  ).action(async (opts: OutputFlags & { readonly project: string; readonly keep: string; readonly timeoutMs?: string }) => {
    const e = await cliEngine();
    const keep = intOption(opts.keep, 'keep');
    const timeout_ms = intOption(opts.timeoutMs, 'timeout_ms');
    const r = await e.withProject(opts.project, (s) => s.call('retention.set', { retain_ancestors: keep ?? 0, timeout_ms }));
    e.writeJsonResult(io, formatOf(opts), r, (v) => `retention now keeps ${v.retain_ancestors} ${v.retain_ancestors === 1 ? 'ancestor' : 'ancestors'} of CURRENT (was ${v.previous}); applied at the next cleanup\n`);
  });
}
