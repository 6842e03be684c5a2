// Ledgers: workflows with their latest state and integrity badge, one
// workflow's chain as a table, Verify, and the store health panel.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ChainEvent, JsonResults, VerifyEntry, WorkflowEntry } from '../../core/contract/operations';
import { ErrorBox } from '../components/error-box';
import { VirtualGrid, type GridColumn } from '../components/virtual-grid';
import { showError, type ShownError } from '../errors-text';
import { invoke } from '../invoke';
import { useShallow } from 'zustand/react/shallow';
import { useStudio } from '../store';

/** Integrity badge text of a verify result. */
export function badgeText(v: VerifyEntry | undefined): string {
  if (v === undefined) return 'not verified';
  if (v.status === 'ok') return 'ok';
  if (v.status === 'chain_mismatch') return `chain_mismatch at sequence ${v.first_bad_sequence ?? '?'}`;
  return `torn write${v.first_bad_sequence === null ? '' : ` at sequence ${v.first_bad_sequence}`}`;
}

/** One transition as the chain table shows it. */
interface EventRow {
  readonly sequence: string;
  readonly prior_state_id: string;
  readonly next_state_id: string;
  readonly outcome: string;
  readonly evidence: string | null;
  readonly attempt: string;
  readonly occurred_at: string;
}

const EVENT_COLUMNS: readonly GridColumn<EventRow>[] = [
  { id: 'sequence', header: 'seq', width: '4rem' },
  { id: 'prior_state_id', header: 'from state', width: 'minmax(7rem, 1fr)' },
  { id: 'next_state_id', header: 'to state', width: 'minmax(7rem, 1fr)' },
  { id: 'outcome', header: 'outcome', width: '8rem' },
  { id: 'evidence', header: 'evidence', width: 'minmax(8rem, 1fr)', mono: true },
  { id: 'attempt', header: 'attempt', width: '4.5rem' },
  { id: 'occurred_at', header: 'occurred at', width: 'minmax(10rem, 1fr)' },
];

