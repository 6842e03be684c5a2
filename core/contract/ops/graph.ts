// The graph picture operations: find nodes of a checkpoint's graph, a node's
// neighbourhood, and the graph of a diff (engine-side, bounded, paged). Each
// declared once with its request schema and its Arrow result schema.
// Browser-safe (zod and core/contract).
import { z } from 'zod';
import { RECORD_CHANGE_KINDS } from '../diff';
import { GRAPH_FAMILIES, GRAPH_LIMITS } from '../graph';
import { CONTROL, afterSchema, fieldNameSchema, handleSchema, selectorSchema, uuidSchema } from './atoms';
import { arrowOp, type DomainOperations } from './declare';

/** The graph picture operations. */
export const GRAPH_OPERATIONS = {
  /**
   * Nodes of a checkpoint's graph found by label (substring, case-insensitive) or node UUID (prefix), in node order.
   *
   * The start of a neighbourhood: at most `limit` (≤ 50) nodes, `graph_element@1` rows with `depth` null.
   */
  'graph.find_nodes': arrowOp(
    z.object({
      view: handleSchema,
      text: z.string().min(1).max(GRAPH_LIMITS.findTextMax).refine((s) => !CONTROL.test(s), 'control character'),
      limit: z.number().int().min(1).max(GRAPH_LIMITS.findMax).optional(),
    }).strict(),
    ['graph_element@1'], false, 'Nodes of an open checkpoint view whose label contains the text or whose UUID starts with it (graph_element@1).'),
  /**
   * The neighbourhood of one node in an open view: breadth first to `depth`
   * hops over edges in both directions, at most `max_nodes` nodes a page.
   *
   * Nodes come in breadth-first order (each node's neighbours by UUID); a
   * page holds the next nodes of that order and every edge between a node of
   * the page and a node of this or an earlier page, so the pages together are
   * exactly the induced subgraph. Leased to the view (closing it ends the
   * answers: `GF_PAGE_SNAPSHOT_GONE`); cancellable by `operation_id`; the
   * token is bound to the view's generation, the start node and the depth.
   */
  'graph.neighbourhood': arrowOp(
    z.object({
      view: handleSchema,
      node_uuid: uuidSchema,
      depth: z.number().int().min(1).max(GRAPH_LIMITS.maxDepth).optional(),
      max_nodes: z.number().int().min(1).max(GRAPH_LIMITS.maxNodes).optional(),
      after: afterSchema,
      operation_id: uuidSchema.optional(),
    }).strict(),
    ['graph_element@1'], false, 'A node\'s neighbourhood in an open checkpoint view to a depth, at most 2,000 nodes a page (graph_element@1); paged, cancellable.'),
  /**
   * The graph of a diff: the changed nodes and edges between two checkpoints
   * or CURRENT (the record diff's own change lists of `graph/node` and
   * `graph/edge`, filtered as the record diff filters), each page at most
   * `limit` changes in the record diff's order, plus their immediate
   * neighbourhood as unchanged context (capped, never sampled silently).
   *
   * Every row carries the filtered total (`total_changes`) and the page's
   * first position (`first_change`): "showing 2,000 of 23,984 changes".
   */
  'graph.diff': arrowOp(
    z.object({
      project: handleSchema,
      from: selectorSchema,
      to: selectorSchema,
      record_family_id: z.enum(GRAPH_FAMILIES).optional(),
      change_kinds: z.array(z.enum(RECORD_CHANGE_KINDS)).min(1).max(RECORD_CHANGE_KINDS.length).optional(),
      changed_field: fieldNameSchema.optional(),
      limit: z.number().int().min(1).max(GRAPH_LIMITS.diffPageMax).optional(),
      after: afterSchema,
      operation_id: uuidSchema.optional(),
    }).strict(),
    ['graph_element@1'], false, 'The changed nodes and edges between two checkpoints or CURRENT with their immediate neighbourhood (graph_element@1); filtered, paged, cancellable.'),
} as const satisfies DomainOperations;
