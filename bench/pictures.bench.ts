// The pictures in Chromium (browser mode through `gf serve`), and the engine's
// neighbourhood query behind them:
// - ui.graph: first draw of a 2,000-node neighbourhood of the demo (10,000
//   records `small`, 1,000,000 `large`), from the click on the found node to
//   sigma's first rendered frame (target ≤ 500 ms);
// - ui.timeline: the history timeline of a workspace with 1,000 (`small`) or
//   10,000 (`large`) lineage entries, from the moment History has the lineage
//   to the timeline's first drawn frame (target ≤ 300 ms), and from the page's
//   navigation start;
// - graph.neighbourhood: the engine's 2,000-node neighbourhood query on the
//   demo at the size asked (`huge`: 10M records) and at the size ten times
//   smaller, side by side in one run (target: 10M within 1.5× of 1M).
// Targets are printed beside the figures as ratios (≤ 1 within target); nothing is asserted.
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import type { Page } from 'playwright-core';
import { createFacade, type Facade } from '../core/api/facade';
import { Checkpoints, openCheckpointedProject } from '../core/checkpoints/checkpoints';
import type { ArrowResult } from '../core/contract/operations';
import { GRAPH_LIMITS } from '../core/contract/graph';
import { unwrapEnvelope } from '../core/contract/wire';
import { configurationChange, nodesChange } from './pictures-data';
import { ROOT, ensureBuilt, launchChromium, startServe, type BrowserHandle, type ServeHandle } from '../e2e/support/browser';
import { defineBench, type BenchSize } from './harness';
import { createDemo } from './ui/workspaces';
import { createProject } from '../core/project/index';
import { registryCatalog } from '../core/participants/index';

const GRAPH_RECORDS: Readonly<Record<BenchSize, number>> = { tiny: 1_000, small: 10_000, large: 1_000_000 };
const TIMELINE_ENTRIES: Readonly<Record<BenchSize, number>> = { tiny: 100, small: 1_000, large: 10_000 };
const TARGET_GRAPH_MS = 500;
const TARGET_TIMELINE_MS = 300;
const CHECKPOINT = 'Graph imported';
const STEP_TIMEOUT_MS = 120_000;

/** Records the time (performance.now) an element with data-testid `id` gets `data-drawn="true"` and when `arrived` testid first shows. */
function drawProbe(): string {
  return `(() => {
    const w = window;
    w.__gfPictures = { drawn: {}, seen: {} };
    const look = () => {
      for (const el of document.querySelectorAll('[data-drawn="true"][data-testid]')) {
        const id = el.getAttribute('data-testid');
        if (w.__gfPictures.drawn[id] === undefined) w.__gfPictures.drawn[id] = performance.now();
      }
      for (const id of ['generation-count', 'graph-match']) {
        if (w.__gfPictures.seen[id] === undefined && document.querySelector('[data-testid="' + id + '"]') !== null) w.__gfPictures.seen[id] = performance.now();
      }
    };
    new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-drawn'] });
    document.addEventListener('click', () => { w.__gfPictures.clickAt = performance.now(); }, true);
  })();`;
}

interface Probe {
  readonly drawn: Readonly<Record<string, number>>;
  readonly seen: Readonly<Record<string, number>>;
  readonly clickAt?: number;
}
const probe = (page: Page): Promise<Probe> => page.evaluate(() => (window as unknown as { __gfPictures: Probe }).__gfPictures);

async function newPage(browser: BrowserHandle, url: string): Promise<Page> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  await page.addInitScript({ content: drawProbe() });
  await page.goto(url);
  return page;
}

async function engineCall<T>(facade: Facade, op: string, req: unknown): Promise<T> {
  return unwrapEnvelope(await facade.dispatcher.dispatch(op as never, req)) as T;
}

/** The node whose breadth-first neighbourhood fills a page first, found through the engine (the label the bench types). */
async function startLabel(dir: string): Promise<string> {
  const facade = createFacade({ mode: 'library' });
  try {
    const project = (await engineCall<{ project: string }>(facade, 'project.open', { path: dir })).project;
    const { view } = await engineCall<{ view: string }>(facade, 'view.open', { project, name: CHECKPOINT });
    const found = tableFromIPC((await engineCall<ArrowResult>(facade, 'graph.find_nodes', { view, text: 'Paper 1', limit: 1 })).bytes);
    return String(found.get(0)?.toJSON()['label']);
  } finally {
    await facade.close();
  }
}

interface GraphState {
  readonly browser: BrowserHandle;
  readonly serve: ServeHandle;
  readonly label: string;
  /** Records of the demo the picture is drawn from (what `gf demo create --records` was asked for). */
  readonly records: number;
}

