// The graph of a diff: the changed nodes and edges between the compared
// endpoints with their immediate neighbourhood, coloured by change kind,
// filtered like the record diff (family, kinds, changed field), with the
// engine's honest count and page by page. A node or edge jumps to its row in
// the record diff; hovering or focusing a modified node shows its changed cells.
import { useMemo, useState } from 'react';
import type { DiffStatFamily, RecordChangeKind } from '../../core/contract/diff';
import { RECORD_CHANGE_KINDS } from '../../core/contract/diff';
import { GRAPH_FAMILIES, GRAPH_LIMITS, type GraphFamily } from '../../core/contract/graph';
import type { JsonResults } from '../../core/contract/operations';
import { ErrorBox } from '../components/error-box';
import { useQuery, withOperation } from '../hooks';
import { invoke } from '../invoke';
import { CHANGE_COLOURS, GraphCanvas } from './graph-canvas';
import { graphPage, type GraphNode } from './graph-elements';

/** Where a change sits in the record diff: its family, 1-based row, and the filter it was counted under. */
export interface RecordDiffJump {
  readonly family: GraphFamily;
  readonly row: number;
  readonly kinds: readonly RecordChangeKind[] | null;
  readonly field: string | null;
}

/** Props: the compared pair, the graph families' statistics (their changed fields), and the jump to the record diff. */
export interface DiffGraphProps {
  readonly project: string;
  readonly from: string;
  readonly to: string;
  readonly families: readonly DiffStatFamily[];
  readonly onJump: (jump: RecordDiffJump) => void;
}

type Change = JsonResults['checkpoints.record_change'];

