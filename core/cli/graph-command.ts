// `gf graph find|neighbourhood|diff`: parse, dispatch `graph.*`, format.
// The neighbourhood reads through a read-only view of the checkpoint (opened
// and closed around the call), exactly as the app's picture does.
import type { Command } from 'commander';
import { Option } from 'commander';
import { RECORD_CHANGE_KINDS, type RecordChangeKind } from '../contract/diff';
import { GRAPH_FAMILIES, GRAPH_LIMITS, type GraphElementColumn, type GraphFamily } from '../contract/graph';
import { GfError } from '../errors';
import { intOption } from './checkpoint-command';
import type { CliIo } from './io';
import { cliEngine } from './lazy-engine';
import { formatOf, withOutputOptions, type OutputFlags } from './output-options';
import { projectOption } from './project-option';
import type { TextCell } from './output';

interface GraphOpts extends OutputFlags {
  readonly project: string;
  readonly limit?: string;
  readonly after?: string;
}

/** People's text of a graph page: one line per node, then one per edge. */
function graphText(rows: readonly Readonly<Record<GraphElementColumn, TextCell>>[]): string {
  const lines = rows.map((r) =>
    r['element'] === 'node'
      ? `node ${r['change_kind'] ?? (r['depth'] === null ? '' : `depth ${r['depth']}`)}\t${r['label'] ?? ''} (${r['class_id'] ?? ''})\t${r['node_uuid'] ?? ''}${r['changed_fields'] === null ? '' : `\tchanged: ${r['changed_fields']}`}`
      : `edge ${r['change_kind'] ?? ''}\t${r['source_node_uuid'] ?? ''} -${r['relation'] ?? ''}-> ${r['target_node_uuid'] ?? ''}`,
  );
  const total = rows[0]?.['total_changes'];
  const first = Number(rows[0]?.['first_change'] ?? 0);
  const changes = rows.filter((r) => r['change_kind'] !== null).length;
  const head = total === undefined || total === null ? [] : [`showing changes ${changes === 0 ? 0 : first + 1}–${first + changes} of ${Number(total).toLocaleString('en-US')}`];
  return `${[...head, ...lines].join('\n')}\n`;
}

function changeKinds(text: string | undefined): RecordChangeKind[] | undefined {
  if (text === undefined) return undefined;
  const kinds = text.split(',');
  for (const k of kinds) if (!(RECORD_CHANGE_KINDS as readonly string[]).includes(k)) throw new GfError('GF_VALIDATION', `--kind takes ${RECORD_CHANGE_KINDS.join(', ')} (comma-separated)`, { field: 'change_kinds' });
  return kinds as RecordChangeKind[];
}

/** `gf graph find|neighbourhood|diff`. */
export function registerGraphCommands(program: Command, io: CliIo): void {
  const group = program.command('graph').description('the workspace graph: find a node, its neighbourhood at a checkpoint, the graph of a diff');

  withOutputOptions(
    group
      .command('find')
      .description('nodes at a checkpoint whose label contains TEXT or whose UUID starts with it')
      .argument('<checkpoint>', 'checkpoint name')
      .argument('<text>', 'label text or UUID prefix')
      .addOption(projectOption())
      .option('--limit <n>', `at most this many nodes (1–${GRAPH_LIMITS.findMax})`),
  ).action(async (name: string, text: string, opts: GraphOpts) => {
    const e = await cliEngine();
    const format = formatOf(opts);
    await e.withProject(opts.project, async (s) => {
      const { view } = await s.call('view.open', { name });
      try {
        const page = await s.callRaw('graph.find_nodes', { view, text, limit: intOption(opts.limit, 'limit') });
        e.writeArrowResult(io, format, page, 'graph.find_nodes', undefined, { text: (rows) => graphText(rows) });
      } finally {
        await s.callRaw('view.close', { view });
      }
    });
  });

  withOutputOptions(
    group
      .command('neighbourhood')
      .alias('neighborhood')
      .description(`a node's neighbourhood at a checkpoint, breadth first to a depth, at most ${GRAPH_LIMITS.maxNodes.toLocaleString('en-US')} nodes a page`)
      .argument('<checkpoint>', 'checkpoint name')
      .argument('<node-uuid>', 'the start node')
      .addOption(projectOption())
      .option('--depth <n>', `hops from the node (1–${GRAPH_LIMITS.maxDepth}, default ${GRAPH_LIMITS.defaultDepth})`)
      .option('--max-nodes <n>', `nodes a page (1–${GRAPH_LIMITS.maxNodes}, default ${GRAPH_LIMITS.defaultNodes})`)
      .option('--after <token>', 'next-page token from a previous page'),
  ).action(async (name: string, node: string, opts: GraphOpts & { readonly depth?: string; readonly maxNodes?: string }) => {
    const e = await cliEngine();
    const format = formatOf(opts);
    await e.withProject(opts.project, async (s) => {
      const { view } = await s.call('view.open', { name });
      try {
        const page = await s.callRaw('graph.neighbourhood', { view, node_uuid: node, depth: intOption(opts.depth, 'depth'), max_nodes: intOption(opts.maxNodes, 'max_nodes'), after: opts.after });
        e.writeArrowResult(io, format, page, 'graph.neighbourhood', undefined, { text: (rows) => graphText(rows) });
      } finally {
        await s.callRaw('view.close', { view });
      }
    });
  });

  withOutputOptions(
    group
      .command('diff')
      .description('the changed nodes and edges between two checkpoints (or CURRENT) with their immediate neighbourhood')
      .argument('<from>', 'checkpoint name or CURRENT')
      .argument('<to>', 'checkpoint name or CURRENT')
      .addOption(projectOption())
      .addOption(new Option('--family <family>', 'only nodes or only edges').choices(GRAPH_FAMILIES))
      .option('--kind <kinds>', `only these change kinds (${RECORD_CHANGE_KINDS.join(',')})`)
      .option('--changed-field <field>', 'only modified records in which this field changed')
      .option('--limit <n>', `changes a page (1–${GRAPH_LIMITS.diffPageMax}, default ${GRAPH_LIMITS.diffPageDefault})`)
      .option('--after <token>', 'next-page token from a previous page'),
  ).action(async (from: string, to: string, opts: GraphOpts & { readonly family?: GraphFamily; readonly kind?: string; readonly changedField?: string }) => {
    const e = await cliEngine();
    const format = formatOf(opts);
    const page = await e.withProject(opts.project, (s) =>
      s.call('graph.diff', { from, to, record_family_id: opts.family, change_kinds: changeKinds(opts.kind), changed_field: opts.changedField, limit: intOption(opts.limit, 'limit'), after: opts.after }),
    );
    e.writeArrowResult(io, format, page, 'graph.diff', undefined, { text: (rows) => graphText(rows) });
  });
}
