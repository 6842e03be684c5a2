// The graph of a diff (`graph.diff`): the record diff's own change lists of
// `graph/node` and `graph/edge` (the same merge, the same change-list store),
// filtered as the record diff filters them, one page of changes at a time,
// with each change's immediate neighbourhood as unchanged context.
import type { Data, Field, Table } from 'apache-arrow';
import { BoundedCache, toHex } from '../canonical/index';
import { rowFingerprinter } from '../canonical/row-fingerprints';
import { uuidText } from '../contract/arrow-text';
import { RECORD_CHANGE_KINDS, type RecordChangeKind } from '../contract/diff';
import { GRAPH_LIMITS, graphEdgeId, type GraphFamily } from '../contract/graph';
import { GfError } from '../errors';
import { DIFF_ADAPTERS } from '../diff/plan-adapters';
import { runAsync } from '../diff/steps';
import { KIND_MODIFIED, type ChangeList } from '../diff/changes-list';
import { familyListSteps } from '../diff/changes-ordered';
import { planFamilies, type FamilyPlan } from '../diff/plan-families';
import type { ChangeCache } from '../diff/changes-cache';
import type { DiffEndpoint, EndpointParticipant } from '../diff/plan-endpoint';
import { changedFieldsOf } from '../diff/page-record-display';
import { decodeCursor, encodeCursor, type CursorKey, type CursorScope } from '../paging/cursor';
import type { EdgeElement, GraphElement, NodeElement, PageTotals } from './element-table';
import { GraphIndex, uuidBytesOf } from './graph-index';
import { checkGraphCancelled, pause } from './neighbourhood';

/** One diff graph request, as the contract validated it (endpoints already pinned by the caller). */
export interface GraphDiffRequest {
  readonly family: GraphFamily | null;
  readonly kinds: readonly RecordChangeKind[] | null;
  readonly field: string | null;
  readonly limit: number;
  /** Position of this page's first change (from the token). */
  readonly first: number;
}

/** One page of the diff graph. */
export interface GraphDiffPage {
  readonly elements: readonly GraphElement[];
  readonly totals: PageTotals;
  /** Changes of the filtered diff per family. */
  readonly familyTotals: Readonly<Record<GraphFamily, number>>;
  /** Position of the next page's first change, or null at the end. */
  readonly nextFirst: number | null;
  /** Unchanged neighbours left out because the page reached `diffContextMax` context nodes. */
  readonly contextCapped: boolean;
}

/**
 * What graph diff pages of one open project decode once and ask for again and
 * again (the API's project session keeps one, core/api/project-session.ts):
 * decoded graph participants by family and content digest, and each edge
 * table's identity fingerprint (hex) → row, by content digest.
 */
export class GraphDiffMemo {
  readonly tables = new BoundedCache<string, Table>(4);
  readonly edgeFingerprints = new BoundedCache<string, Map<string, number>>(2);

  /** Forgets everything (the owner closed the project). */
  clear(): void {
    this.tables.clear();
    this.edgeFingerprints.clear();
  }

  /** Decoded tables and fingerprint maps held. */
  get size(): number {
    return this.tables.size + this.edgeFingerprints.size;
  }
}

function tableOf(memo: GraphDiffMemo, plan: FamilyPlan | undefined, endpoint: DiffEndpoint, entry: EndpointParticipant | undefined): Table | undefined {
  if (plan === undefined || entry === undefined) return undefined;
  return memo.tables.getOrSet(`${plan.adapter.family.key}:${entry.contentSha256}`, () => plan.adapter.decode(endpoint.readParticipantBytes(entry)));
}

function edgeFingerprints(memo: GraphDiffMemo, plan: FamilyPlan, entry: EndpointParticipant, table: Table): Map<string, number> {
  return memo.edgeFingerprints.getOrSet(entry.contentSha256, () => {
    const family = plan.adapter.family;
    const fields = family.identityFields.map((n) => family.schema.fields.find((f) => f.name === n) as Field);
    const out = new Map<string, number>();
    const got = new Uint8Array(32);
    let offset = 0;
    for (const batch of table.batches) {
      const columns = family.identityFields.map((n) => batch.getChild(n)?.data[0] as Data);
      const fp = rowFingerprinter(fields, family.schema.metadata, columns, family.identityFingerprintDomain);
      for (let r = 0; r < batch.numRows; r++) {
        fp.into(r, got, 0);
        out.set(toHex(got), offset + r);
      }
      offset += batch.numRows;
    }
    return out;
  });
}

