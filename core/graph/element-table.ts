// `graph_element@1` tables: the one result schema of the graph operations,
// built from plain element rows in the contract's column order.
import type { Table } from 'apache-arrow';
import { GRAPH_ELEMENT_SCHEMA_NAME, graphEdgeId, type GraphElementColumn } from '../contract/graph';
import type { RecordChangeKind } from '../contract/diff';
import type { CellValue } from '../participants/columns';
import { resultTable } from '../participants/result-tables';

/** A node of a picture. */
export interface NodeElement {
  readonly element: 'node';
  readonly node_uuid: string;
  readonly label: string | null;
  readonly class_id: string | null;
  readonly depth: number | null;
  readonly change_kind: RecordChangeKind | null;
  readonly changed_fields: string | null;
  readonly row_number: number | null;
}

/** An edge of a picture (identity: source, relation, target). */
export interface EdgeElement {
  readonly element: 'edge';
  readonly source_node_uuid: string;
  readonly target_node_uuid: string;
  readonly relation: string;
  readonly change_kind: RecordChangeKind | null;
  readonly changed_fields: string | null;
  readonly row_number: number | null;
}

/** One row of `graph_element@1`. */
export type GraphElement = NodeElement | EdgeElement;

function cellOf(e: GraphElement, c: GraphElementColumn, totals: PageTotals | null): CellValue {
  switch (c) {
    case 'element':
      return e.element;
    case 'id':
      return e.element === 'node' ? e.node_uuid : graphEdgeId(e.source_node_uuid, e.relation, e.target_node_uuid);
    case 'total_changes':
      return totals?.totalChanges ?? null;
    case 'first_change':
      return totals?.firstChange ?? null;
    default: {
      const v = (e as unknown as Record<string, CellValue | undefined>)[c];
      return v === undefined ? null : v;
    }
  }
}

/** The honest count of a diff graph page: the filtered total and the page's first position. */
export interface PageTotals {
  readonly totalChanges: number;
  readonly firstChange: number;
}

/** A `graph_element@1` table of `elements` in the given order (`totals` for a diff graph page). */
export function graphElementTable(elements: readonly GraphElement[], totals: PageTotals | null): Table {
  return resultTable(GRAPH_ELEMENT_SCHEMA_NAME, elements, (e, c) => cellOf(e, c as GraphElementColumn, totals));
}