/** The diff graph panel (shown when the compared scope has graph families). */
export function DiffGraphPanel({ project, from, to, families, onJump }: DiffGraphProps) {
  const [family, setFamily] = useState<GraphFamily | null>(null);
  const [kinds, setKinds] = useState<readonly RecordChangeKind[]>(RECORD_CHANGE_KINDS);
  const [field, setField] = useState<string | null>(null);
  const [tokens, setTokens] = useState<readonly (string | null)[]>([null]);
  const [focused, setFocused] = useState<string | null>(null);
  const [hovered, setHovered] = useState<string | null>(null);
  const after = tokens[tokens.length - 1] ?? null;
  const kindFilter = kinds.length === RECORD_CHANGE_KINDS.length ? null : kinds;
  const fields = useMemo(
    () => [...new Set(families.filter((f) => f.capability_id === 'graph' && (family === null || f.record_family_id === family)).flatMap((f) => f.changed_cells.map((c) => c.field)))],
    [families, family],
  );
  const key = JSON.stringify([project, from, to, family, kindFilter, field, after]);
  const page = useQuery(kinds.length === 0 ? null : key, (signal) =>
    withOperation(signal, async (operation_id) => {
      const r = await invoke('graph.diff', {
        project, from, to, operation_id, limit: GRAPH_LIMITS.diffPageDefault,
        ...(family === null ? {} : { record_family_id: family }),
        ...(kindFilter === null ? {} : { change_kinds: [...kindFilter] }),
        ...(field === null ? {} : { changed_field: field }),
        ...(after === null ? {} : { after }),
      });
      return graphPage(r.bytes, r.next_page_token);
    }),
  );
  const restart = () => setTokens([null]);
  const data = page.data;
  const changedNodes = useMemo(() => data?.nodes.filter((n) => n.change !== null) ?? [], [data]);
  const changedEdges = useMemo(() => data?.edges.filter((e) => e.change !== null) ?? [], [data]);
  const shown = changedNodes.length + changedEdges.length;
  const first = data?.firstChange ?? 0;
  const total = data?.totalChanges ?? 0;
  const inspect = hovered ?? focused;
  const inspected: GraphNode | null = data?.nodes.find((n) => n.id === inspect) ?? null;
  const cells = useQuery(inspected !== null && inspected.change === 'modified' ? `${from}|${to}|${inspected.id}` : null, () =>
    invoke('checkpoints.record_change', { project, from, to, record_family_id: 'node', identity: { node_uuid: inspected?.id ?? '' } }),
  );
  const jumpTo = (id: string) => {
    const n = data?.nodes.find((x) => x.id === id);
    setFocused(id);
    if (n !== undefined && n.rowNumber !== null) onJump({ family: 'node', row: n.rowNumber, kinds: kindFilter, field });
  };

  return (
    <section className="stack graph-panel" aria-labelledby="diff-graph-title" data-testid="diff-graph">
      <h3 id="diff-graph-title">Graph of the changes</h3>
      <div className="row-form" role="group" aria-label="Filter the graph of the changes">
        <label htmlFor="dg-family">Records</label>
        <select id="dg-family" value={family ?? ''} onChange={(e) => (setFamily(e.target.value === '' ? null : (e.target.value as GraphFamily)), setField(null), restart())} data-testid="diff-graph-family">
          <option value="">nodes and edges</option>
          {GRAPH_FAMILIES.map((f) => <option key={f} value={f}>{f === 'node' ? 'nodes only' : 'edges only'}</option>)}
        </select>
        <div className="inline" role="group" aria-label="Change kinds drawn">
          {RECORD_CHANGE_KINDS.map((k) => (
            <button
              key={k}
              type="button"
              className="toggle"
              aria-pressed={kinds.includes(k)}
              onClick={() => (setKinds(kinds.includes(k) ? kinds.filter((x) => x !== k) : RECORD_CHANGE_KINDS.filter((x) => x === k || kinds.includes(x))), restart())}
              data-testid={`diff-graph-kind-${k}`}
            >
              <span className="swatch" style={{ background: CHANGE_COLOURS[k] }} aria-hidden="true" /> {k}
            </button>
          ))}
        </div>
        <label htmlFor="dg-field">Changed field</label>
        <select id="dg-field" value={field ?? ''} onChange={(e) => (setField(e.target.value === '' ? null : e.target.value), restart())} data-testid="diff-graph-field">
          <option value="">any</option>
          {fields.map((f) => <option key={f} value={f}>{f}</option>)}
        </select>
      </div>
      {kinds.length === 0 && <p className="muted">Choose at least one change kind.</p>}
      {page.error !== null && <ErrorBox error={page.error} testId="diff-graph-error" />}
      {page.loading && data === null && <p className="muted" role="status">Reading the changed graph…</p>}
      {data !== null && (
        <>
          <p role="status" data-testid="diff-graph-count">
            {total === 0 ? 'No graph record changed under this filter.' : `Showing changes ${(first + 1).toLocaleString('en-US')}–${(first + shown).toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`}
            {total > 0 && <> · {(data.nodes.length - changedNodes.length).toLocaleString('en-US')} unchanged neighbours drawn for context</>}
            {tokens.length > 1 && <> <button type="button" onClick={() => setTokens(tokens.slice(0, -1))} data-testid="diff-graph-prev">Previous {GRAPH_LIMITS.diffPageDefault.toLocaleString('en-US')}</button></>}
            {data.next !== null && <> <button type="button" onClick={() => setTokens([...tokens, data.next])} data-testid="diff-graph-next">Next {GRAPH_LIMITS.diffPageDefault.toLocaleString('en-US')}</button></>}
          </p>
          {total > 0 && (
            <div className="graph-split">
              <GraphCanvas
                nodes={data.nodes}
                edges={data.edges}
                colourBy="change"
                focused={focused}
                onNodeClick={jumpTo}
                onHover={setHovered}
                label={`Graph of ${shown} changes (${changedNodes.length} nodes, ${changedEdges.length} edges) from ${from} to ${to}, coloured by change kind; the table beside lists them`}
                testId="diff-graph-canvas"
              />
              <div className="stack graph-side">
                <div className="graph-table-wrap">
                  <table className="graph-table" data-testid="diff-graph-changes">
                    <caption className="sr-only">Changed nodes and edges drawn, in the record diff's order</caption>
                    <thead><tr><th scope="col">change</th><th scope="col">record</th><th scope="col">changed fields</th><th scope="col">record diff</th></tr></thead>
                    <tbody>
                      {changedNodes.map((n) => (
                        <tr key={n.id} className={`change-${n.change ?? ''}${focused === n.id ? ' is-selected' : ''}`} data-node={n.id}>
                          <td>{n.change}</td>
                          <td title={n.id}>{n.label} <span className="muted small">({n.classId})</span></td>
                          <td>{n.changedFields ?? '—'}</td>
                          <td><button type="button" className="link" onFocus={() => setFocused(n.id)} onClick={() => jumpTo(n.id)}>Row {n.rowNumber}</button></td>
                        </tr>
                      ))}
                      {changedEdges.map((e) => (
                        <tr key={e.id} className={`change-${e.change ?? ''}`} data-edge={e.id}>
                          <td>{e.change}</td>
                          <td>{data.nodes.find((n) => n.id === e.source)?.label ?? e.source} —{e.relation}→ {data.nodes.find((n) => n.id === e.target)?.label ?? e.target}</td>
                          <td>{e.changedFields ?? '—'}</td>
                          <td><button type="button" className="link" onClick={() => e.rowNumber !== null && onJump({ family: 'edge', row: e.rowNumber, kinds: kindFilter, field })}>Row {e.rowNumber}</button></td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                {/* Below the table: what it shows never moves the rows under the pointer. */}
                {inspected !== null && (
                  <div data-testid="diff-graph-inspect" aria-live="polite">
                    <h4>{inspected.label} <span className="muted small">{inspected.change ?? 'unchanged'}</span></h4>
                    {inspected.change === 'modified' && <ChangedCells change={cells.data} fields={inspected.changedFields} />}
                  </div>
                )}
              </div>
            </div>
          )}
        </>
      )}
    </section>
  );
}

/** A modified node's changed cells, before and after. */
function ChangedCells({ change, fields }: { readonly change: Change | null; readonly fields: string | null }) {
  if (change === null) return <p className="muted small">Changed: {fields ?? '—'}</p>;
  return (
    <dl className="record-fields">
      {change.changed_fields.map((f) => (
        <div key={f}><dt>{f}</dt><dd><del>{String(change.from?.[f] ?? '—')}</del> → <ins>{String(change.to?.[f] ?? '—')}</ins></dd></div>
      ))}
    </dl>
  );
}
