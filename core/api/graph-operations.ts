// graph.* operations: the pictures' queries over core/graph, answered by the
// engine (bounded, paged, cancellable), never by shipping a participant.
import { GRAPH_LIMITS } from '../contract/graph';
import { projectShell, selectorOf, withPinnedPair } from '../diff/index';
import { GfError } from '../errors';
import { graphElementTable } from '../graph/element-table';
import { decodeGraphDiffToken, encodeGraphDiffToken, graphDiffPage, type GraphDiffBinding } from '../graph/graph-diff';
import { GraphIndex } from '../graph/graph-index';
import { decodeNeighbourhoodToken, encodeNeighbourhoodToken, neighbourhoodBounds, neighbourhoodPage } from '../graph/neighbourhood';
import { userCursorKey } from '../paging/cursor-key';
import type { CheckpointView } from '../views/checkpoint-view';
import { arrowResult } from './arrow-result';
import type { Cancellations } from './checkpoint-operations';
import type { PartialImplementations } from './dispatcher';
import type { ProjectSession } from './project-session';
import type { SessionTable } from './sessions';

function graphIndexOf(view: CheckpointView): GraphIndex {
  return GraphIndex.of(view);
}

/** A view's graph, read once for the view's lifetime: the view keeps it and drops it at release. */
function graphOf(view: CheckpointView): GraphIndex {
  if (view.released) throw new GfError('GF_PAGE_SNAPSHOT_GONE', 'the view was released', { generation_uuid: view.generationUuid });
  return view.derived(graphIndexOf);
}

/** graph.find_nodes, graph.neighbourhood and graph.diff. */
export function graphOperations(
  projects: SessionTable<ProjectSession>,
  views: SessionTable<CheckpointView>,
  cancellations: Cancellations,
) {
  return {
    'graph.find_nodes': async ({ view, text, limit }) => {
      const g = graphOf(views.get(view));
      const rows = g.find(text, limit ?? GRAPH_LIMITS.findMax);
      const elements = rows.map((r) => ({ element: 'node' as const, node_uuid: g.nodeUuid(r), label: g.nodeLabel(r), class_id: g.nodeClass(r), depth: null, change_kind: null, changed_fields: null, row_number: null }));
      return arrowResult(graphElementTable(elements, null), null);
    },
    'graph.neighbourhood': async ({ view, node_uuid, depth, max_nodes, after, operation_id }) => {
      const v = views.get(view);
      const bounds = neighbourhoodBounds(depth, max_nodes);
      const binding = { manifestSha256: v.manifestSha256, nodeUuid: node_uuid, ...bounds };
      const skip = after === undefined || after === null ? 0 : decodeNeighbourhoodToken(userCursorKey(), binding, after);
      const run = cancellations.begin(operation_id);
      try {
        const page = await neighbourhoodPage(graphOf(v).warm(), { nodeUuid: node_uuid, ...bounds, skip }, run.signal);
        // The view may have been closed while the query yielded: its answer is gone with it.
        if (v.released) throw new GfError('GF_PAGE_SNAPSHOT_GONE', 'the view was released', { generation_uuid: v.generationUuid });
        return arrowResult(graphElementTable(page.elements, null), page.nextSkip === null ? null : encodeNeighbourhoodToken(userCursorKey(), binding, page.nextSkip));
      } finally {
        run.end();
      }
    },
    'graph.diff': async ({ project, from, to, record_family_id, change_kinds, changed_field, limit, after, operation_id }) => {
      const session = projects.get(project);
      const shell = projectShell(session.checkpoints());
      const run = cancellations.begin(operation_id);
      try {
        return await withPinnedPair(shell.resolver, selectorOf(from), selectorOf(to), async (a, b) => {
          const binding: GraphDiffBinding = {
            from: a.checkpointUuid,
            to: b.checkpointUuid,
            family: record_family_id ?? null,
            kinds: change_kinds ?? null,
            field: changed_field ?? null,
            limit: limit ?? GRAPH_LIMITS.diffPageDefault,
          };
          const first = after === undefined || after === null ? 0 : decodeGraphDiffToken(userCursorKey(), binding, after);
          const page = await graphDiffPage(a, b, { family: binding.family, kinds: binding.kinds, field: binding.field, limit: binding.limit, first }, shell.cache, session.caches.graph, run.signal);
          return arrowResult(graphElementTable(page.elements, page.totals), page.nextFirst === null ? null : encodeGraphDiffToken(userCursorKey(), binding, page.nextFirst));
        });
      } finally {
        run.end();
      }
    },
  } satisfies PartialImplementations;
}
