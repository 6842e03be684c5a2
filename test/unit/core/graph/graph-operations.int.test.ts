// graph.find_nodes, graph.neighbourhood and graph.diff through the dispatcher,
// against a model computed here from the records themselves (view.records)
// and from the record diff (checkpoints.diff display pages).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFacade, type Facade } from '../../../../core/api/facade';
import { Checkpoints, openCheckpointedProject } from '../../../../core/checkpoints/checkpoints';
import type { ArrowResult } from '../../../../core/contract/operations';
import { graphEdgeId } from '../../../../core/contract/graph';
import { parseDisplay } from '../../../../core/contract/diff';
import { GRAPH_EDGE, GRAPH_NODE, encodeRecords, registryCatalog } from '../../../../core/participants/index';
import { createProject, type ParticipantChange } from '../../../../core/project/index';
import { testUuid } from '../../../support/project-fixtures';

const T0 = 1_700_000_000_000_000n;
const id = (i: number): string => testUuid(`graph-node-${i}`);
const node = (i: number, label = `Node ${i}`) => ({ node_uuid: id(i), class_id: i % 2 === 0 ? 'paper' : 'author', label, properties: null, created_at: T0 + BigInt(i), updated_at: null });
const edge = (s: number, t: number, kind: string, weight = 1) => ({ source_node_uuid: id(s), target_node_uuid: id(t), kind, weight, created_at: T0 });
const put = (family: typeof GRAPH_NODE, records: object[]): ParticipantChange => ({ kind: 'put', capabilityId: 'graph', recordFamilyId: family.recordFamilyId, bytes: encodeRecords(family, records) });

/** Before: nodes 0–11, edges i→i+1 (cites) and i→i+3 (mentions). After: node 11 and its edges removed, 12 and 13 added, 2 relabelled, 0→1 removed, 12→0 added, 3→4 reweighted. */
function beforeGraph(): { nodes: object[]; edges: object[] } {
  const nodes = Array.from({ length: 12 }, (_, i) => node(i));
  const edges = [...Array.from({ length: 11 }, (_, i) => edge(i, i + 1, 'cites')), ...Array.from({ length: 9 }, (_, i) => edge(i, i + 3, 'mentions'))];
  return { nodes, edges };
}
function afterGraph(): { nodes: object[]; edges: object[] } {
  const nodes = [...Array.from({ length: 11 }, (_, i) => (i === 2 ? node(2, 'Node 2 (renamed)') : node(i))), node(12), node(13)];
  const edges = [
    ...Array.from({ length: 10 }, (_, i) => edge(i, i + 1, 'cites', i === 3 ? 0.5 : 1)).filter((_, i) => i !== 0),
    ...Array.from({ length: 8 }, (_, i) => edge(i, i + 3, 'mentions')),
    edge(12, 0, 'uses'),
  ];
  return { nodes, edges };
}

let root: string;
let facade: Facade;
let project: string;

async function call<T = unknown>(op: string, req: object): Promise<T> {
  const env = await facade.dispatcher.dispatch(op, req);
  if (!env.ok) throw Object.assign(new Error(env.error.message), { code: env.error.code });
  return env.value as T;
}
async function codeOf(op: string, req: object): Promise<string> {
  const env = await facade.dispatcher.dispatch(op, req);
  return env.ok ? 'ok' : env.error.code;
}
type Row = Record<string, unknown>;
const rowsOf = (r: ArrowResult): Row[] => tableFromIPC(r.bytes).toArray().map((x) => x.toJSON() as Row);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gf-graph-'));
  const dir = join(root, 'ws');
  await createProject(dir, { catalog: registryCatalog });
  const p = await openCheckpointedProject(dir);
  const cps = new Checkpoints(p, { clock: () => 1_767_225_600_000_000 });
  const b = beforeGraph();
  const g1 = await p.publish({ parent: null, changes: [put(GRAPH_NODE, b.nodes), put(GRAPH_EDGE, b.edges)] });
  await cps.checkpoint({ name: 'before', idempotencyKey: testUuid('graph-op-before') });
  const a = afterGraph();
  await p.publish({ parent: g1.generationUuid, changes: [put(GRAPH_NODE, a.nodes), put(GRAPH_EDGE, a.edges)] });
  await cps.checkpoint({ name: 'after', idempotencyKey: testUuid('graph-op-after') });
  facade = createFacade({ mode: 'library' });
  project = (await facade.launch(dir)).project;
});

afterAll(async () => {
  await facade.close();
  rmSync(root, { recursive: true, force: true });
});

