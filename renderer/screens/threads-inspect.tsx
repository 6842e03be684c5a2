// Agent threads: the state inspector (one checkpoint: values as collapsible
// JSON trees, interrupts and pending writes called out, ids one toggle away)
// and the diff of two checkpoints (channel summary, then value changes by
// JSON pointer, paged and cancellable).
import { useState } from 'react';
import { THREAD_PAGE_LIMITS, type ThreadDiff, type ThreadJson, type ThreadValueChange } from '../../core/contract/threads';
import { ErrorBox } from '../components/error-box';
import { JsonTree } from '../components/json-tree';
import { PythonValueView } from '../components/python-value';
import { hasPythonValue } from '../../core/contract/python-values';
import { VirtualGrid, type GridColumn } from '../components/virtual-grid';
import { countOf, formatCount } from '../format';
import { useQuery } from '../hooks';
import { invoke } from '../invoke';
import { usePagedRows } from '../paged';
import { jsonLine, shortId, sourceKey, threadError, type ThreadSource } from './threads-common';

/** One checkpoint of a thread in full. */
export function StateInspector({ source, thread, checkpoint, revision, onDiffFrom, onDiffTo, namespace }: {
  readonly source: ThreadSource;
  readonly thread: string;
  /** The checkpoint (null: the newest of the namespace). */
  readonly checkpoint: string | null;
  readonly revision: number;
  readonly onDiffFrom?: (id: string) => void;
  readonly onDiffTo?: (id: string) => void;
  /** A subgraph's checkpoint namespace (default: the thread's own). */
  readonly namespace?: string;
}) {
  const [technical, setTechnical] = useState(false);
  const state = useQuery(`${sourceKey(source)}|${thread}|${namespace ?? ''}|${checkpoint ?? ''}|${revision}`, () =>
    invoke('threads.state', { source, thread_id: thread, ...(namespace === undefined ? {} : { checkpoint_ns: namespace }), ...(checkpoint === null ? {} : { checkpoint_id: checkpoint }) }));
  const s = state.data;
  if (state.error !== null) return <ErrorBox error={threadError(state.error)} testId="thread-state-error" />;
  if (s === null) return <p className="muted" role="status">Reading the checkpoint…</p>;
  const meta = s.metadata;
  const step = meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as { readonly [key: string]: ThreadJson })['step'] : null;
  return (
    <div data-testid="thread-state">
      <p>
        Checkpoint of <strong>{s.time}</strong>
        {typeof step === 'number' && <> · step {formatCount(step)}</>}
        {s.is_head && <span className="badge badge-current" data-testid="state-head"> head</span>}
        {' '}· next: <span data-testid="state-next">{s.next.length === 0 ? 'nothing (the run ended)' : s.next.join(', ')}</span>
      </p>
      {onDiffFrom !== undefined && onDiffTo !== undefined && (
        <div className="actions">
          <button type="button" onClick={() => onDiffFrom(s.checkpoint_id)}>Diff from this checkpoint</button>
          <button type="button" onClick={() => onDiffTo(s.checkpoint_id)}>Diff to this checkpoint</button>
        </div>
      )}
      {s.problems.length > 0 && (
        <div className="warning" role="note" data-testid="state-problems">
          <h4>{countOf(s.problems.length, 'part of this checkpoint was', 'parts of this checkpoint were')} not understood; the rest is shown</h4>
          <ul>{s.problems.map((p, i) => <li key={i}>{p.message}</li>)}</ul>
        </div>
      )}
      {s.interrupts.length > 0 && (
        <div className="warning" role="note" aria-labelledby="state-interrupts-title" data-testid="state-interrupts">
          <h4 id="state-interrupts-title">{countOf(s.interrupts.length, 'interrupt waits', 'interrupts wait')} for an answer</h4>
          {s.interrupts.map((it, i) => (
            <div key={it.id ?? i}>
              {hasPythonValue(it.value) && <PythonValueView value={it.value} technical={technical} />}
              <JsonTree label={`interrupt ${i + 1}`} value={it.value} />
            </div>
          ))}
        </div>
      )}
      {s.pending_writes.length > 0 && (
        <div className="warning" role="note" aria-labelledby="state-pending-title" data-testid="state-pending">
          <h4 id="state-pending-title">{countOf(s.pending_writes.length, 'pending write', 'pending writes')} (task output not yet applied)</h4>
          {s.pending_writes.map((w, i) => <JsonTree key={`${w.task_id}|${w.channel}|${i}`} label={`${w.channel} (${w.type})`} value={w.value} open={false} />)}
        </div>
      )}
      <h4>Values</h4>
      {s.values.length === 0 ? (
        <p className="muted">No state channels.</p>
      ) : (
        <dl className="record-fields" data-testid="state-values">
          {s.values.map((v) => (
            <div key={v.channel}>
              <dt>{v.channel} <span className="muted small">{v.type}</span></dt>
              <dd>
                {v.delta === 'deltas' && (
                  <p className="notice small" data-testid={`state-delta-${v.channel}`}>
                    Delta-encoded: this checkpoint stores no value for “{v.channel}”. Shown are the value it starts from (seed) and the writes after it, oldest first; LangGraph rebuilds the value with the channel’s reducer.
                  </p>
                )}
                {v.delta === 'snapshot' && <p className="muted small">Stored as a delta channel snapshot (the full value).</p>}
                {hasPythonValue(v.value) && <PythonValueView value={v.value} technical={technical} testId={`state-python-${v.channel}`} />}
                <JsonTree label={hasPythonValue(v.value) ? `${v.channel} (JSON)` : v.channel} value={v.value} open={false} testId={`state-value-${v.channel}`} />
              </dd>
            </div>
          ))}
        </dl>
      )}
      <h4>Metadata</h4>
      <JsonTree label="metadata" value={s.metadata} open={false} testId="state-metadata" />
      <label className="toggle">
        <input type="checkbox" checked={technical} onChange={(e) => setTechnical(e.target.checked)} /> Show technical details
      </label>
      {technical && (
        <dl className="record-fields" data-testid="state-technical">
          <div><dt>checkpoint id</dt><dd className="mono" data-testid="state-checkpoint-id">{s.checkpoint_id}</dd></div>
          <div><dt>parent id</dt><dd className="mono">{s.parent_checkpoint_id ?? 'none (the first checkpoint)'}</dd></div>
          <div><dt>channel versions</dt><dd><JsonTree label="channel versions" value={s.channel_versions} open={false} /></dd></div>
        </dl>
      )}
    </div>
  );
}

