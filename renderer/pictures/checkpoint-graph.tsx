// The graph at a checkpoint: find a node (label or UUID), draw its
// neighbourhood to a chosen depth as the engine answers it (at most 2,000
// nodes a page, more on request), open a node's record, expand a node to grow
// the picture. The table beside lists exactly what the picture draws.
import { useMemo, useState, type FormEvent } from 'react';
import { GRAPH_LIMITS } from '../../core/contract/graph';
import { decodeArrow, type DecodedPage } from '../arrow-rows';
import { ErrorBox } from '../components/error-box';
import { showError, type ShownError } from '../errors-text';
import { useQuery, withOperation } from '../hooks';
import { invoke } from '../invoke';
import { GraphCanvas, kindColours } from './graph-canvas';
import { graphPage, type GraphEdge, type GraphNode } from './graph-elements';

/** The depths offered (hops); the node cap bounds every one of them. */
const DEPTHS = [1, 2, 3, 4, 6, 10, 25, 100, GRAPH_LIMITS.maxDepth].filter((d) => d <= GRAPH_LIMITS.maxDepth);

/** Nodes and edges drawn so far (pages and expansions merged, each id once, in arrival order). */
interface Drawn {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  readonly next: string | null;
}

function merge(a: Drawn, b: Drawn): Drawn {
  const seenN = new Set(a.nodes.map((n) => n.id));
  const seenE = new Set(a.edges.map((e) => e.id));
  return { nodes: [...a.nodes, ...b.nodes.filter((n) => !seenN.has(n.id))], edges: [...a.edges, ...b.edges.filter((e) => !seenE.has(e.id))], next: a.next };
}

