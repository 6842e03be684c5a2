// The pictures in real Chromium (browser mode through `gf serve`) on the demo:
// the history timeline (one mark per lineage entry, revert arcs to the right
// checkpoint, pruned entries hollow), the graph around a node at a checkpoint
// and the graph of "Graph imported" → CURRENT, each compared with the engine's
// own answers through what the picture drew (its element's data: the ids
// handed to uPlot and to sigma), never through pixels. Screenshots in
// test-results/screens/, axe 0 serious or critical on every state.
import { tableFromIPC } from 'apache-arrow';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArrowResult, JsonResults } from '../core/contract/operations';
import { axeProblems, shot, startDemoApp, type DemoApp } from './support/demo-app';

const FROM = 'Graph imported';
let app: DemoApp;
let page: Page;
const call: DemoApp['call'] = (op, request) => app.call(op, request);

/** Canonical UUID text of a FixedSizeBinary(16) cell as apache-arrow decodes it. */
function uuidText(v: unknown): string {
  const h = Buffer.from(v as Uint8Array).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

type Entry = JsonResults['history.list']['entries'][number];
interface TimelineData { readonly marks: readonly { generation_uuid: string; hollow: boolean; flags: readonly string[] }[]; readonly arcs: readonly { from: string; to: string }[] }
interface GraphData { readonly nodes: readonly string[]; readonly edges: readonly string[]; readonly changes: Readonly<Record<string, string>> }

/** What a picture drew (its root element's data), once it has drawn. */
async function pictureOf<T>(testId: string): Promise<T> {
  const el = page.getByTestId(testId);
  await page.locator(`[data-testid="${testId}"][data-drawn="true"]`).waitFor();
  return el.evaluate((e) => (e as unknown as Record<string, unknown>)['__gfPicture']) as Promise<T>;
}

async function allHistory(): Promise<Entry[]> {
  const out: Entry[] = [];
  let after: string | null = null;
  do {
    const page: JsonResults['history.list'] = await call('history.list', { project: app.project, limit: 500, ...(after === null ? {} : { after }) });
    out.push(...page.entries);
    after = page.next_page_token;
  } while (after !== null);
  return out;
}

beforeAll(async () => {
  // A revert under a window of one ancestor: older unnamed generations are pruned (hollow marks), and the demo's own revert plus this one give
  // two arcs. It restores "Release 1.0" (CURRENT's own content), so the graph of "Graph imported" → CURRENT keeps the demo's curation.
  app = await startDemoApp({
    prefix: 'gf-pictures-',
    records: 300,
    prepare: async (a) => {
      await a.call('retention.set', { project: a.project, retain_ancestors: 1 });
      await a.call('checkpoints.revert', { project: a.project, name: 'Release 1.0', reason: 'pictures e2e: the release again', idempotency_key: crypto.randomUUID() });
    },
  });
  page = await app.browser.context.newPage();
  await page.goto(`${app.serve.url}#/history`);
  await page.getByTestId('timeline').waitFor();
});

afterAll(async () => {
  await app?.close();
});

describe('the pictures (issue 39, Chromium)', () => {
  it('the timeline draws one mark per lineage entry, a revert arc to the generation of each restored checkpoint, and pruned entries hollow', async () => {
    const entries = await allHistory();
    const drawn = await pictureOf<TimelineData>('history-timeline');
    expect(drawn.marks.map((m) => m.generation_uuid).sort()).toEqual(entries.map((e) => e.generation_uuid).sort());
    expect(drawn.marks.length).toBe(entries.length);
    const pruned = entries.filter((e) => e.status === 'pruned').map((e) => e.generation_uuid).sort();
    expect(pruned.length).toBeGreaterThan(0);
    expect(drawn.marks.filter((m) => m.hollow).map((m) => m.generation_uuid).sort()).toEqual(pruned);
    // Each revert's arc ends at the generation its checkpoint names (the engine's registry), exactly one arc per revert.
    const reverts = entries.filter((e) => e.kind === 'revert');
    expect(reverts.length).toBe(2);
    const list = tableFromIPC((await call('checkpoints.list', { project: app.project, limit: 10000 }) as ArrowResult).bytes).toArray().map((r) => r.toJSON() as Record<string, unknown>);
    const generationOf = (checkpointUuid: string | null): string | undefined => {
      const row = list.find((r) => uuidText(r['checkpoint_uuid']) === checkpointUuid);
      return row === undefined ? undefined : uuidText(row['generation_uuid']);
    };
    const summary = await call('project.summary', { project: app.project });
    const expected = reverts.map((r) => ({ from: r.generation_uuid, to: generationOf(r.restored_checkpoint_uuid) ?? summary.generations.find((g) => g.generation_uuid === r.generation_uuid)?.restoration?.source_generation_uuid }));
    expect(expected.every((a) => a.to !== undefined)).toBe(true);
    expect([...drawn.arcs].map((a) => ({ from: a.from, to: a.to })).sort((a, b) => a.from.localeCompare(b.from))).toEqual(expected.sort((a, b) => a.from.localeCompare(b.from)));
    // Flags: every active checkpoint name is on its generation's mark.
    for (const e of entries) expect(drawn.marks.find((m) => m.generation_uuid === e.generation_uuid)?.flags).toEqual(e.checkpoints.map((c) => c.name));
    await shot(page, 'i39-history-timeline');
    expect(await axeProblems(page)).toEqual([]);
  });

  it('the keyboard selects a mark in the list (End, then Enter) and offers the diff with its nearest named neighbours', async () => {
    const entries = await allHistory();
    const newest = [...entries].sort((a, b) => b.seq - a.seq)[0]!;
    await page.getByTestId('timeline-canvas').focus();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    const row = page.locator(`[data-testid="generation-row"][data-generation="${newest.generation_uuid}"]`);
    await row.and(page.locator('[aria-current="true"]')).waitFor();
    expect(await page.getByTestId('timeline-card-text').textContent()).toContain('CURRENT');
    expect(await page.getByTestId('timeline-diff').textContent()).toMatch(/→ CURRENT$/);
    await shot(page, 'i39-history-timeline-selected');
    expect(await axeProblems(page)).toEqual([]);
  });

  it('the graph around a demo node draws exactly the engine\'s neighbourhood, and Expand grows it by the engine\'s answer', async () => {
    await page.goto(app.link(`#/checkpoint?name=${encodeURIComponent(FROM)}`));
    await page.getByTestId('checkpoint-graph').waitFor();
    await page.getByTestId('graph-find').fill('Paper 1');
    await page.getByTestId('graph-find').press('Enter');
    const first = page.getByTestId('graph-match').first();
    await first.waitFor();
    await first.click();
    const drawn = await pictureOf<GraphData>('graph-canvas');
    // The engine's answer over its own view of the same checkpoint, through the same operation.
    const { view } = await call('view.open', { project: app.project, name: FROM });
    const found = tableFromIPC((await call('graph.find_nodes', { view, text: 'Paper 1', limit: 50 }) as ArrowResult).bytes);
    const start = String(found.get(0)?.toJSON()['id']);
    const rows = tableFromIPC((await call('graph.neighbourhood', { view, node_uuid: start, depth: 2 }) as ArrowResult).bytes).toArray().map((r) => r.toJSON() as Record<string, unknown>);
    const ids = (element: string) => rows.filter((r) => r['element'] === element).map((r) => String(r['id'])).sort();
    expect([...drawn.nodes].sort()).toEqual(ids('node'));
    expect([...drawn.edges].sort()).toEqual(ids('edge'));
    expect(drawn.nodes.length).toBeGreaterThan(1);
    expect(await page.getByTestId('graph-nodes').locator('tbody tr').count()).toBe(drawn.nodes.length);
    await shot(page, 'i39-checkpoint-graph');
    expect(await axeProblems(page)).toEqual([]);

    // Expand the last node of the table: the picture becomes the union with that node's one-hop neighbourhood.
    const last = drawn.nodes[drawn.nodes.length - 1]!;
    const grow = tableFromIPC((await call('graph.neighbourhood', { view, node_uuid: last, depth: 1 }) as ArrowResult).bytes).toArray().map((r) => r.toJSON() as Record<string, unknown>);
    const union = new Set([...drawn.nodes, ...grow.filter((r) => r['element'] === 'node').map((r) => String(r['id']))]);
    await page.locator(`[data-testid="graph-nodes"] tr[data-node="${last}"]`).getByRole('button', { name: /^Expand/ }).click();
    await page.waitForFunction((n) => ((document.querySelector('[data-testid="graph-canvas"]') as unknown as Record<string, GraphData> | null)?.['__gfPicture']?.nodes.length ?? 0) === n, union.size);
    const grown = await pictureOf<GraphData>('graph-canvas');
    expect(new Set(grown.nodes)).toEqual(union);
    // Opening a node shows its record.
    await page.locator(`[data-testid="graph-nodes"] tr[data-node="${start}"]`).getByRole('button', { name: /^Open/ }).click();
    await page.getByTestId('graph-record').getByText(start).waitFor();
    await call('view.close', { view });
  });

  it('the graph of "Graph imported" → CURRENT draws exactly the changed nodes of the record diff\'s graph families, with an honest count, and a node jumps to its record-diff row', async () => {
    await page.goto(app.link(`#/diff?from=${encodeURIComponent(FROM)}&to=CURRENT`));
    await page.getByTestId('diff-graph-show').click();
    await page.getByTestId('diff-graph').waitFor();
    const drawn = await pictureOf<GraphData>('diff-graph-canvas');
    // The record diff of each graph family, every page, as the Diff screen's own table reads it.
    const changes = new Map<string, string>();
    let total = 0;
    for (const family of ['node', 'edge'] as const) {
      let after: string | null = null;
      do {
        const r: ArrowResult = await call('checkpoints.diff', { project: app.project, from: FROM, to: 'CURRENT', scope: 'graph', detail: 'records', record_family_id: family, display: true, limit: 10000, ...(after === null ? {} : { after }) }) as ArrowResult;
        for (const row of tableFromIPC(r.bytes).toArray().map((x) => x.toJSON() as Record<string, unknown>)) {
          total++;
          if (family === 'node') changes.set(uuidText(row['record_uuid']), String(row['change_kind']));
        }
        after = r.next_page_token;
      } while (after !== null);
    }
    expect(total).toBeGreaterThan(0);
    expect(new Map(Object.entries(drawn.changes))).toEqual(changes);
    expect(await page.getByTestId('diff-graph-count').textContent()).toContain(`of ${total.toLocaleString('en-US')}`);
    await shot(page, 'i39-diff-graph');
    expect(await axeProblems(page)).toEqual([]);
    // The last changed node's row button opens the record diff of graph/node at that row.
    const jump = page.getByTestId('diff-graph-changes').locator('tr[data-node]').last().getByRole('button');
    const row = Number((await jump.textContent())?.replace(/\D/g, ''));
    expect(row).toBeGreaterThan(1);
    await jump.click();
    await page.waitForFunction((r) => /family=graph%2Fnode/.test(location.hash) && new RegExp(`row=${r}(&|$)`).test(location.hash), row);
    await shot(page, 'i39-diff-graph-jump');
  });
  it('the ledger of the tampered workflow is a path through the closed state set, each edge as often as the chain has it, the break where verify finds it', async () => {
    const { results } = await call('chain.verify', { project: app.project });
    const broken = results.find((r) => r.status === 'chain_mismatch');
    expect(broken).toBeDefined();
    const events: JsonResults['chain.read']['events'][number][] = [];
    let after: string | null = null;
    do {
      const r: JsonResults['chain.read'] = await call('chain.read', { project: app.project, workflow_id: broken!.workflow_id, limit: 200, ...(after === null ? {} : { after }) });
      events.push(...r.events);
      after = r.next_page_token;
    } while (after !== null);
    await page.goto(app.link(`#/ledgers?workflow=${encodeURIComponent(broken!.workflow_id)}`));
    const path = page.getByTestId('ledger-path');
    await path.and(page.locator(`[data-first-bad="${broken!.first_bad_sequence}"]`)).waitFor();
    const counts = new Map<string, number>();
    for (const e of events) counts.set(`${e.prior_state_id}>${e.next_state_id}`, (counts.get(`${e.prior_state_id}>${e.next_state_id}`) ?? 0) + 1);
    const drawn = await path.locator('[data-edge]').evaluateAll((gs) => gs.map((g) => [g.getAttribute('data-edge'), Number(g.getAttribute('data-ok')) + Number(g.getAttribute('data-broken'))] as const));
    expect(new Map(drawn)).toEqual(counts);
    const brokenDrawn = await path.locator('[data-edge]').evaluateAll((gs) => gs.reduce((n, g) => n + Number(g.getAttribute('data-broken')), 0));
    expect(brokenDrawn).toBe(events.filter((e) => e.sequence >= broken!.first_bad_sequence!).length);
    expect(await path.locator('[data-state]').count()).toBe(7);
    await page.getByTestId('ledger-path-break').waitFor();
    await shot(page, 'i39-ledger-path');
    expect(await axeProblems(page)).toEqual([]);
  });
});