/** The model: every record of a checkpoint through view.records, and a breadth-first search written here. */
async function modelNeighbourhood(view: string, start: string, depth: number): Promise<{ nodes: Map<string, number>; edges: Set<string> }> {
  const nodes = rowsOf(await call<ArrowResult>('view.records', { view, capability_id: 'graph', record_family_id: 'node', limit: 10000 }));
  const edges = rowsOf(await call<ArrowResult>('view.records', { view, capability_id: 'graph', record_family_id: 'edge', limit: 10000 }));
  const uuidOf = (v: unknown): string => {
    const h = Buffer.from(v as Uint8Array).toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
  const ids = new Set(nodes.map((n) => uuidOf(n['node_uuid'])));
  const adj = new Map<string, Set<string>>();
  for (const e of edges) {
    const s = uuidOf(e['source_node_uuid']);
    const t = uuidOf(e['target_node_uuid']);
    if (!adj.has(s)) adj.set(s, new Set());
    if (!adj.has(t)) adj.set(t, new Set());
    adj.get(s)!.add(t);
    adj.get(t)!.add(s);
  }
  const seen = new Map<string, number>([[start, 0]]);
  let frontier = [start];
  for (let d = 1; d <= depth; d++) {
    const next: string[] = [];
    for (const u of frontier) {
      for (const v of adj.get(u) ?? []) {
        if (!ids.has(v) || seen.has(v)) continue;
        seen.set(v, d);
        next.push(v);
      }
    }
    frontier = next;
  }
  const inside = new Set<string>();
  for (const e of edges) {
    const s = uuidOf(e['source_node_uuid']);
    const t = uuidOf(e['target_node_uuid']);
    if (seen.has(s) && seen.has(t)) inside.add(graphEdgeId(s, String(e['kind']), t));
  }
  return { nodes: seen, edges: inside };
}

async function allPages(req: Record<string, unknown>, op = 'graph.neighbourhood'): Promise<Row[][]> {
  const pages: Row[][] = [];
  let after: string | null = null;
  do {
    const page: ArrowResult = await call<ArrowResult>(op, { ...req, ...(after === null ? {} : { after }) });
    pages.push(rowsOf(page));
    after = page.next_page_token;
  } while (after !== null && pages.length < 100);
  return pages;
}

describe('graph.neighbourhood', () => {
  it('answers exactly the nodes within the depth and the edges between them, with their depths, at every depth', async () => {
    const { view } = await call<{ view: string }>('view.open', { project, name: 'before' });
    for (const depth of [1, 2, 3]) {
      const model = await modelNeighbourhood(view, id(5), depth);
      const [page] = await allPages({ view, node_uuid: id(5), depth });
      const nodes = page!.filter((r) => r['element'] === 'node');
      expect(new Map(nodes.map((n) => [n['id'], n['depth']])), `depth ${depth}`).toEqual(model.nodes);
      expect(new Set(page!.filter((r) => r['element'] === 'edge').map((e) => e['id']))).toEqual(model.edges);
      expect(page!.filter((r) => r['element'] === 'edge').length).toBe(model.edges.size);
    }
    await call('view.close', { view });
  });

  it('pages of at most max_nodes nodes together are the whole neighbourhood, each node and edge once', async () => {
    const { view } = await call<{ view: string }>('view.open', { project, name: 'before' });
    const model = await modelNeighbourhood(view, id(0), 6);
    const pages = await allPages({ view, node_uuid: id(0), depth: 6, max_nodes: 3 });
    expect(pages.length).toBe(Math.ceil(model.nodes.size / 3));
    for (const p of pages) expect(p.filter((r) => r['element'] === 'node').length).toBeLessThanOrEqual(3);
    const all = pages.flat();
    const nodeIds = all.filter((r) => r['element'] === 'node').map((r) => r['id']);
    const edgeIds = all.filter((r) => r['element'] === 'edge').map((r) => r['id']);
    expect(new Set(nodeIds)).toEqual(new Set(model.nodes.keys()));
    expect(nodeIds.length).toBe(model.nodes.size);
    expect(new Set(edgeIds)).toEqual(model.edges);
    expect(edgeIds.length).toBe(model.edges.size);
    await call('view.close', { view });
  });

  it('refuses a token of another start node or page size, a forged token, an unknown node and a cancelled query, by code', async () => {
    const { view } = await call<{ view: string }>('view.open', { project, name: 'before' });
    const first = await call<ArrowResult>('graph.neighbourhood', { view, node_uuid: id(0), depth: 6, max_nodes: 3 });
    const token = first.next_page_token!;
    expect(await codeOf('graph.neighbourhood', { view, node_uuid: id(1), depth: 6, max_nodes: 3, after: token })).toBe('GF_PAGE_INVALID');
    expect(await codeOf('graph.neighbourhood', { view, node_uuid: id(0), depth: 6, max_nodes: 4, after: token })).toBe('GF_PAGE_INVALID');
    const [body, mac] = token.split('.');
    const forged = `${Buffer.from('{"skip":6,"v":1}').toString('base64url')}.${mac}`;
    expect(body).not.toBe(forged.split('.')[0]);
    expect(await codeOf('graph.neighbourhood', { view, node_uuid: id(0), depth: 6, max_nodes: 3, after: forged })).toBe('GF_PAGE_INVALID');
    expect(await codeOf('graph.neighbourhood', { view, node_uuid: id(99), depth: 1 })).toBe('GF_VALIDATION');
    expect(await codeOf('graph.neighbourhood', { view, node_uuid: id(0), depth: 1001 })).toBe('GF_VALIDATION');
    expect(await codeOf('graph.neighbourhood', { view, node_uuid: id(0), max_nodes: 2001 })).toBe('GF_VALIDATION');
    const op = testUuid('graph-cancel');
    await call('operation.cancel', { operation_id: op });
    expect(await codeOf('graph.neighbourhood', { view, node_uuid: id(0), depth: 6, operation_id: op })).toBe('GF_CANCELLED');
    await call('view.close', { view });
    // Leased to the view: once it is closed, nothing more is answered from it.
    expect(await codeOf('graph.neighbourhood', { view, node_uuid: id(0) })).not.toBe('ok');
  });
});

describe('graph.find_nodes', () => {
  it('finds by label text (case-insensitive) and by UUID prefix, in node order', async () => {
    const { view } = await call<{ view: string }>('view.open', { project, name: 'after' });
    const byLabel = rowsOf(await call<ArrowResult>('graph.find_nodes', { view, text: 'node 2 (REN' }));
    expect(byLabel.map((r) => r['label'])).toEqual(['Node 2 (renamed)']);
    const prefix = id(7).slice(0, 6);
    const byId = rowsOf(await call<ArrowResult>('graph.find_nodes', { view, text: prefix }));
    expect(byId.map((r) => r['id'])).toContain(id(7));
    for (const r of byId) expect(String(r['id']).startsWith(prefix) || String(r['label']).toLowerCase().includes(prefix)).toBe(true);
    const many = rowsOf(await call<ArrowResult>('graph.find_nodes', { view, text: 'Node', limit: 5 }));
    expect(many.length).toBe(5);
    await call('view.close', { view });
  });
});

/** The record diff's rows of one graph family (display pages, all of them). */
async function recordDiff(family: 'node' | 'edge', extra: Record<string, unknown> = {}): Promise<Row[]> {
  const out: Row[] = [];
  let after: string | null = null;
  do {
    const page: ArrowResult = await call<ArrowResult>('checkpoints.diff', { project, from: 'before', to: 'after', scope: 'graph', detail: 'records', record_family_id: family, display: true, limit: 10000, ...extra, ...(after === null ? {} : { after }) });
    out.push(...rowsOf(page));
    after = page.next_page_token;
  } while (after !== null);
  return out;
}

describe('graph.diff', () => {
  const uuidText = (v: unknown): string => {
    const h = Buffer.from(v as Uint8Array).toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };

  it('draws exactly the record diff\'s changed nodes and edges with their kinds, row numbers and changed fields, and an honest total', async () => {
    const [page] = await allPages({ project, from: 'before', to: 'after' }, 'graph.diff');
    const changed = page!.filter((r) => r['change_kind'] !== null);
    const nodeDiff = await recordDiff('node');
    const edgeDiff = await recordDiff('edge');
    expect(new Map(changed.filter((r) => r['element'] === 'node').map((r) => [r['id'], [r['change_kind'], r['row_number'], r['changed_fields']]]))).toEqual(
      new Map(nodeDiff.map((r) => [uuidText(r['record_uuid']), [r['change_kind'], Number(r['row_number']), r['changed_fields']]])),
    );
    // Edges have no record UUID: compare what a person reads (source label, type, target label) and the kind.
    const labelOf = new Map(page!.filter((r) => r['element'] === 'node').map((r) => [r['id'], r['label']]));
    const edgeKey = (s: unknown, t: unknown, type: unknown, kind: unknown): string => `${String(s)}|${String(type)}|${String(t)}|${String(kind)}`;
    expect(new Set(changed.filter((r) => r['element'] === 'edge').map((r) => edgeKey(labelOf.get(uuidText(r['source_node_uuid'])), labelOf.get(uuidText(r['target_node_uuid'])), r['relation'], r['change_kind'])))).toEqual(
      new Set(edgeDiff.map((r) => { const d = parseDisplay(r['display'] as string); return edgeKey(d['source'], d['target'], d['type'], r['change_kind']); })),
    );
    expect(changed.length).toBe(nodeDiff.length + edgeDiff.length);
    expect(new Set(page!.map((r) => r['total_changes']))).toEqual(new Set([nodeDiff.length + edgeDiff.length]));
    // Context: every edge's endpoints are drawn, and the unchanged neighbours of changed nodes are there.
    const drawn = new Set(page!.filter((r) => r['element'] === 'node').map((r) => r['id']));
    for (const e of page!.filter((r) => r['element'] === 'edge')) {
      expect(drawn.has(uuidText(e['source_node_uuid']))).toBe(true);
      expect(drawn.has(uuidText(e['target_node_uuid']))).toBe(true);
    }
    expect(drawn.has(id(3))).toBe(true); // 2's neighbour, unchanged
    expect(page!.find((r) => r['id'] === id(3))!['change_kind']).toBeNull();
  });

  it('filters like the record diff (family, kinds, changed field) and pages honestly', async () => {
    const modified = rowsOf(await call<ArrowResult>('graph.diff', { project, from: 'before', to: 'after', change_kinds: ['modified'] })).filter((r) => r['change_kind'] !== null);
    const modelModified = [...(await recordDiff('node', { change_kinds: ['modified'] })), ...(await recordDiff('edge', { change_kinds: ['modified'] }))];
    expect(modified.length).toBe(modelModified.length);
    expect(modified.every((r) => r['change_kind'] === 'modified')).toBe(true);
    const label = rowsOf(await call<ArrowResult>('graph.diff', { project, from: 'before', to: 'after', changed_field: 'label' })).filter((r) => r['change_kind'] !== null);
    expect(label.map((r) => r['id'])).toEqual((await recordDiff('node', { changed_field: 'label' })).map((r) => uuidText(r['record_uuid'])));
    const edgesOnly = rowsOf(await call<ArrowResult>('graph.diff', { project, from: 'before', to: 'after', record_family_id: 'edge' })).filter((r) => r['change_kind'] !== null);
    expect(edgesOnly.length).toBe((await recordDiff('edge')).length);
    expect(edgesOnly.every((r) => r['element'] === 'edge')).toBe(true);

    const whole = rowsOf(await call<ArrowResult>('graph.diff', { project, from: 'before', to: 'after' })).filter((r) => r['change_kind'] !== null);
    const pages = await allPages({ project, from: 'before', to: 'after', limit: 2 }, 'graph.diff');
    expect(pages.length).toBe(Math.ceil(whole.length / 2));
    pages.forEach((p, k) => {
      expect(p.filter((r) => r['change_kind'] !== null).length).toBeLessThanOrEqual(2);
      expect(new Set(p.map((r) => r['first_change']))).toEqual(new Set([2 * k]));
      expect(new Set(p.map((r) => r['total_changes']))).toEqual(new Set([whole.length]));
    });
    expect(pages.flat().filter((r) => r['change_kind'] !== null).map((r) => r['id'])).toEqual(whole.map((r) => r['id']));
  });

  it('refuses a token of other filters, a field of no graph family and an unknown checkpoint, by code', async () => {
    const first = await call<ArrowResult>('graph.diff', { project, from: 'before', to: 'after', limit: 2 });
    const token = first.next_page_token!;
    expect(await codeOf('graph.diff', { project, from: 'before', to: 'after', limit: 3, after: token })).toBe('GF_PAGE_INVALID');
    expect(await codeOf('graph.diff', { project, from: 'before', to: 'after', limit: 2, change_kinds: ['added'], after: token })).toBe('GF_PAGE_INVALID');
    expect(await codeOf('graph.diff', { project, from: 'before', to: 'CURRENT', limit: 2, after: token })).toBe('GF_PAGE_SNAPSHOT_GONE');
    expect(await codeOf('graph.diff', { project, from: 'before', to: 'after', changed_field: 'statement' })).toBe('GF_VALIDATION');
    expect(await codeOf('graph.diff', { project, from: 'missing', to: 'after' })).toBe('GF_CHECKPOINT_NOT_FOUND');
    expect(await codeOf('graph.diff', { project, from: 'before', to: 'after', limit: 2001 })).toBe('GF_VALIDATION');
    const op = testUuid('graph-diff-cancel');
    await call('operation.cancel', { operation_id: op });
    expect(await codeOf('graph.diff', { project, from: 'before', to: 'after', operation_id: op })).toBe('GF_CANCELLED');
  });
});