/** The graph panel of a checkpoint view (shown when the checkpoint has graph nodes). */
export function CheckpointGraphPanel({ view }: { readonly view: string }) {
  const [text, setText] = useState('');
  const [search, setSearch] = useState<string | null>(null);
  const [start, setStart] = useState<string | null>(null);
  const [depth, setDepth] = useState<number>(GRAPH_LIMITS.defaultDepth);
  const [extra, setExtra] = useState<Drawn | null>(null);
  const [focused, setFocused] = useState<string | null>(null);
  const [record, setRecord] = useState<{ readonly id: string; readonly page: DecodedPage } | null>(null);
  const [actionError, setActionError] = useState<ShownError | null>(null);
  const [busy, setBusy] = useState(false);

  const found = useQuery(search === null ? null : `${view}|${search}`, async () => {
    const page = await invoke('graph.find_nodes', { view, text: search ?? '', limit: GRAPH_LIMITS.findMax });
    return graphPage(page.bytes, null).nodes;
  });
  const hood = useQuery(start === null ? null : `${view}|${start}|${depth}`, (signal) =>
    withOperation(signal, async (operation_id) => {
      setExtra(null);
      const page = await invoke('graph.neighbourhood', { view, node_uuid: start ?? '', depth, operation_id });
      return graphPage(page.bytes, page.next_page_token);
    }),
  );
  const drawn: Drawn | null = useMemo(() => {
    if (hood.data === null) return null;
    const base: Drawn = { nodes: hood.data.nodes, edges: hood.data.edges, next: hood.data.next };
    return extra === null ? base : { ...merge(base, extra), next: extra.next };
  }, [hood.data, extra]);
  const colours = useMemo(() => kindColours(drawn?.nodes ?? []), [drawn]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const t = text.trim();
    if (t !== '') setSearch(t.slice(0, GRAPH_LIMITS.findTextMax));
  };
  const run = async (f: () => Promise<void>) => {
    setBusy(true);
    setActionError(null);
    try {
      await f();
    } catch (err) {
      setActionError(showError(err));
    } finally {
      setBusy(false);
    }
  };
  const more = () =>
    void run(async () => {
      if (drawn?.next === null || drawn === null || start === null) return;
      const page = await invoke('graph.neighbourhood', { view, node_uuid: start, depth, after: drawn.next });
      const p = graphPage(page.bytes, page.next_page_token);
      setExtra((x) => ({ ...merge(x ?? { nodes: [], edges: [], next: null }, p), next: p.next }));
    });
  const expand = (id: string) =>
    void run(async () => {
      const page = await invoke('graph.neighbourhood', { view, node_uuid: id, depth: 1 });
      const p = graphPage(page.bytes, null);
      setExtra((x) => ({ ...merge(x ?? { nodes: [], edges: [], next: drawn?.next ?? null }, p), next: x?.next ?? drawn?.next ?? null }));
      setFocused(id);
    });
  const open = (id: string) =>
    void run(async () => {
      setFocused(id);
      const page = await invoke('view.record', { view, capability_id: 'graph', record_family_id: 'node', identity: { node_uuid: id } });
      setRecord({ id, page: decodeArrow(page.bytes, 'view.record') });
    });

  return (
    <section className="stack graph-panel" aria-labelledby="graph-title" data-testid="checkpoint-graph">
      <h3 id="graph-title">Graph around a node</h3>
      <form className="row-form" role="search" aria-label="Find a node" onSubmit={submit}>
        <label htmlFor="graph-find">Node label or UUID</label>
        <input id="graph-find" type="search" value={text} onChange={(e) => setText(e.target.value)} autoComplete="off" maxLength={GRAPH_LIMITS.findTextMax} data-testid="graph-find" />
        <button type="submit">Find</button>
        <label htmlFor="graph-depth">Depth</label>
        <select id="graph-depth" value={depth} onChange={(e) => setDepth(Number(e.target.value))} data-testid="graph-depth">
          {DEPTHS.map((d) => <option key={d} value={d}>{d} {d === 1 ? 'hop' : 'hops'}</option>)}
        </select>
      </form>
      {found.error !== null && <ErrorBox error={found.error} testId="graph-find-error" />}
      {found.data !== null && (
        found.data.length === 0 ? <p className="muted" data-testid="graph-no-match">No node matches “{search}”.</p> : (
          <ul className="plain-list graph-matches" aria-label="Matching nodes" data-testid="graph-matches">
            {found.data.map((n) => (
              <li key={n.id}>
                <button type="button" className="link" aria-pressed={start === n.id} onClick={() => (setStart(n.id), setFocused(n.id), setRecord(null))} data-testid="graph-match">
                  {n.label} <span className="muted small">({n.classId})</span>
                </button>
              </li>
            ))}
            {found.data.length === GRAPH_LIMITS.findMax && <li className="muted small">The first {GRAPH_LIMITS.findMax} matches; type more to narrow.</li>}
          </ul>
        )
      )}
      {hood.error !== null && <ErrorBox error={hood.error} testId="graph-error" />}
      {actionError !== null && <ErrorBox error={actionError} testId="graph-action-error" />}
      {start !== null && drawn === null && hood.error === null && <p className="muted" role="status">Reading the neighbourhood…</p>}
      {drawn !== null && (
        <div className="graph-split">
          <GraphCanvas
            nodes={drawn.nodes}
            edges={drawn.edges}
            colourBy="kind"
            focused={focused}
            onNodeClick={open}
            onNodeExpand={expand}
            label={`Graph of ${drawn.nodes.length} nodes and ${drawn.edges.length} edges around ${drawn.nodes[0]?.label ?? 'the node'}, to ${depth} ${depth === 1 ? 'hop' : 'hops'}; the table beside lists them`}
            testId="graph-canvas"
          />
          <div className="stack graph-side">
            <p role="status" data-testid="graph-count">
              {drawn.nodes.length.toLocaleString('en-US')} nodes and {drawn.edges.length.toLocaleString('en-US')} edges
              {drawn.next !== null && <> · more nodes within {depth} {depth === 1 ? 'hop' : 'hops'} <button type="button" onClick={more} disabled={busy} data-testid="graph-more">Show {GRAPH_LIMITS.maxNodes.toLocaleString('en-US')} more</button></>}
            </p>
            <ul className="plain-list legend" aria-label="Node kinds">
              {[...colours].map(([k, c]) => <li key={k}><span className="swatch" style={{ background: c }} aria-hidden="true" /> {k}</li>)}
            </ul>
            {record !== null && (
              <div data-testid="graph-record" aria-live="polite">
                <h4>Record</h4>
                {record.page.rows.length === 0 ? <p>No record.</p> : (
                  <dl className="record-fields">
                    {record.page.columns.map((c) => <div key={c}><dt>{c}</dt><dd className="mono">{record.page.rows[0]?.[c] ?? '—'}</dd></div>)}
                  </dl>
                )}
              </div>
            )}
            <div className="graph-table-wrap">
              <table className="graph-table" data-testid="graph-nodes">
                <caption className="sr-only">Nodes drawn, in the engine's order (breadth first)</caption>
                <thead><tr><th scope="col">node</th><th scope="col">kind</th><th scope="col">hops</th><th scope="col">actions</th></tr></thead>
                <tbody>
                  {drawn.nodes.map((n) => (
                    <tr key={n.id} className={focused === n.id ? 'is-selected' : undefined} data-node={n.id}>
                      <td title={n.id}>{n.label}</td>
                      <td>{n.classId}</td>
                      <td>{n.depth ?? '—'}</td>
                      <td className="row-actions">
                        <button type="button" className="link" onClick={() => open(n.id)} onFocus={() => setFocused(n.id)} aria-label={`Open the record of ${n.label}`}>Open</button>
                        <button type="button" className="link" onClick={() => expand(n.id)} disabled={busy} aria-label={`Expand ${n.label}`}>Expand</button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        </div>
      )}
    </section>
  );
}
