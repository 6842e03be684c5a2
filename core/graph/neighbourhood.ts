// The neighbourhood of one node at a checkpoint (`graph.neighbourhood`):
// breadth first over edges in both directions, bounded by depth and by a
// node cap per page, paged by position in the breadth-first order.
import { GRAPH_LIMITS } from '../contract/graph';
import { GfError } from '../errors';
import { decodeCursor, encodeCursor, type CursorKey, type CursorScope } from '../paging/cursor';
import type { EdgeElement, GraphElement, NodeElement } from './element-table';
import type { GraphIndex } from './graph-index';

/** One neighbourhood request, as the contract validated it. */
export interface NeighbourhoodRequest {
  readonly nodeUuid: string;
  readonly depth: number;
  readonly maxNodes: number;
  /** Position in the breadth-first order where this page starts (from the page token). */
  readonly skip: number;
}

/** One page: its elements (nodes first, then edges) and whether more nodes follow. */
export interface NeighbourhoodPage {
  readonly elements: readonly GraphElement[];
  readonly nodes: number;
  readonly edges: number;
  /** Position of the first node after this page, or null at the end. */
  readonly nextSkip: number | null;
}

/** Yields to the event loop (cancellation and other requests get their turn); throws `GF_CANCELLED` when aborted. */
export async function pause(signal: AbortSignal | undefined): Promise<void> {
  await new Promise<void>((r) => setImmediate(r));
  checkGraphCancelled(signal);
}

/** `GF_CANCELLED` when the query's operation was cancelled (before it started, or at a pause). */
export function checkGraphCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new GfError('GF_CANCELLED', 'the graph query was cancelled', { operation: 'graph' });
}

/**
 * Node rows in breadth-first order from `start` to `depth` hops (each node's
 * neighbours in UUID order), at most `limit` of them, with their depths.
 */
export async function breadthFirst(g: GraphIndex, start: number, depth: number, limit: number, signal?: AbortSignal): Promise<{ readonly order: number[]; readonly depthOf: Map<number, number> }> {
  const depthOf = new Map<number, number>([[start, 0]]);
  const order = [start];
  let frontierStart = 0;
  for (let d = 0; d < depth && order.length < limit; d++) {
    const frontierEnd = order.length;
    for (let i = frontierStart; i < frontierEnd && order.length < limit; i++) {
      if ((i & 511) === 511) await pause(signal);
      const u = order[i] as number;
      const next: number[] = [];
      const out = g.outgoing(u);
      for (let e = out.start; e < out.end; e++) next.push(g.targetNodeRow(e));
      for (const e of g.incoming(u)) next.push(g.sourceNodeRow(e));
      next.sort((a, b) => a - b);
      for (const v of next) {
        if (v < 0 || depthOf.has(v)) continue;
        depthOf.set(v, d + 1);
        order.push(v);
        if (order.length >= limit) break;
      }
    }
    frontierStart = frontierEnd;
  }
  return { order, depthOf };
}

/**
 * One page of the neighbourhood: nodes `[skip, skip + maxNodes)` of the
 * breadth-first order, and every edge whose later endpoint (by position)
 * is on this page and whose other endpoint is on this or an earlier page.
 */
export async function neighbourhoodPage(g: GraphIndex, req: NeighbourhoodRequest, signal?: AbortSignal): Promise<NeighbourhoodPage> {
  checkGraphCancelled(signal);
  const start = g.requireNode(req.nodeUuid);
  const end = req.skip + req.maxNodes;
  const { order, depthOf } = await breadthFirst(g, start, req.depth, end + 1, signal);
  const position = new Map<number, number>();
  for (let i = 0; i < Math.min(order.length, end); i++) position.set(order[i] as number, i);
  const nodes: NodeElement[] = [];
  const edges: EdgeElement[] = [];
  const edge = (e: number): EdgeElement => ({
    element: 'edge',
    source_node_uuid: g.edgeSource(e),
    target_node_uuid: g.edgeTarget(e),
    relation: g.edgeRelation(e),
    change_kind: null,
    changed_fields: null,
    row_number: null,
  });
  for (let i = req.skip; i < Math.min(order.length, end); i++) {
    const u = order[i] as number;
    nodes.push({ element: 'node', node_uuid: g.nodeUuid(u), label: g.nodeLabel(u), class_id: g.nodeClass(u), depth: depthOf.get(u) ?? null, change_kind: null, changed_fields: null, row_number: null });
    const out = g.outgoing(u);
    for (let e = out.start; e < out.end; e++) {
      const p = position.get(g.targetNodeRow(e));
      if (p !== undefined && p <= i) edges.push(edge(e));
    }
    for (const e of g.incoming(u)) {
      const p = position.get(g.sourceNodeRow(e));
      if (p !== undefined && p < i) edges.push(edge(e));
    }
  }
  return { elements: [...nodes, ...edges], nodes: nodes.length, edges: edges.length, nextSkip: order.length > end ? end : null };
}

/** What a neighbourhood token is bound to: the view's generation and the request that made it. */
export interface NeighbourhoodBinding {
  readonly manifestSha256: string;
  readonly nodeUuid: string;
  readonly depth: number;
  readonly maxNodes: number;
}

const scopeOf = (b: NeighbourhoodBinding): CursorScope => ({
  operation: 'graph.neighbourhood',
  binding: [b.manifestSha256, b.nodeUuid, b.depth],
  limit: b.maxNodes,
  bounds: { max: GRAPH_LIMITS.maxNodes },
});

const refuse = (): GfError => new GfError('GF_PAGE_INVALID', 'the page token is not valid for this neighbourhood', { operation: 'graph.neighbourhood' });

/** The token of the page starting at `skip`. */
export function encodeNeighbourhoodToken(key: CursorKey, b: NeighbourhoodBinding, skip: number): string {
  return encodeCursor(key, scopeOf(b), skip);
}

/** The start position a token names; `GF_PAGE_INVALID` for a token of another view, node, depth or page size, or a forged one. */
export function decodeNeighbourhoodToken(key: CursorKey, b: NeighbourhoodBinding, token: string): number {
  const skip = decodeCursor(key, scopeOf(b), token, refuse);
  if (typeof skip !== 'number' || !Number.isSafeInteger(skip) || skip < 1) throw refuse();
  return skip;
}

/** The request's depth and page size with the contract's defaults. */
export function neighbourhoodBounds(depth: number | undefined, maxNodes: number | undefined): { readonly depth: number; readonly maxNodes: number } {
  return { depth: depth ?? GRAPH_LIMITS.defaultDepth, maxNodes: maxNodes ?? GRAPH_LIMITS.defaultNodes };
}