/** Builds a workspace whose lineage has `entries` records: a first generation of a few nodes, then configuration publications, every 100th named. */
async function lineageWorkspace(dir: string, entries: number): Promise<void> {
  await createProject(dir, { catalog: registryCatalog });
  const p = await openCheckpointedProject(dir);
  const cps = new Checkpoints(p, { clock: () => 1_767_225_600_000_000 });
  let parent = (await p.publish({ parent: null, changes: [nodesChange(50)] })).generationUuid;
  for (let i = 1; i < entries; i++) {
    parent = (await p.publish({ parent, changes: [configurationChange(i)] })).generationUuid;
    if (i % 100 === 0) await cps.checkpoint({ name: `mark ${i}`, idempotencyKey: crypto.randomUUID() });
  }
}

/** Demo sizes of the engine's neighbourhood bench per run size: the size asked and ten times smaller. */
// `tiny` checks set-up and figures only: each side needs a full page of nodes (a 1,000-record demo has 400 nodes).
const QUERY_RECORDS = { tiny: [10_000, 20_000], small: [10_000, 100_000], large: [100_000, 1_000_000], huge: [1_000_000, 10_000_000] } as const;

interface QueryState {
  readonly facades: readonly Facade[];
  readonly sides: readonly { readonly view: string; readonly start: string; readonly records: number; readonly indexMs: number }[];
}

/** Opens `dir`'s checkpoint in a facade and finds the start node; the first query (which builds the view's index) is timed apart. */
async function querySide(dir: string, records: number): Promise<{ facade: Facade; side: QueryState['sides'][number] }> {
  const facade = createFacade({ mode: 'library' });
  const project = (await engineCall<{ project: string }>(facade, 'project.open', { path: dir })).project;
  const { view } = await engineCall<{ view: string }>(facade, 'view.open', { project, name: CHECKPOINT });
  const found = tableFromIPC((await engineCall<ArrowResult>(facade, 'graph.find_nodes', { view, text: 'Paper 1', limit: 1 })).bytes);
  const start = String(found.get(0)?.toJSON()['id']);
  const t0 = performance.now();
  await engineCall<ArrowResult>(facade, 'graph.neighbourhood', { view, node_uuid: start, depth: GRAPH_LIMITS.maxDepth });
  return { facade, side: { view, start, records, indexMs: performance.now() - t0 } };
}

