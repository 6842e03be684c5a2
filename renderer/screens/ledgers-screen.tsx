// Ledgers: workflows with their latest state and integrity badge, one
// workflow's chain as a table, Verify, and the store health panel.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ChainBreak, ChainEvent, VerifyEntry, WorkflowEntry } from '../../core/contract/operations';
import { NO_LINEAGE, NO_LINKED_GENERATION, evidenceManifestSha256, type EvidenceGeneration } from '../../core/contract/chain';
import { ActorLabel } from '../components/actor-label';
import { CopyButton } from '../components/copy-button';
import { ErrorBox } from '../components/error-box';
import { When } from '../components/when';
import { exactUtc } from '../../core/contract/format';
import { VirtualGrid, type GridColumn } from '../components/virtual-grid';
import { countOf, formatCount, middleTruncate } from '../format';
import { useAction, useQuery } from '../hooks';
import { invoke } from '../invoke';
import { useShallow } from 'zustand/react/shallow';
import { useStudio } from '../store';
import { LedgerPath } from '../pictures/ledger-path';

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
  { id: 'evidence', header: 'evidence', width: 'minmax(16rem, 2fr)', minRem: 16 },
  { id: 'attempt', header: 'attempt', width: '4.5rem' },
  { id: 'occurred_at', header: 'occurred at', width: 'minmax(17rem, 1.5fr)', render: (r) => <When iso={r.occurred_at} />, title: (r) => `${exactUtc(r.occurred_at) ?? r.occurred_at} (UTC)` },
];

/** The integrity filter's choices. */
type IntegrityFilter = 'all' | 'ok' | 'failed';

/** "Verified 5 workflows at 14:02: 1 failed" — what a verification found, in words. */
export function verifiedText(results: readonly VerifyEntry[], at: Date): string {
  const failed = results.filter((r) => r.status !== 'ok').length;
  const time = at.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  return `Verified ${countOf(results.length, 'workflow', 'workflows')} at ${time}: ${failed === 0 ? 'all intact' : `${formatCount(failed)} failed`}`;
}

