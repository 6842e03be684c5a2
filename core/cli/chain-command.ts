// `gf chain list|show|verify|health`: parse, dispatch the `chain.*` operations
// (the same ones the Ledgers screen calls), format. The verification report
// and its verdict are the contract's (`VerifyEntry`, `verifyFailure`).
import { readUserFileOrRefuse } from './user-file';
import type { Command } from 'commander';
import { CHAIN_HEAD_PATTERN, EXPECTED_HEADS_FILE_MAX_BYTES, NO_LINEAGE, NO_LINKED_GENERATION, evidenceManifestSha256, verifyFailure, workflowIdRefusal, type EvidenceGeneration } from '../contract/chain';
import type { ChainRowEntry } from '../contract/maintenance';
import type { VerifyEntry } from '../contract/operations';
import { GfError } from '../errors';
import { addChainPostgresOption } from './chain-option';
import type { CliIo } from './io';
import { cliEngine } from './lazy-engine';
import { formatOf, withOutputOptions, type OutputFlags } from './output-options';
import { projectOption } from './project-option';
import type { CliSession } from './session';
import type { ActorNames } from './actor-names';

interface CommonOpts extends OutputFlags {
  readonly project: string;
  readonly chainPostgresUrl?: string;
}

interface VerifyOpts extends CommonOpts {
  readonly all?: boolean;
  readonly expectHead?: string;
}

/** The largest page the contract serves: `show` reads a whole ledger in as few calls as it can. */
const ROWS_PAGE = 10_000;

/** A workflow id argument, or `workflows.invalid_workflow_id` (the text is never echoed). */
function workflowArg(text: string): string {
  const refusal = workflowIdRefusal(text);
  if (refusal !== null) throw refusal;
  return text;
}

/** One line of the verification report. */
function reportLine(r: VerifyEntry): string {
  if (r.status === 'unreadable') return `${r.ledger ?? r.workflow_id}: unreadable (${r.cause ?? 'unknown'})\n`;
  const where = r.first_bad_sequence === null ? '' : ` at sequence ${r.first_bad_sequence}`;
  const line = `${r.workflow_id}: ${r.status}${where} (${r.rows} rows, tail ${r.tail_head})\n`;
  const b = r.break_head;
  // At a break, the evidence: the head the verifier expected and the head the row stores.
  if (b === undefined) return line;
  const at = `${b.column} at sequence ${r.first_bad_sequence ?? '?'}`;
  return `${line}  expected ${at}: ${b.expected_head}\n  stored   ${at}: ${b.stored_head}\n`;
}

/** A report row for the table and CSV formats (the break's heads as their own columns). */
function flatReport(r: VerifyEntry): Record<string, string | number | null> {
  const { break_head: b, ...rest } = r;
  return { ...rest, ...(b === undefined ? {} : { break_column: b.column, expected_head: b.expected_head, stored_head: b.stored_head }) };
}

/** Expected tail heads from a file of `<workflow_id> <head>` lines (blank lines and `#` comments skipped). */
function readExpectedHeads(file: string): Map<string, string> {
  const text = readUserFileOrRefuse(file, { what: 'file of expected heads', maxBytes: EXPECTED_HEADS_FILE_MAX_BYTES, rule: 'chain.expected_heads_file_bytes', field: 'expect_head' }).toString('utf8');
  const out = new Map<string, string>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+)\s+(\S+)$/.exec(line);
    if (m === null || !CHAIN_HEAD_PATTERN.test(m[2] as string)) throw new GfError('GF_VALIDATION', 'expected heads: each line is `<workflow_id> <blake3 head>`', { line: i + 1 });
    out.set(workflowArg(m[1] as string), m[2] as string);
  }
  if (out.size === 0) throw new GfError('GF_VALIDATION', 'the file of expected heads names no workflow', { field: 'expect_head' });
  return out;
}

/** Every persisted row of one workflow, page by page, and the generations its evidence links to (null: no workspace). */
async function allRows(s: CliSession, workflow_id: string): Promise<{ rows: ChainRowEntry[]; linked: Map<string, EvidenceGeneration> | null }> {
  const rows: ChainRowEntry[] = [];
  let linked: Map<string, EvidenceGeneration> | null = new Map();
  let after: string | null = null;
  do {
    const page: { readonly rows: readonly ChainRowEntry[]; readonly next_page_token: string | null; readonly evidence_generations: readonly EvidenceGeneration[] | null } = await s.call('chain.rows', { workflow_id, limit: ROWS_PAGE, after });
    rows.push(...page.rows);
    if (page.evidence_generations === null) linked = null;
    for (const g of page.evidence_generations ?? []) linked?.set(g.evidence_digest, g);
    after = page.next_page_token;
  } while (after !== null);
  return { rows, linked };
}