/** Rows of a change list that pass the record diff's kind and changed-field filters, in list order. */
function kept(plan: FamilyPlan, list: ChangeList, kinds: readonly RecordChangeKind[] | null, field: string | null): Int32Array {
  const index = field === null ? -1 : plan.adapter.family.fields.findIndex((f) => f.name === field);
  if (field !== null && index < 0) return new Int32Array(0);
  const bit = index < 0 ? 0 : (1 << index) >>> 0;
  const out = new Int32Array(list.length);
  let n = 0;
  for (let i = 0; i < list.length; i++) {
    const k = list.kind[i] as number;
    if (kinds !== null && !kinds.includes(RECORD_CHANGE_KINDS[k] as RecordChangeKind)) continue;
    if (bit !== 0 && (k !== KIND_MODIFIED || ((list.fieldMask[i] as number) & bit) === 0)) continue;
    out[n++] = i;
  }
  return out.subarray(0, n);
}

/** Field names of the graph families (a `changed_field` must be one of them). */
export function graphFieldNames(): ReadonlySet<string> {
  return new Set(DIFF_ADAPTERS.filter((a) => a.family.key === 'graph/node' || a.family.key === 'graph/edge').flatMap((a) => a.family.fields.map((f) => f.name)));
}

/**
 * One page of the diff graph between two pinned endpoints.
 *
 * Changes come nodes first, then edges, each family in the record diff's
 * order; `row_number` is the change's 1-based row in its family's filtered
 * record diff, so the picture can jump to that row. `memo` holds the
 * participants earlier pages of the same project decoded (the caller owns it).
 */
export async function graphDiffPage(from: DiffEndpoint, to: DiffEndpoint, req: GraphDiffRequest, cache: ChangeCache | undefined, memo: GraphDiffMemo, signal?: AbortSignal): Promise<GraphDiffPage> {
  if (req.field !== null && !graphFieldNames().has(req.field)) {
    throw new GfError('GF_VALIDATION', 'changed_field is not a field of graph nodes or edges', { field: 'changed_field' });
  }
  checkGraphCancelled(signal);
  const plans = new Map(planFamilies(from, to, 'graph', DIFF_ADAPTERS, null).map((p) => [p.recordFamilyId, p] as const));
  const nodePlan = plans.get('node');
  const edgePlan = plans.get('edge');
  const lists: { family: GraphFamily; plan: FamilyPlan; list: ChangeList; rows: Int32Array }[] = [];
  for (const [family, plan] of [['node', nodePlan], ['edge', edgePlan]] as const) {
    if (plan === undefined || (req.family !== null && req.family !== family)) continue;
    const list = await runAsync(familyListSteps(plan, from, to, cache, true), signal);
    lists.push({ family, plan, list, rows: kept(plan, list, req.kinds, req.field) });
  }
  const familyTotals = { node: 0, edge: 0 };
  for (const l of lists) familyTotals[l.family] = l.rows.length;
  const total = lists.reduce((n, l) => n + l.rows.length, 0);
  if (req.first > 0 && req.first >= total) throw new GfError('GF_PAGE_INVALID', 'the page token is past the end of this diff graph', { operation: 'graph.diff' });
  const end = Math.min(total, req.first + req.limit);

  const fromGraph = new GraphIndex(tableOf(memo, nodePlan, from, nodePlan?.from), tableOf(memo, edgePlan, from, edgePlan?.from));
  const toGraph = new GraphIndex(tableOf(memo, nodePlan, to, nodePlan?.to), tableOf(memo, edgePlan, to, edgePlan?.to));
  const nodes = new Map<string, NodeElement>();
  const edges = new Map<string, EdgeElement>();
  /** Changed nodes with the side (graph) their neighbourhood is read from. */
  const around: { readonly graph: GraphIndex; readonly row: number }[] = [];
  const sideOf = (k: number): GraphIndex => (RECORD_CHANGE_KINDS[k] === 'removed' ? fromGraph : toGraph);

  let at = 0;
  for (const l of lists) {
    const lo = Math.max(req.first - at, 0);
    const hi = Math.min(end - at, l.rows.length);
    for (let j = lo; j < hi; j++) {
      if ((j & 1023) === 1023) await pause(signal);
      const i = l.rows[j] as number;
      const k = l.list.kind[i] as number;
      const change = RECORD_CHANGE_KINDS[k] as RecordChangeKind;
      const changed = changedFieldsOf(l.plan.adapter, l.list, i);
      const g = sideOf(k);
      if (l.family === 'node') {
        const uuid = l.list.uuid.subarray(i * 16, i * 16 + 16);
        const row = g.nodeRow(uuid);
        const id = uuidText(uuid);
        nodes.set(id, { element: 'node', node_uuid: id, label: row < 0 ? null : g.nodeLabel(row), class_id: row < 0 ? null : g.nodeClass(row), depth: null, change_kind: change, changed_fields: changed, row_number: j + 1 });
        if (row >= 0) around.push({ graph: g, row });
      } else {
        const entry = change === 'removed' ? l.plan.from : l.plan.to;
        const table = tableOf(memo, l.plan, change === 'removed' ? from : to, entry);
        if (entry === undefined || table === undefined) throw new Error('invariant violated: an edge change without its side');
        const row = edgeFingerprints(memo, l.plan, entry, table).get(toHex(l.list.identity.subarray(i * 32, i * 32 + 32)));
        if (row === undefined) throw new Error('invariant violated: a changed edge is not on its side');
        const e: EdgeElement = { element: 'edge', source_node_uuid: g.edgeSource(row), target_node_uuid: g.edgeTarget(row), relation: g.edgeRelation(row), change_kind: change, changed_fields: changed, row_number: j + 1 };
        edges.set(graphEdgeId(e.source_node_uuid, e.relation, e.target_node_uuid), e);
      }
    }
    at += l.rows.length;
  }

  // Context: the endpoints of changed edges, then each changed node's incident edges and neighbours (on its side).
  let context = 0;
  let capped = false;
  const addContextNode = (g: GraphIndex, uuid: string): boolean => {
    if (nodes.has(uuid)) return true;
    if (context >= GRAPH_LIMITS.diffContextMax) {
      capped = true;
      return false;
    }
    const row = g.nodeRow(uuidBytesOf(uuid));
    nodes.set(uuid, { element: 'node', node_uuid: uuid, label: row < 0 ? null : g.nodeLabel(row), class_id: row < 0 ? null : g.nodeClass(row), depth: null, change_kind: null, changed_fields: null, row_number: null });
    context++;
    return true;
  };
  for (const e of [...edges.values()]) {
    const g = e.change_kind === 'removed' ? fromGraph : toGraph;
    addContextNode(g, e.source_node_uuid);
    addContextNode(g, e.target_node_uuid);
  }
  for (const { graph: g, row } of around) {
    await pause(signal);
    const out = g.outgoing(row);
    const incident = [...Array.from({ length: out.end - out.start }, (_, k) => out.start + k), ...g.incoming(row)];
    for (const e of incident) {
      const source = g.edgeSource(e);
      const target = g.edgeTarget(e);
      const relation = g.edgeRelation(e);
      const id = graphEdgeId(source, relation, target);
      if (edges.has(id)) continue;
      if (!addContextNode(g, source) || !addContextNode(g, target)) continue;
      edges.set(id, { element: 'edge', source_node_uuid: source, target_node_uuid: target, relation, change_kind: null, changed_fields: null, row_number: null });
    }
  }
  return {
    elements: [...nodes.values(), ...edges.values()],
    totals: { totalChanges: total, firstChange: req.first },
    familyTotals,
    nextFirst: end < total ? end : null,
    contextCapped: capped,
  };
}

