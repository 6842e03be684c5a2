// The graph layout off the main thread: ForceAtlas2 (graphology's own
// implementation) over the nodes and edges it is sent, positions back.
import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import type { LayoutRequest, LayoutAnswer } from './layout';

self.onmessage = (e: MessageEvent<LayoutRequest>) => {
  const { nodes, edges, iterations, id } = e.data;
  const g = new Graph({ multi: true, type: 'directed' });
  for (const n of nodes) g.addNode(n.id, { x: n.x, y: n.y });
  for (const [s, t] of edges) if (g.hasNode(s) && g.hasNode(t)) g.addEdge(s, t);
  forceAtlas2.assign(g, { iterations, settings: { ...forceAtlas2.inferSettings(g), barnesHutOptimize: g.order > 500 } });
  const positions: Record<string, [number, number]> = {};
  g.forEachNode((n, a) => (positions[n] = [a['x'] as number, a['y'] as number]));
  const answer: LayoutAnswer = { id, positions };
  (self as unknown as Worker).postMessage(answer);
};