/** Who published a linked generation, by name as the app shows it (a short id for an actor never seen by name). */
export type PublisherText = (actor: string) => string;

/**
 * A transition's evidence in words: the generation it links to and who
 * published that generation (the workspace lineage's actor: chain events
 * carry none), or why there is no such generation.
 */
export function evidenceText(digest: string | null, linked: ReadonlyMap<string, EvidenceGeneration> | null, publisher: PublisherText): string | null {
  if (digest === null) return null;
  if (evidenceManifestSha256(digest) === null) return `evidence ${digest}`;
  if (linked === null) return `evidence ${digest} (${NO_LINEAGE})`;
  const g = linked.get(digest)?.generation ?? null;
  if (g === null) return `evidence ${digest} (${NO_LINKED_GENERATION})`;
  return `evidence: generation ${g.generation_uuid.slice(0, 8)}, ${g.actor === null ? 'its publisher was not recorded' : `published by ${publisher(g.actor)}`}`;
}

/** `gf chain show --json`: the rows, and each linked generation with its publisher's name (null when never seen by name). */
function showJson(workflow_id: string, rows: readonly ChainRowEntry[], linked: ReadonlyMap<string, EvidenceGeneration> | null, names: ActorNames) {
  const evidence_generations = linked === null ? null : [...linked.values()].map((e) => ({
    ...e,
    generation: e.generation === null ? null : { ...e.generation, actor_name: e.generation.actor === null ? null : (names.get(e.generation.actor) ?? null) },
  }));
  return { workflow_id, rows, evidence_generations };
}

/** A `chain` subcommand with the shared options: `--project`, the Postgres ledger and the output formats. */
function ledgerCommand(chain: Command, name: string, project = projectOption('project directory (ledgers live in <dir>/chain)')): Command {
  return withOutputOptions(addChainPostgresOption(chain.command(name)).addOption(project));
}

/**
 * `gf chain list|show|verify|health`: inspect and verify a project's workflow ledgers.
 *
 * The store is `<project>/chain` (SQLite, one database per workflow), or the
 * shared PostgreSQL ledger named by `--chain-postgres-url` or (preferred: it
 * never shows in `ps`) `GF_CHAIN_POSTGRES_URL`; the connection string is
 * never printed. `health` prints the store's health record.
 * `verify` recomputes every head; a damaged chain, or a tail different from
 * `--expect-head` (a head recorded elsewhere, which exposes a truncated
 * tail), exits 1 with the error id on stderr after printing the report.
 */