export const benchmarks = [
  defineBench<QueryState>({
    id: 'graph.neighbourhood',
    results: { 'graph.neighbourhood_small_ms': 'ms', 'graph.neighbourhood_big_ms': 'ms', 'graph.neighbourhood_first_big_ms': 'ms', 'graph.neighbourhood_big_records': 'records', 'graph.target_ratio': 'ratio' },
    ratios: [{ id: 'graph.neighbourhood_big_over_small', numerator: 'graph.neighbourhood_big_ms', denominator: 'graph.neighbourhood_small_ms' }],
    sizes: ['small', 'large', 'huge'],
    runs: 5,
    async setup({ scale, tmpDir }) {
      const facades: Facade[] = [];
      const sides: QueryState['sides'][number][] = [];
      for (const records of QUERY_RECORDS[scale]) {
        const dir = join(tmpDir, `demo-${records}`);
        const ms = createDemo(ROOT, dir, records);
        const { facade, side } = await querySide(dir, records);
        console.error(`graph.neighbourhood bench: demo of ${records} records in ${Math.round(ms)} ms; first query (builds the view's index) ${Math.round(side.indexMs)} ms`);
        facades.push(facade);
        sides.push(side);
      }
      return { facades, sides };
    },
    async run(state) {
      const ms: number[] = [];
      for (let k = 0; k < state.sides.length; k++) {
        const side = state.sides[k]!;
        const t0 = performance.now();
        const r = await engineCall<ArrowResult>(state.facades[k]!, 'graph.neighbourhood', { view: side.view, node_uuid: side.start, depth: GRAPH_LIMITS.maxDepth });
        ms.push(performance.now() - t0);
        const nodes = tableFromIPC(r.bytes).toArray().filter((x) => x.toJSON()['element'] === 'node').length;
        if (nodes !== GRAPH_LIMITS.maxNodes) throw new Error(`graph.neighbourhood bench: ${nodes} nodes at ${side.records} records, expected a full page`);
      }
      return {
        'graph.neighbourhood_small_ms': ms[0]!,
        'graph.neighbourhood_big_ms': ms[1]!,
        'graph.neighbourhood_first_big_ms': state.sides[1]!.indexMs,
        'graph.neighbourhood_big_records': state.sides[1]!.records,
        'graph.target_ratio': 1.5,
      };
    },
    async teardown(state) {
      for (const f of state.facades) await f.close();
    },
  }),
  defineBench<GraphState>({
    id: 'ui.graph',
    results: { 'ui.graph_first_draw_ms': 'ms', 'ui.graph_nodes': 'nodes', 'ui.graph_edges': 'edges', 'ui.target_graph_ms': 'ms', 'ui.graph_demo_records': 'records' },
    ratios: [{ id: 'ui.graph_over_target', numerator: 'ui.graph_first_draw_ms', denominator: 'ui.target_graph_ms' }],
    runs: 3,
    async setup({ size, tmpDir }) {
      ensureBuilt();
      const dir = join(tmpDir, 'demo');
      const ms = createDemo(ROOT, dir, GRAPH_RECORDS[size]);
      console.error(`ui.graph bench: gf demo create --records ${GRAPH_RECORDS[size]} took ${Math.round(ms)} ms`);
      return { browser: await launchChromium(), serve: await startServe(['--project', dir]), label: await startLabel(dir), records: GRAPH_RECORDS[size] };
    },
    async run(state) {
      const page = await newPage(state.browser, `${state.serve.url}#/checkpoint?name=${encodeURIComponent(CHECKPOINT)}`);
      try {
        await page.getByTestId('graph-depth').selectOption(String(GRAPH_LIMITS.maxDepth));
        await page.getByTestId('graph-find').fill(state.label);
        await page.getByTestId('graph-find').press('Enter');
        const match = page.getByTestId('graph-match').filter({ hasText: state.label }).first();
        await match.waitFor();
        await match.click();
        await page.locator('[data-testid="graph-canvas"][data-drawn="true"]').waitFor();
        const p = await probe(page);
        const drawn = await page.getByTestId('graph-canvas').evaluate((e) => (e as unknown as Record<string, { nodes: string[]; edges: string[] }>)['__gfPicture']);
        const ms = (p.drawn['graph-canvas'] ?? Number.NaN) - (p.clickAt ?? Number.NaN);
        console.error(`ui.graph bench: ${drawn?.nodes.length} nodes, ${drawn?.edges.length} edges drawn ${Math.round(ms)} ms after the click (target ${TARGET_GRAPH_MS})`);
        return { 'ui.graph_first_draw_ms': ms, 'ui.graph_nodes': drawn?.nodes.length ?? 0, 'ui.graph_edges': drawn?.edges.length ?? 0, 'ui.target_graph_ms': TARGET_GRAPH_MS, 'ui.graph_demo_records': state.records };
      } finally {
        await page.close();
      }
    },
    async teardown(state) {
      await state.browser.close();
      await state.serve.stop();
    },
  }),
  defineBench<{ readonly browser: BrowserHandle; readonly serve: ServeHandle; readonly entries: number }>({
    id: 'ui.timeline',
    results: { 'ui.timeline_first_draw_ms': 'ms', 'ui.timeline_open_ms': 'ms', 'ui.timeline_entries': 'entries', 'ui.target_timeline_ms': 'ms' },
    ratios: [{ id: 'ui.timeline_over_target', numerator: 'ui.timeline_first_draw_ms', denominator: 'ui.target_timeline_ms' }],
    runs: 3,
    async setup({ size, tmpDir }) {
      ensureBuilt();
      const dir = join(tmpDir, 'lineage');
      const t0 = performance.now();
      await lineageWorkspace(dir, TIMELINE_ENTRIES[size]);
      console.error(`ui.timeline bench: ${TIMELINE_ENTRIES[size]} publications in ${Math.round(performance.now() - t0)} ms`);
      return { browser: await launchChromium(), serve: await startServe(['--project', dir]), entries: TIMELINE_ENTRIES[size] };
    },
    async run(state) {
      const page = await newPage(state.browser, `${state.serve.url}#/history`);
      try {
        await page.locator('[data-testid="history-timeline"][data-drawn="true"]').waitFor();
        const p = await probe(page);
        const marks = await page.getByTestId('history-timeline').evaluate((e) => (e as unknown as Record<string, { marks: unknown[] }>)['__gfPicture']?.marks.length ?? 0);
        if (marks !== state.entries) throw new Error(`ui.timeline bench: ${marks} marks drawn, expected ${state.entries}`);
        const drawn = p.drawn['history-timeline'] ?? Number.NaN;
        const ms = drawn - (p.seen['generation-count'] ?? Number.NaN);
        console.error(`ui.timeline bench: ${marks} marks drawn ${Math.round(ms)} ms after History had the lineage (target ${TARGET_TIMELINE_MS}); ${Math.round(drawn)} ms after navigation start`);
        return { 'ui.timeline_first_draw_ms': ms, 'ui.timeline_open_ms': drawn, 'ui.timeline_entries': marks, 'ui.target_timeline_ms': TARGET_TIMELINE_MS };
      } finally {
        await page.close();
      }
    },
    async teardown(state) {
      await state.browser.close();
      await state.serve.stop();
    },
  }),
];