const DIFF_COLUMNS: readonly GridColumn<ThreadValueChange>[] = [
  { id: 'pointer', header: 'Path', mono: true, minRem: 12 },
  { id: 'kind', header: 'Change', minRem: 6, width: '7rem' },
  { id: 'before', header: 'Before', mono: true, minRem: 12, render: (r) => (r.kind === 'added' ? '—' : <span className="cell-removed">{jsonLine(r.before)}</span>), title: (r) => JSON.stringify(r.before) ?? '' },
  { id: 'after', header: 'After', mono: true, minRem: 12, render: (r) => (r.kind === 'removed' ? '—' : <span className="cell-added">{jsonLine(r.after)}</span>), title: (r) => JSON.stringify(r.after) ?? '' },
];

/** Rows of a diff page (the summary rides on `last`). */
const diffRows = (p: ThreadDiff) => ({ columns: [] as const, rows: p.rows });

/** What changed between two checkpoints of a thread (`HEAD` names the newest). */
export function ThreadDiffView({ source, thread, from, to, revision, label, testId }: {
  readonly source: ThreadSource;
  readonly thread: string;
  readonly from: string;
  readonly to: string;
  readonly revision: number;
  readonly label: string;
  readonly testId: string;
}) {
  const paged = usePagedRows(`${sourceKey(source)}|${thread}|${from}|${to}|${revision}`, (after, operationId) =>
    invoke('threads.diff', { source, thread_id: thread, from, to, limit: THREAD_PAGE_LIMITS.default, after, operation_id: operationId }), diffRows);
  const d = paged.last;
  return (
    <div data-testid={testId}>
      {paged.error !== null && <ErrorBox error={threadError(paged.error)} testId={`${testId}-error`} />}
      {paged.cancelled && (
        <p className="notice" role="status">
          The diff was cancelled; nothing of it is shown. <button type="button" onClick={paged.retry}>Compute it again</button>
        </p>
      )}
      {paged.loading && d === null && (
        <p role="status">
          <progress aria-label="Computing the diff" /> Computing the diff… <button type="button" onClick={paged.cancel} data-testid={`${testId}-cancel`}>Cancel</button>
        </p>
      )}
      {d !== null && (
        <>
          <p data-testid={`${testId}-total`}>
            {d.total_changes === 0 ? 'The two checkpoints hold the same state.' : `${countOf(d.total_changes, 'value changes', 'values change')}.`}
          </p>
          <table className="data-table" aria-label={`${label}: channels`}>
            <thead><tr><th scope="col">Channel</th><th scope="col">Change</th><th scope="col">Values changed</th></tr></thead>
            <tbody>
              {d.channels.map((c) => (
                <tr key={c.channel} className={c.change === 'unchanged' ? '' : `change-${c.change}`} data-testid={`${testId}-channel`}>
                  <td className="mono">{c.channel}</td><td>{c.change}</td><td>{formatCount(c.changes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {d.total_changes > 0 && (
            <VirtualGrid
              label={label}
              columns={DIFF_COLUMNS}
              rows={paged.rows}
              rowKey={(r) => `${r.kind}|${r.pointer}`}
              totalRows={d.total_changes}
              hasMore={paged.hasMore}
              loading={paged.loading}
              onNeedMore={paged.more}
              rowClass={(r) => `change-${r.kind}`}
              size="short"
              testId={`${testId}-rows`}
              status={`${formatCount(paged.count)} of ${countOf(d.total_changes, 'change', 'changes')} loaded${paged.hasMore ? ' · scroll for more' : ''}`}
            />
          )}
          <p className="muted small">
            From <span className="mono" title={d.from_checkpoint_id}>{shortId(d.from_checkpoint_id)}</span> to <span className="mono" title={d.to_checkpoint_id}>{shortId(d.to_checkpoint_id)}</span>
          </p>
        </>
      )}
    </div>
  );
}

/**
 * A thread's subgraphs (each subgraph run keeps its own checkpoints, apart
 * from the parent's timeline): labelled by node and the parent checkpoint
 * they ran under; choosing one shows its newest checkpoint.
 */
export function SubgraphsPanel({ source, thread, revision }: { readonly source: ThreadSource; readonly thread: string; readonly revision: number }) {
  const ns = useQuery(`${sourceKey(source)}|${thread}|ns|${revision}`, () => invoke('threads.namespaces', { source, thread_id: thread }));
  const [chosen, setChosen] = useState<string | null>(null);
  if (ns.error !== null) return <ErrorBox error={threadError(ns.error)} testId="thread-subgraphs-error" />;
  if (ns.data === null) return null;
  if (ns.data.rows.length === 0) return <p className="muted" data-testid="thread-subgraphs">No subgraph of this thread kept checkpoints.</p>;
  return (
    <div data-testid="thread-subgraphs">
      <ul>
        {ns.data.rows.map((r, i) => (
          <li key={r.checkpoint_ns}>
            <button type="button" className="link" aria-pressed={chosen === r.checkpoint_ns} onClick={() => setChosen(r.checkpoint_ns)} data-testid="thread-subgraph">
              {r.node} #{i + 1}
            </button>{' '}
            <span className="muted small">
              {countOf(r.checkpoint_count, 'checkpoint', 'checkpoints')}
              {r.parent_checkpoint_id !== null && <> · ran under <span className="mono" title={r.parent_checkpoint_id}>{shortId(r.parent_checkpoint_id)}</span></>}
            </span>
          </li>
        ))}
      </ul>
      {chosen !== null && <StateInspector source={source} thread={thread} checkpoint={null} revision={revision} namespace={chosen} />}
    </div>
  );
}