export function registerChainCommands(program: Command, io: CliIo): void {
  const chain = program.command('chain').description('inspect and verify hash-chained workflow ledgers');

  ledgerCommand(chain, 'list')
    .description('list the workflows that have a ledger')
    .action(async (opts: CommonOpts) => {
      const e = await cliEngine();
      const format = formatOf(opts);
      const listed = await e.withLedgers(opts.project, opts, (s) => s.call('chain.list', {}));
      const rows = [
        ...listed.workflows.map((w) => ({ workflow_id: w.workflow_id, rows: w.rows, tail_head: w.tail_head })),
        ...(listed.unreadable ?? []).map((u) => ({ ledger: u.ledger, status: 'unreadable', cause: u.cause })),
      ];
      const text = (): string => [
        ...listed.workflows.map((w) => `${w.workflow_id}\t${w.rows} rows\t${w.tail_head}\n`),
        ...(listed.unreadable ?? []).map((u) => `${u.ledger}: unreadable (${u.cause})\n`),
      ].join('');
      e.writeJsonResult(io, format, rows, text, (r) => r);
    });

  ledgerCommand(chain, 'show')
    .description('show the persisted rows of one workflow (not verified: use verify), with the generation each evidence links to and who published it')
    .argument('<workflow>', 'workflow id')
    .action(async (workflow: string, opts: CommonOpts) => {
      const id = workflowArg(workflow);
      const e = await cliEngine();
      const format = formatOf(opts);
      const { rows, linked, names } = await e.withLedgers(opts.project, opts, async (s) => {
        const read = await allRows(s, id);
        return { ...read, names: await e.actorNames(s.callRaw, [...(read.linked?.values() ?? [])].map((g) => g.generation?.actor ?? null)) };
      });
      const publisher: PublisherText = (a) => e.actorText(names, a, false);
      const text = (): string =>
        rows
          .map((r) => {
            const what = r.event === null ? '(unreadable event bytes)' : `${r.event.prior_state_id} -> ${r.event.next_state_id}  ${r.event.triggering_outcome.kind}  ${r.event.occurred_at}`;
            const evidence = evidenceText(r.event?.triggering_outcome.evidence_digest ?? null, linked, publisher);
            return `#${r.sequence}  ${what}  ${r.next_head}\n${evidence === null ? '' : `    ${evidence}\n`}`;
          })
          .join('');
      const flat = (): Record<string, string | number | null>[] =>
        rows.map((r) => {
          const digest = r.event?.triggering_outcome.evidence_digest ?? null;
          const g = digest === null ? null : (linked?.get(digest)?.generation ?? null);
          return {
            sequence: r.sequence, transition_id: r.transition_id, prior_head: r.prior_head, next_head: r.next_head, written_at: r.written_at,
            prior_state_id: r.event?.prior_state_id ?? null, next_state_id: r.event?.next_state_id ?? null, outcome: r.event?.triggering_outcome.kind ?? null, occurred_at: r.event?.occurred_at ?? null,
            evidence_digest: digest,
            evidence_generation_uuid: g?.generation_uuid ?? null,
            evidence_publisher_actor: g?.actor ?? null,
            evidence_publisher_name: g?.actor == null ? null : (names.get(g.actor) ?? null),
          };
        });
      e.writeJsonResult(io, format, showJson(id, rows, linked, names), text, flat);
    });

  ledgerCommand(chain, 'verify')
    .description('recompute every chain head of one workflow (or --all) from the persisted bytes')
    .argument('[workflow]', 'workflow id')
    .option('--all', 'verify every workflow in the project')
    .option('--expect-head <head>', 'fail unless the tail head equals this recorded head (detects a truncated tail); with --all, a file of `<workflow_id> <head>` lines')
    .action(async (workflow: string | undefined, opts: VerifyOpts) => {
      if ((workflow === undefined) === (opts.all !== true)) throw new GfError('GF_VALIDATION', 'give exactly one of WORKFLOW or --all');
      const id = workflow === undefined ? undefined : workflowArg(workflow);
      let expected: Map<string, string> | undefined;
      if (opts.expectHead !== undefined) {
        // With --all, --expect-head names a file of expected heads: one `<workflow_id> <head>` per line.
        if (id === undefined) expected = readExpectedHeads(opts.expectHead);
        else if (CHAIN_HEAD_PATTERN.test(opts.expectHead)) expected = new Map([[id, opts.expectHead]]);
        else throw new GfError('GF_VALIDATION', '--expect-head takes one chain head (blake3:<64 hex>) with one WORKFLOW, or a file of heads with --all');
      }
      const e = await cliEngine();
      const format = formatOf(opts);
      const { results } = await e.withLedgers(opts.project, opts, (s) => s.call('chain.verify', id === undefined ? {} : { workflow_id: id }));
      e.writeJsonResult(io, format, id === undefined ? results : results[0], () => results.map(reportLine).join(''), () => results.map(flatReport));
      const failure = verifyFailure(results, expected);
      if (failure !== null) throw failure;
    });

  ledgerCommand(chain, 'health')
    .description("print the chain store's health record: backend, workflows, and for PostgreSQL the pool counters")
    .addHelpText('after', '\nExample:\n  gf chain health --project ./demo --json   (GF_CHAIN_POSTGRES_URL set: the shared Postgres ledger)\n\n--json: last_write_age_seconds is null before a write.\n')
    .action(async (opts: CommonOpts) => {
      const e = await cliEngine();
      const format = formatOf(opts);
      const h = await e.withLedgers(opts.project, opts, (s) => s.call('chain.health', {}));
      const record = { backend: h.backend, workflows: h.workflows, ...h.details };
      const text = (): string => Object.entries(record).map(([field, value]) => `${field.padEnd(24)}${value === null ? 'never' : String(value)}\n`).join('');
      e.writeJsonResult(io, format, record, text, () => [record]);
    });
}
