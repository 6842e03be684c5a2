// Runs the picture's layout in a module worker (./layout-worker.ts, served
// from the app itself, so the content security policy's `worker-src 'self'`
// admits it). Where no worker can start (a page that forbids it), the same
// ForceAtlas2 runs here in slices between frames, and the picture says so.
import type Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';

/** What the worker is sent: positions to start from, the edges, how many iterations. */
export interface LayoutRequest {
  readonly id: number;
  readonly nodes: readonly { readonly id: string; readonly x: number; readonly y: number }[];
  readonly edges: readonly (readonly [string, string])[];
  readonly iterations: number;
}

/** What the worker answers: a position per node. */
export interface LayoutAnswer {
  readonly id: number;
  readonly positions: Readonly<Record<string, readonly [number, number]>>;
}

/** Iterations of one layout run (enough for a few thousand nodes to settle). */
export const LAYOUT_ITERATIONS = 200;

let worker: Worker | null | undefined;
let next = 1;

function layoutWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    worker = new Worker(new URL('./layout-worker.ts', import.meta.url), { type: 'module' });
    worker.addEventListener('error', () => {
      worker?.terminate();
      worker = null;
    });
  } catch {
    worker = null;
  }
  return worker;
}

/** Where a layout ran: a worker, or this thread when no worker could start. */
export type LayoutThread = 'worker' | 'main';

/**
 * Lays `graph` out (positions written into its x/y attributes) and resolves
 * when done; `signal` drops a stale run (its answer is ignored).
 */
export function layoutGraph(graph: Graph, signal: AbortSignal): Promise<LayoutThread> {
  const w = layoutWorker();
  const id = next++;
  if (w === null) return layoutHere(graph, signal);
  const nodes = graph.mapNodes((n, a) => ({ id: n, x: Number(a['x']), y: Number(a['y']) }));
  const edges = graph.mapEdges((_e, _a, s, t) => [s, t] as const);
  return new Promise<LayoutThread>((resolve) => {
    const onMessage = (e: MessageEvent<LayoutAnswer>) => {
      if (e.data.id !== id) return;
      w.removeEventListener('message', onMessage);
      w.removeEventListener('error', onError);
      if (!signal.aborted) {
        for (const [n, [x, y]] of Object.entries(e.data.positions)) if (graph.hasNode(n)) graph.mergeNodeAttributes(n, { x, y });
      }
      resolve('worker');
    };
    const onError = () => {
      w.removeEventListener('message', onMessage);
      resolve(layoutHere(graph, signal));
    };
    w.addEventListener('message', onMessage);
    w.addEventListener('error', onError);
    const request: LayoutRequest = { id, nodes, edges, iterations: LAYOUT_ITERATIONS };
    w.postMessage(request);
  });
}

/** The fallback: the same layout on this thread, a few iterations per frame. */
async function layoutHere(graph: Graph, signal: AbortSignal): Promise<LayoutThread> {
  const settings = { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: graph.order > 500 };
  for (let done = 0; done < LAYOUT_ITERATIONS && !signal.aborted; done += 10) {
    forceAtlas2.assign(graph, { iterations: 10, settings });
    await new Promise<void>((r) => requestAnimationFrame(() => r()));
  }
  return 'main';
}