/** The ledgers screen. */
export function LedgersScreen() {
  const { workspace, summary } = useStudio(useShallow((s) => ({ workspace: s.workspace, summary: s.summary })));
  const [workflows, setWorkflows] = useState<readonly WorkflowEntry[] | null>(null);
  const [verified, setVerified] = useState<ReadonlyMap<string, VerifyEntry>>(new Map());
  const [latest, setLatest] = useState<ReadonlyMap<string, string>>(new Map());
  const [health, setHealth] = useState<JsonResults['chain.health'] | null>(null);
  const [healthAt, setHealthAt] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [verifying, setVerifying] = useState(false);
  const project = workspace?.project ?? null;

  const verifyAll = useCallback(async () => {
    if (project === null) return;
    setVerifying(true);
    try {
      const r = await invoke('chain.verify', { project });
      setVerified(new Map(r.results.map((x) => [x.workflow_id, x])));
    } catch (e) {
      setError(showError(e));
    } finally {
      setVerifying(false);
    }
  }, [project]);

  const loadHealth = useCallback(async () => {
    if (project === null) return;
    try {
      setHealth(await invoke('chain.health', { project }));
      setHealthAt(new Date().toISOString());
    } catch (e) {
      setError(showError(e));
    }
  }, [project]);

  useEffect(() => {
    if (project === null) return;
    let live = true;
    (async () => {
      // One request: chain.list verifies each workflow and reads its latest state in the same pass.
      const list = await invoke('chain.list', { project });
      if (!live) return;
      setWorkflows(list.workflows);
      setLatest(new Map(list.workflows.flatMap((w) => (w.latest_state_id === null ? [] : [[w.workflow_id, w.latest_state_id] as const]))));
      setVerified(new Map(list.workflows.map((w) => [w.workflow_id, w.verify])));
      await loadHealth();
    })().catch((e: unknown) => live && setError(showError(e)));
    return () => {
      live = false;
    };
  }, [project, loadHealth]);

  // Evidence digests of `patch_applied` transitions are `sha256:<manifest sha256>` of the generation they published.
  const generations = useMemo(() => new Map(summary?.generations.map((g) => [`sha256:${g.manifest_sha256}`, g.generation_uuid]) ?? []), [summary]);

  return (
    <section className="screen" aria-labelledby="ledgers-title">
      <div className="screen-head">
        <h2 id="ledgers-title">Ledgers</h2>
        <div className="actions">
          <button type="button" onClick={() => void verifyAll()} disabled={verifying} data-testid="verify-all">{verifying ? 'Verifying…' : 'Verify all'}</button>
        </div>
      </div>
      {error !== null && <ErrorBox error={error} testId="ledgers-error" />}
      {workflows === null ? (
        <p className="muted">Loading ledgers…</p>
      ) : workflows.length === 0 ? (
        <p className="muted">This workspace has no workflow ledgers.</p>
      ) : (
        <table className="data-table" data-testid="workflows">
          <caption className="sr-only">Workflows</caption>
          <thead><tr><th scope="col">workflow</th><th scope="col">latest state</th><th scope="col">transitions</th><th scope="col">integrity</th><th scope="col">tail head</th></tr></thead>
          <tbody>
            {workflows.map((w) => {
              const v = verified.get(w.workflow_id);
              return (
                <tr key={w.workflow_id} data-testid="workflow-row" aria-selected={selected === w.workflow_id}>
                  <td><button type="button" className="link mono" onClick={() => setSelected(w.workflow_id)} data-testid="workflow-id">{w.workflow_id}</button></td>
                  <td>{latest.get(w.workflow_id) ?? '—'}</td>
                  <td>{w.rows}</td>
                  <td><span className={`badge integrity-${v?.status ?? 'unknown'}`} data-testid="verify-status">{badgeText(v)}</span></td>
                  <td className="mono" title={w.tail_head}>{w.tail_head.slice(0, 16)}…</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {selected !== null && project !== null && <Chain project={project} workflowId={selected} generations={generations} verify={verified.get(selected)} />}
      <section aria-labelledby="health-title" className="health" data-testid="health">
        <h3 id="health-title">Store health</h3>
        {health === null ? (
          <p className="muted">—</p>
        ) : (
          <>
            <p>
              backend <strong data-testid="health-backend">{health.backend}</strong> · {health.workflows} workflows{healthAt !== null && <span className="muted"> · refreshed {healthAt}</span>}{' '}
              <button type="button" onClick={() => void loadHealth()}>Refresh</button>
            </p>
            {Object.keys(health.details).length > 0 && (
              <dl className="record-fields">
                {Object.entries(health.details).map(([k, v]) => <div key={k}><dt>{k.replace(/_/g, ' ')}</dt><dd>{v ?? '—'}</dd></div>)}
              </dl>
            )}
          </>
        )}
      </section>
    </section>
  );
}

function Chain({ project, workflowId, generations, verify }: { project: string; workflowId: string; generations: ReadonlyMap<string, string>; verify: VerifyEntry | undefined }) {
  const [events, setEvents] = useState<readonly ChainEvent[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const [result, setResult] = useState<VerifyEntry | undefined>(verify);
  const { go } = useStudio(useShallow((s) => ({ go: s.go })));

  const load = useCallback(async (after: string | null) => {
    setLoading(true);
    try {
      const page = await invoke('chain.read', { project, workflow_id: workflowId, limit: 200, after });
      setEvents((e) => (after === null ? page.events : [...e, ...page.events]));
      setNext(page.next_page_token);
    } catch (e) {
      setError(showError(e));
    } finally {
      setLoading(false);
    }
  }, [project, workflowId]);

  useEffect(() => {
    setEvents([]);
    setResult(verify);
    void load(null);
  }, [workflowId, load]);

  const rows = useMemo<EventRow[]>(
    () => events.map((e) => ({
      sequence: String(e.sequence),
      prior_state_id: e.prior_state_id,
      next_state_id: e.next_state_id,
      outcome: e.triggering_outcome.kind,
      evidence: e.triggering_outcome.evidence_digest,
      attempt: String(e.attempt),
      occurred_at: e.occurred_at,
    })),
    [events],
  );
  const columns = useMemo<GridColumn<EventRow>[]>(
    () => EVENT_COLUMNS.map((c) =>
      c.id === 'evidence'
        ? {
            ...c,
            render: (r: EventRow) => {
              const d = r.evidence;
              if (d === null) return '—';
              const g = generations.get(d);
              return g === undefined ? d : <button type="button" className="link mono" onClick={() => go('history')} data-testid="evidence-link">generation {g.slice(0, 8)}</button>;
            },
          }
        : c,
    ),
    [generations, go],
  );
  const verifyOne = async () => {
    try {
      const r = await invoke('chain.verify', { project, workflow_id: workflowId });
      setResult(r.results[0]);
    } catch (e) {
      setError(showError(e));
    }
  };
  return (
    <section aria-labelledby="chain-title" className="stack" data-testid="chain">
      <div className="screen-head">
        <h3 id="chain-title">Chain of <span className="mono">{workflowId}</span></h3>
        <div className="actions">
          <span className={`badge integrity-${result?.status ?? 'unknown'}`} data-testid="chain-verify-status">{badgeText(result)}</span>
          <button type="button" onClick={() => void verifyOne()} data-testid="verify-one">Verify</button>
        </div>
      </div>
      {result !== undefined && <p className="muted small">head after {result.rows} rows: <span className="mono">{result.tail_head}</span></p>}
      {error !== null && <ErrorBox error={error} testId="chain-error" />}
      <VirtualGrid
        label={`Transitions of ${workflowId}`}
        columns={columns}
        rows={rows}
        rowKey={(r) => r.sequence}
        hasMore={next !== null}
        loading={loading}
        onNeedMore={() => void load(next)}
        rowClass={(r) => (result?.first_bad_sequence !== null && result?.first_bad_sequence !== undefined && Number(r.sequence) >= result.first_bad_sequence ? 'change-removed' : '')}
        size="short"
        testId="chain-grid"
      />
    </section>
  );
}