/** What a diff graph token is bound to: the request's filters and page size, and the endpoints it was read from. */
export interface GraphDiffBinding {
  readonly from: string;
  readonly to: string;
  readonly family: GraphFamily | null;
  readonly kinds: readonly RecordChangeKind[] | null;
  readonly field: string | null;
  readonly limit: number;
}

/** The filters and page size bind a token; its endpoints travel in it, so a moved endpoint is told apart from a foreign token. */
const scopeOf = (b: GraphDiffBinding): CursorScope => ({
  operation: 'graph.diff',
  binding: [b.family, b.kinds === null ? null : [...b.kinds].sort(), b.field],
  limit: b.limit,
  bounds: { max: GRAPH_LIMITS.diffPageMax },
});

const refuse = (): GfError => new GfError('GF_PAGE_INVALID', 'the page token is not valid for this diff graph', { operation: 'graph.diff' });

/** The token of the page starting at change `first`. */
export function encodeGraphDiffToken(key: CursorKey, b: GraphDiffBinding, first: number): string {
  return encodeCursor(key, scopeOf(b), [first, b.from, b.to]);
}

/**
 * The first change a token names.
 *
 * `GF_PAGE_INVALID` for a token of other filters or page size, or a forged
 * one; `GF_PAGE_SNAPSHOT_GONE` when an endpoint changed since (CURRENT moved).
 */
export function decodeGraphDiffToken(key: CursorKey, b: GraphDiffBinding, token: string): number {
  const at = decodeCursor(key, scopeOf(b), token, refuse);
  if (!Array.isArray(at) || at.length !== 3) throw refuse();
  const [first, from, to] = at as unknown[];
  if (typeof first !== 'number' || !Number.isSafeInteger(first) || first < 1) throw refuse();
  if (from !== b.from || to !== b.to) throw new GfError('GF_PAGE_SNAPSHOT_GONE', 'an endpoint of this diff graph changed since the first page', { operation: 'graph.diff' });
  return first;
}