/** The ledgers screen. */
export function LedgersScreen() {
  const { workspace, revision, route, setRoute } = useStudio(useShallow((s) => ({ workspace: s.workspace, revision: s.revision, route: s.route, setRoute: s.setRoute })));
  const project = workspace?.project ?? null;
  // One request: chain.list verifies each workflow and reads its latest state in the same pass.
  const list = useQuery(project === null ? null : `${project}|${revision}`, () => invoke('chain.list', { project: project ?? '' }));
  const health = useQuery(project === null ? null : `${project}|${revision}`, async () => ({ health: await invoke('chain.health', { project: project ?? '' }), at: new Date() }));
  const [verifiedNow, setVerifiedNow] = useState<{ readonly results: ReadonlyMap<string, VerifyEntry>; readonly text: string } | null>(null);
  const verify = useAction(async () => {
    const r = await invoke('chain.verify', { project: project ?? '' });
    setVerifiedNow({ results: new Map(r.results.map((x) => [x.workflow_id, x])), text: verifiedText(r.results, new Date()) });
  });
  const [integrity, setIntegrity] = useState<IntegrityFilter>('all');
  const [stateFilter, setStateFilter] = useState('');
  const selected = route.screen === 'ledgers' ? route.params['workflow'] ?? null : null;
  const select = (id: string) => setRoute({ screen: 'ledgers', params: { workflow: id } });

  const workflows = list.data?.workflows ?? null;
  const verdict = useCallback((w: WorkflowEntry): VerifyEntry => verifiedNow?.results.get(w.workflow_id) ?? w.verify, [verifiedNow]);
  const states = useMemo(() => [...new Set((workflows ?? []).flatMap((w) => (w.latest_state_id === null ? [] : [w.latest_state_id])))].sort(), [workflows]);
  const shown = useMemo(
    () => (workflows ?? []).filter((w) => {
      const ok = verdict(w).status === 'ok';
      if (integrity === 'ok' && !ok) return false;
      if (integrity === 'failed' && ok) return false;
      return stateFilter === '' || w.latest_state_id === stateFilter;
    }),
    [workflows, verdict, integrity, stateFilter],
  );
  const error = list.error ?? verify.error ?? health.error;
  const selectedEntry = workflows?.find((w) => w.workflow_id === selected);

  return (
    <section className="screen" aria-labelledby="ledgers-title">
      <div className="screen-head">
        <h2 id="ledgers-title">Ledgers</h2>
        <div className="actions">
          <button type="button" onClick={() => void verify.run()} disabled={verify.busy || project === null} data-testid="verify-all">{verify.busy ? 'Verifying…' : 'Verify all'}</button>
        </div>
      </div>
      <p role="status" data-testid="verify-summary">{verifiedNow?.text ?? ''}</p>
      {error !== null && <ErrorBox error={error} testId="ledgers-error" />}
      {workflows === null ? (
        list.error === null && <p className="muted">Loading ledgers…</p>
      ) : workflows.length === 0 ? (
        <p className="muted">This workspace has no workflow ledgers.</p>
      ) : (
        <>
          <div className="row-form" role="group" aria-label="Filter workflows">
            <label htmlFor="ledger-integrity">Integrity</label>
            <select id="ledger-integrity" value={integrity} onChange={(e) => setIntegrity(e.target.value as IntegrityFilter)} data-testid="filter-integrity">
              <option value="all">all</option>
              <option value="ok">intact</option>
              <option value="failed">failed</option>
            </select>
            <label htmlFor="ledger-state">Latest state</label>
            <select id="ledger-state" value={stateFilter} onChange={(e) => setStateFilter(e.target.value)} data-testid="filter-state">
              <option value="">any</option>
              {states.map((st) => <option key={st} value={st}>{st}</option>)}
            </select>
            <span className="muted small" data-testid="workflow-shown">{formatCount(shown.length)} of {countOf(workflows.length, 'workflow', 'workflows')}</span>
          </div>
          <table className="data-table" data-testid="workflows">
            <caption className="sr-only">Workflows</caption>
            <thead><tr><th scope="col">workflow</th><th scope="col">latest state</th><th scope="col">transitions</th><th scope="col">integrity</th><th scope="col">tail head</th></tr></thead>
            <tbody>
              {shown.map((w) => {
                const v = verdict(w);
                return (
                  <tr key={w.workflow_id} data-testid="workflow-row" aria-selected={selected === w.workflow_id}>
                    <td><button type="button" className="link mono" onClick={() => select(w.workflow_id)} data-testid="workflow-id">{w.workflow_id}</button></td>
                    <td>{w.latest_state_id ?? '—'}</td>
                    <td>{formatCount(w.rows)}</td>
                    <td><span className={`badge integrity-${v.status}`} data-testid="verify-status">{badgeText(v)}</span></td>
                    <td className="mono" title={w.tail_head}>{w.tail_head.slice(0, 16)}…</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
      {selected !== null && project !== null && <Chain key={selected} project={project} workflowId={selected} verify={selectedEntry === undefined ? undefined : verdict(selectedEntry)} />}
      <section aria-labelledby="health-title" className="health" data-testid="health">
        <h3 id="health-title">Store health</h3>
        {health.data === null ? (
          <p className="muted">—</p>
        ) : (
          <>
            <p>
              backend <strong data-testid="health-backend">{health.data.health.backend}</strong> · {countOf(health.data.health.workflows, 'workflow', 'workflows')}
              <span className="muted"> · refreshed {health.data.at.toLocaleTimeString('en-GB')}</span>{' '}
              <button type="button" onClick={health.reload}>Refresh</button>
            </p>
            {Object.keys(health.data.health.details).length > 0 && (
              <dl className="record-fields">
                {Object.entries(health.data.health.details).map(([k, v]) => <div key={k}><dt>{k.replace(/_/g, ' ')}</dt><dd>{v ?? '—'}</dd></div>)}
              </dl>
            )}
          </>
        )}
      </section>
    </section>
  );
}

/** Transitions read per `chain.read` page. */
const EVENT_PAGE = 200;

/** One `chain.read` page: its transitions and the workspace generations their evidence links to. */
interface ChainPage {
  readonly events: readonly ChainEvent[];
  readonly evidence_generations: readonly EvidenceGeneration[] | null;
}

/** Evidence digest → linked generation over every page read; null when the ledgers belong to no workspace. */
function linkedGenerations(pages: readonly ChainPage[]): ReadonlyMap<string, EvidenceGeneration> | null {
  if (pages.some((p) => p.evidence_generations === null)) return null;
  return new Map(pages.flatMap((p) => (p.evidence_generations ?? []).map((g) => [g.evidence_digest, g] as const)));
}

/** The generation a digest links to (undefined: the digest names no manifest; null: the ledgers or the workspace have none). */
function linkOf(digest: string | null, linked: ReadonlyMap<string, EvidenceGeneration> | null): EvidenceGeneration['generation'] | undefined {
  if (evidenceManifestSha256(digest) === null || digest === null) return undefined;
  return linked?.get(digest)?.generation ?? null;
}

/**
 * Who published a linked generation (the lineage's actor; chain events carry none).
 * `compact` (a grid cell): "published by NAME", the actor id on hover; else the name with its id one toggle away.
 */
function Publisher({ actor, compact }: { actor: string | null; compact: boolean }) {
  if (actor === null) return <span className="muted" data-testid="evidence-publisher">{compact ? 'its publisher was not recorded' : 'not recorded'}</span>;
  const who = <ActorLabel actor={actor} compact={compact} testId="evidence-publisher-actor" />;
  return <span data-testid="evidence-publisher">{compact ? <>published by {who}</> : who}</span>;
}

/**
 * A transition's evidence in a grid cell: the workspace generation it links
 * to and who published that generation, or, for a manifest the workspace
 * lacks, that there is no such generation.
 */
function Evidence({ digest, linked, onOpen }: { digest: string | null; linked: ReadonlyMap<string, EvidenceGeneration> | null; onOpen: () => void }) {
  if (digest === null) return <>—</>;
  const g = linkOf(digest, linked);
  if (g === undefined) return <span className="mono">{digest}</span>;
  if (g === null) return <span className="muted" data-testid="evidence-unlinked">{linked === null ? NO_LINEAGE : NO_LINKED_GENERATION}</span>;
  return (
    <span className="evidence-linked">
      <button type="button" className="link mono" onClick={onOpen} data-testid="evidence-link" data-generation={g.generation_uuid}>generation {g.generation_uuid.slice(0, 8)}</button>, <Publisher actor={g.actor} compact />
    </span>
  );
}

/** The event detail's rows for evidence that names a manifest: the linked generation, then its publisher. */
function LinkedRows({ digest, linked, onOpen }: { digest: string | null; linked: ReadonlyMap<string, EvidenceGeneration> | null; onOpen: () => void }) {
  const g = linkOf(digest, linked);
  if (g === undefined) return null;
  if (g === null) return <div><dt>linked generation</dt><dd className="muted" data-testid="event-linked">{linked === null ? NO_LINEAGE : NO_LINKED_GENERATION}</dd></div>;
  return (
    <>
      <div>
        <dt>linked generation</dt>
        <dd data-testid="event-linked">
          <button type="button" className="link mono" onClick={onOpen} title={g.generation_uuid}>generation {g.generation_uuid.slice(0, 8)}</button>, published <When iso={g.published_at} />
        </dd>
      </div>
      <div><dt>publisher of the linked generation</dt><dd data-testid="event-publisher"><Publisher actor={g.actor} compact={false} /></dd></div>
    </>
  );
}

function Chain({ project, workflowId, verify }: { project: string; workflowId: string; verify: VerifyEntry | undefined }) {
  const [pages, setPages] = useState<readonly ChainPage[]>([]);
  const [next, setNext] = useState<string | null>(null);
  // This chain's own Verify result, else the list's verdict (which may arrive after a deep link opened the chain).
  const [own, setOwn] = useState<VerifyEntry | undefined>(undefined);
  const result = own ?? verify;
  const [detail, setDetail] = useState<ChainEvent | null>(null);
  const { go } = useStudio(useShallow((s) => ({ go: s.go })));
  const first = useQuery(`${project}|${workflowId}`, () => invoke('chain.read', { project, workflow_id: workflowId, limit: EVENT_PAGE, after: null }));
  useEffect(() => {
    if (first.data === null) return;
    setPages([first.data]);
    setNext(first.data.next_page_token);
  }, [first.data]);
  const more = useAction(async (after: string) => {
    const page = await invoke('chain.read', { project, workflow_id: workflowId, limit: EVENT_PAGE, after });
    setPages((p) => [...p, page]);
    setNext(page.next_page_token);
  });
  const verifyOne = useAction(async () => {
    const r = await invoke('chain.verify', { project, workflow_id: workflowId });
    setOwn(r.results[0]);
  });
  const events = useMemo(() => pages.flatMap((p) => p.events), [pages]);
  const linked = useMemo(() => linkedGenerations(pages), [pages]);
  const bySequence = useMemo(() => new Map(events.map((e) => [String(e.sequence), e])), [events]);

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
            render: (r: EventRow) => <Evidence digest={r.evidence} linked={linked} onOpen={() => go('history')} />,
            title: (r: EventRow) => r.evidence ?? '',
          }
        : c,
    ),
    [linked, go],
  );
  const error = first.error ?? more.error ?? verifyOne.error;
  const bad = result?.first_bad_sequence ?? null;
  return (
    <section aria-labelledby="chain-title" className="stack" data-testid="chain">
      <div className="screen-head">
        <h3 id="chain-title">Chain of <span className="mono">{workflowId}</span></h3>
        <div className="actions">
          <span className={`badge integrity-${result?.status ?? 'unknown'}`} data-testid="chain-verify-status">{badgeText(result)}</span>
          <button type="button" onClick={() => void verifyOne.run()} disabled={verifyOne.busy} data-testid="verify-one">{verifyOne.busy ? 'Verifying…' : 'Verify'}</button>
        </div>
      </div>
      {result !== undefined && <p className="muted small">head after {countOf(result.rows, 'row', 'rows')}: <span className="mono">{result.tail_head}</span></p>}
      {error !== null && <ErrorBox error={error} testId="chain-error" />}
      {events.length > 0 && <LedgerPath events={events} rows={result?.rows ?? events.length} firstBad={bad} />}
      {result?.break_head !== undefined && bad !== null && <BreakHeads at={bad} event={bySequence.get(String(bad)) ?? null} heads={result.break_head} />}
      <VirtualGrid
        label={`Transitions of ${workflowId}`}
        columns={columns}
        rows={rows}
        rowKey={(r) => r.sequence}
        hasMore={next !== null}
        loading={first.loading || more.busy}
        onNeedMore={() => {
          if (next !== null) void more.run(next);
        }}
        onActivate={(r) => setDetail(bySequence.get(r.sequence) ?? null)}
        selectedKey={detail === null ? null : String(detail.sequence)}
        rowClass={(r) => (bad !== null && Number(r.sequence) >= bad ? 'change-removed' : '')}
        size="short"
        testId="chain-grid"
      />
      {detail !== null && (
        <section aria-labelledby="event-title" className="record-detail" data-testid="event-detail">
          <h4 id="event-title">Transition {formatCount(detail.sequence)}</h4>
          <dl className="record-fields">
            <div><dt>transition id</dt><dd className="mono">{detail.transition_id}</dd></div>
            <div><dt>from → to</dt><dd>{detail.prior_state_id} → {detail.next_state_id}</dd></div>
            <div><dt>outcome</dt><dd>{detail.triggering_outcome.kind}</dd></div>
            <div><dt>detail</dt><dd>{detail.triggering_outcome.detail ?? '—'}</dd></div>
            <div><dt>evidence</dt><dd className="mono">{detail.triggering_outcome.evidence_digest ?? '—'}</dd></div>
            <LinkedRows digest={detail.triggering_outcome.evidence_digest} linked={linked} onOpen={() => go('history')} />
            <div><dt>attempt</dt><dd>{formatCount(detail.attempt)}</dd></div>
            <div><dt>occurred at</dt><dd><When iso={detail.occurred_at} /></dd></div>
          </dl>
          {bad !== null && detail.sequence >= bad && <p className="field-error">This transition is at or after the break (sequence {formatCount(bad)}).</p>}
        </section>
      )}
    </section>
  );
}

/** One head of a break: middle-truncated, with copy and the full value on request. */
function HeadValue({ label, value, full, testId }: { label: string; value: string; full: boolean; testId: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <span className="mono head-value" title={value} data-testid={testId} data-head={value}>{full ? value : middleTruncate(value, 14)}</span>{' '}
        <CopyButton label={`Copy the ${label}`} text={value} testId={`${testId}-copy`} />
      </dd>
    </div>
  );
}

/**
 * Where the chain breaks: the transition first (what a person recognises),
 * then the verifier's evidence, the head it expected and the head the row
 * stores (the hashes ARE the evidence here).
 */
function BreakHeads({ at, event, heads }: { at: number; event: ChainEvent | null; heads: ChainBreak }) {
  const [full, setFull] = useState(false);
  const what = heads.column === 'next_head'
    ? 'its stored head is not the head its bytes and the transitions before it give'
    : 'it does not link to the head of the transition before it';
  return (
    <section aria-labelledby="break-title" className="record-detail chain-break" data-testid="chain-break">
      <h4 id="break-title">The chain breaks at transition {formatCount(at)}</h4>
      <p>
        {event === null ? `Transition ${formatCount(at)}` : <>Transition {formatCount(at)}, <strong>{event.prior_state_id} → {event.next_state_id}</strong> ({event.triggering_outcome.kind}, {event.occurred_at})</>}: {what}. It and every later transition are untrusted.
      </p>
      <dl className="record-fields">
        <HeadValue label="expected head" value={heads.expected_head} full={full} testId="break-expected-head" />
        <HeadValue label="stored head" value={heads.stored_head} full={full} testId="break-stored-head" />
      </dl>
      <p className="muted small">
        Compared column: <span className="mono">{heads.column}</span>.{' '}
        <button type="button" className="link" aria-pressed={full} onClick={() => setFull((f) => !f)} data-testid="break-full-heads">{full ? 'Shorten the heads' : 'Show the full heads'}</button>
      </p>
    </section>
  );
}
