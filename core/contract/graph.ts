// The graph pictures' vocabulary (the neighbourhood of a node at a
// checkpoint, the graph of a diff): limits, the result schema's columns and
// the element ids both sides compare by. Browser-safe, no import.

/**
 * Bounds of the graph operations, declared once.
 *
 * A neighbourhood holds at most `maxNodes` nodes per page (the picture's cap);
 * a diff graph page holds at most `diffPageMax` changes (plus their context).
 */
export const GRAPH_LIMITS = {
  /** Most nodes of one neighbourhood page (the renderer draws at most this many at once). */
  maxNodes: 2_000,
  /** Neighbourhood page size when the request names none. */
  defaultNodes: 2_000,
  /**
   * Deepest neighbourhood (hops from the start node). Large on purpose: the
   * node cap bounds the work (a sparse graph, e.g. a citation chain, needs
   * many hops to reach a picture's worth of nodes).
   */
  maxDepth: 1_000,
  /** Depth when the request names none. */
  defaultDepth: 2,
  /** Most changes of one diff graph page. */
  diffPageMax: 2_000,
  /** Diff graph page size when the request names none. */
  diffPageDefault: 2_000,
  /** Most unchanged neighbour nodes a diff graph page adds around its changes (their immediate neighbourhood). */
  diffContextMax: 4_000,
  /** Most matches of a node search. */
  findMax: 50,
  /** Longest node search text (characters). */
  findTextMax: 256,
} as const;

/** The record families a graph picture reads (the graph capability's nodes and edges). */
export const GRAPH_FAMILIES = ['node', 'edge'] as const;
/** One graph family. */
export type GraphFamily = (typeof GRAPH_FAMILIES)[number];

/** Result schema of the graph operations. */
export const GRAPH_ELEMENT_SCHEMA_NAME = 'graph_element@1';

/**
 * `graph_element@1` columns, in schema order: one row per node or edge.
 *
 * - `element`: `node` or `edge`; `id`: the element id (`graphElementId`);
 * - nodes: `node_uuid`, `label`, `class_id`, `depth` (hops from the start
 *   node; null in a diff graph);
 * - edges: `source_node_uuid`, `target_node_uuid`, `relation` (the edge kind);
 * - diff graphs: `change_kind` (`added`, `removed`, `modified`; null for an
 *   unchanged neighbour drawn as context), `changed_fields` (modified:
 *   comma-separated, schema order), `row_number` (1-based position of the
 *   change in the filtered record diff of its family, the record diff's own
 *   `row_number`), `total_changes` (changes of the filtered diff, every page;
 *   the same on every row) and `first_change` (0-based position of this page's
 *   first change in the filtered graph change sequence);
 * - neighbourhoods: `total_changes` and `first_change` are null.
 */
export const GRAPH_ELEMENT_COLUMNS = [
  'element',
  'id',
  'node_uuid',
  'label',
  'class_id',
  'source_node_uuid',
  'target_node_uuid',
  'relation',
  'depth',
  'change_kind',
  'changed_fields',
  'row_number',
  'total_changes',
  'first_change',
] as const;

/** One `graph_element@1` column name. */
export type GraphElementColumn = (typeof GRAPH_ELEMENT_COLUMNS)[number];

/** The element kinds of `graph_element@1`. */
export const GRAPH_ELEMENTS = ['node', 'edge'] as const;

/**
 * The id of an edge in a picture and in `graph_element@1` (`id`): its
 * identity (source, relation, target) as one text; a node's id is its UUID.
 */
export function graphEdgeId(source: string, relation: string, target: string): string {
  return `${source}>${relation}>${target}`;
}
