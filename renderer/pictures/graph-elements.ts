// `graph_element@1` pages decoded for the pictures: nodes and edges typed by
// the contract's columns.
import type { Row } from '../../core/contract/operations';
import { decodeArrow } from '../arrow-rows';

type ElementRow = Row<'graph.neighbourhood'>;

/** A node of a graph page. */
export interface GraphNode {
  readonly id: string;
  readonly label: string;
  readonly classId: string;
  readonly depth: number | null;
  readonly change: string | null;
  readonly changedFields: string | null;
  readonly rowNumber: number | null;
}

/** An edge of a graph page. */
export interface GraphEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly relation: string;
  readonly change: string | null;
  readonly changedFields: string | null;
  readonly rowNumber: number | null;
}

/** One decoded page: its nodes, its edges and (diff graphs) the honest count. */
export interface GraphPage {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  readonly totalChanges: number | null;
  readonly firstChange: number | null;
  readonly next: string | null;
}

/** Decodes one Arrow page of a graph operation. */
export function graphPage(bytes: Uint8Array, next: string | null): GraphPage {
  const rows: readonly ElementRow[] = decodeArrow(bytes, 'graph.neighbourhood').rows;
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  for (const r of rows) {
    if (r.element === 'node') {
      nodes.push({ id: r.id, label: r.label ?? r.node_uuid ?? '', classId: r.class_id ?? '', depth: r.depth, change: r.change_kind, changedFields: r.changed_fields, rowNumber: r.row_number });
    } else {
      edges.push({ id: r.id, source: r.source_node_uuid ?? '', target: r.target_node_uuid ?? '', relation: r.relation ?? '', change: r.change_kind, changedFields: r.changed_fields, rowNumber: r.row_number });
    }
  }
  return { nodes, edges, totalChanges: rows[0]?.total_changes ?? null, firstChange: rows[0]?.first_change ?? null, next };
}
