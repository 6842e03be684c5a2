// A graph picture: sigma.js (WebGL) over a graphology graph built from a
// graph page exactly as the engine answered it, laid out by ForceAtlas2 off
// the main thread (./layout.ts). Nodes coloured by kind (a checkpoint's
// graph) or by change kind (a diff graph), labelled; edges by relation.
import { useEffect, useRef, useState } from 'react';
import Graph from 'graphology';
import type Sigma from 'sigma';
import type { GraphEdge, GraphNode } from './graph-elements';
import { layoutGraph, type LayoutThread } from './layout';
import { setPictureData, themeColour } from './picture-data';

/** Colours of node kinds (classes), cycled for kinds beyond the list; chosen to read on both themes. */
const KIND_COLOURS = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#9c755f', '#edc948', '#76b7b2', '#ff9da7'] as const;
/** Colours of change kinds (the diff's own vocabulary). */
export const CHANGE_COLOURS: Readonly<Record<string, string>> = { added: '#2da44e', removed: '#cf222e', modified: '#d4a72c' };
const CONTEXT_COLOUR = '#8c959f';

/** The colour of each node kind, in first-seen order (the legend shows the same). */
export function kindColours(nodes: readonly GraphNode[]): ReadonlyMap<string, string> {
  const m = new Map<string, string>();
  for (const n of nodes) if (!m.has(n.classId)) m.set(n.classId, KIND_COLOURS[m.size % KIND_COLOURS.length] as string);
  return m;
}

/** Where a node starts before the layout: on a ring by depth (a neighbourhood) or by its place in the page. */
function start(n: GraphNode, i: number, count: number): { x: number; y: number } {
  const ring = n.depth ?? 1 + (i % 3);
  const angle = (2 * Math.PI * i) / Math.max(1, count) + ring;
  return { x: ring * Math.cos(angle) * 10, y: ring * Math.sin(angle) * 10 };
}

/** Props of a graph picture. */
export interface GraphCanvasProps {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  readonly colourBy: 'kind' | 'change';
  /** The focused node (outlined and centred). */
  readonly focused: string | null;
  readonly onNodeClick: (id: string) => void;
  readonly onNodeExpand?: (id: string) => void;
  readonly onHover?: (id: string | null) => void;
  readonly label: string;
  readonly testId: string;
}

/** The WebGL picture of one graph page. */
export function GraphCanvas({ nodes, edges, colourBy, focused, onNodeClick, onNodeExpand, onHover, label, testId }: GraphCanvasProps) {
  const box = useRef<HTMLDivElement | null>(null);
  const sigma = useRef<Sigma | null>(null);
  const handlers = useRef({ onNodeClick, onNodeExpand, onHover });
  handlers.current = { onNodeClick, onNodeExpand, onHover };
  const [thread, setThread] = useState<LayoutThread | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    const el = box.current;
    if (el === null) return undefined;
    const colours = kindColours(nodes);
    const graph = new Graph({ multi: true, type: 'directed' });
    nodes.forEach((n, i) => {
      const colour = colourBy === 'change' ? (n.change === null ? CONTEXT_COLOUR : CHANGE_COLOURS[n.change] ?? CONTEXT_COLOUR) : (colours.get(n.classId) ?? CONTEXT_COLOUR);
      graph.addNode(n.id, { ...start(n, i, nodes.length), label: n.label, size: n.change === null && colourBy === 'change' ? 3 : n.depth === 0 ? 8 : 5, color: colour });
    });
    for (const e of edges) {
      if (!graph.hasNode(e.source) || !graph.hasNode(e.target)) continue;
      const colour = colourBy === 'change' && e.change !== null ? (CHANGE_COLOURS[e.change] ?? CONTEXT_COLOUR) : themeColour('--border', '#d0d7de');
      graph.addDirectedEdgeWithKey(e.id, e.source, e.target, { label: e.relation, size: e.change === null ? 1 : 2, color: colour });
    }
    const publish = (drawn: boolean) =>
      setPictureData(el, { kind: 'graph', nodes: graph.nodes(), edges: graph.edges(), changes: Object.fromEntries(nodes.filter((n) => n.change !== null).map((n) => [n.id, n.change as string])), drawn });
    publish(false);
    let gone = false;
    let stop: (() => void) | null = null;
    // sigma loads with the picture (not with the screen): a browser without WebGL still shows the table.
    import('sigma').then(({ default: SigmaRenderer }) => {
      if (gone) return;
      let renderer: Sigma;
      try {
        renderer = new SigmaRenderer(graph, el, {
          defaultEdgeType: 'arrow',
          labelColor: { color: themeColour('--fg', '#1b1f24') },
          // Every label while the picture is small enough to read them; sigma hides crowded ones itself.
          labelRenderedSizeThreshold: nodes.length <= 300 ? 0 : 6,
          labelDensity: 1,
          renderEdgeLabels: false,
          zIndex: true,
        });
      } catch (e) {
        setFailure(e instanceof Error ? e.message : String(e));
        return;
      }
      sigma.current = renderer;
      // Sigma draws its first frame inside its constructor (no 'afterRender' reaches a listener added
      // later); the frame that shows it is produced before the second animation frame from now runs. The
      // layout starts then: on a software GPU (no hardware WebGL) the worker's ForceAtlas2 would otherwise
      // take the core that draws the first frame.
      const layout = new AbortController();
      const afterNextFrame = (f: () => void) => requestAnimationFrame(() => requestAnimationFrame(f));
      afterNextFrame(() => {
        if (layout.signal.aborted) return;
        el.dataset['drawn'] = 'true';
        publish(true);
        if (graph.order > 1) {
          void layoutGraph(graph, layout.signal).then((t) => {
            if (layout.signal.aborted) return;
            setThread(t);
            renderer.refresh();
          });
        }
      });
      renderer.on('clickNode', ({ node }) => handlers.current.onNodeClick(node));
      renderer.on('doubleClickNode', (e) => {
        e.preventSigmaDefault();
        handlers.current.onNodeExpand?.(e.node);
      });
      renderer.on('enterNode', ({ node }) => handlers.current.onHover?.(node));
      renderer.on('leaveNode', () => handlers.current.onHover?.(null));
      stop = () => {
        layout.abort();
        renderer.kill();
        sigma.current = null;
      };
    }).catch((e: unknown) => setFailure(e instanceof Error ? e.message : String(e)));
    return () => {
      gone = true;
      stop?.();
      delete el.dataset['drawn'];
    };
  }, [nodes, edges, colourBy]);

  useEffect(() => {
    const s = sigma.current;
    if (s === null) return;
    s.setSetting('nodeReducer', (n, a) => (n === focused ? { ...a, highlighted: true, size: (a['size'] as number) + 3 } : a));
  }, [focused, nodes, edges]);

  return (
    <div className="graph-picture">
      <div ref={box} className="graph-canvas" role="img" aria-label={label} data-testid={testId} />
      <p className="muted small" data-testid={`${testId}-status`}>
        {failure !== null
          ? `The picture cannot be drawn here (${failure}); the table lists the same nodes and edges.`
          : `${nodes.length.toLocaleString('en-US')} nodes, ${edges.length.toLocaleString('en-US')} edges${thread === 'main' ? ' · laid out on the main thread (no worker could start)' : ''}. Drag to pan, scroll to zoom; click a node to open it${onNodeExpand === undefined ? '' : ', double-click to expand it'}.`}
      </p>
    </div>
  );
}
