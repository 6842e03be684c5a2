// The graph pictures' vocabulary (the neighbourhood of a node at a
// checkpoint, the graph of a diff): limits, the result schema's columns and
// the element ids both sides compare by. Browser-safe.
import { GRAPH_ELEMENT_SCHEMA_NAME, GRAPH_ELEMENT_TABLE, columnNames } from './tables';

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

export { GRAPH_ELEMENT_SCHEMA_NAME };

/** `graph_element@1` column names, in schema order (declared with their kinds and meaning in core/contract/tables.ts). */
export const GRAPH_ELEMENT_COLUMNS = columnNames(GRAPH_ELEMENT_TABLE);

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
