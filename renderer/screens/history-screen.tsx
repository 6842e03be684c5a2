// History: the generation timeline (parents, restorations), named
// checkpoints as labels, create (validated as typed) and delete (confirmed);
// deleted checkpoints (tombstones) on request.
import { useDeferredValue, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { JsonResults, Row } from '../../core/contract/operations';
import { HISTORY_NAME_FILTER_MAX, LINEAGE_KINDS, type LineageKind } from '../../core/contract/history';
import { newNameProblem } from '../../core/contract/names';
import { decodeArrow } from '../arrow-rows';
import { Dialog } from '../components/dialog';
import { ErrorBox } from '../components/error-box';
import { countOf, formatCount, plural } from '../format';
import { fetchAllPages, useAction, useQuery, type Query } from '../hooks';
import { withParams } from '../routes';
import { invoke } from '../invoke';
import { useShallow } from 'zustand/react/shallow';
import { actorField, useStudio } from '../store';
import { ActorLabel } from '../components/actor-label';
import { When } from '../components/when';
import { HistoryTimeline } from '../pictures/history-timeline';

/** A deleted checkpoint (`checkpoint_tombstone@1`). */
type TombstoneRow = Row<'checkpoints.list', 'checkpoint_tombstone@1'>;

const short = (u: string | null | undefined): string => (u === null || u === undefined ? '—' : u.slice(0, 8));

/** One history row (a lineage record and what retention did to it). */
type Entry = JsonResults['history.list']['entries'][number];

/** History records fetched per page (every page is fetched: the timeline is searched and filtered as a whole). */
const HISTORY_PAGE = 500;
/** Upper bound on history pages (500,000 records). */
const MAX_HISTORY_PAGES = 1000;
/** Table rows rendered at first and added each time the reader scrolls to the end (the timeline draws every entry). */
const ROWS_STEP = 200;

const KIND_TEXT: Readonly<Record<LineageKind, string>> = { first: 'first publication', publication: 'publication', revert: 'revert' };

/** The history screen: the timeline from the lineage log, newest first by publication order. */
export function HistoryScreen() {
  const { summary, checkpoints, workspace, refresh, go, setRoute, route, lastRevertGeneration, revision } = useStudio(useShallow((s) => ({ summary: s.summary, checkpoints: s.checkpoints, workspace: s.workspace, refresh: s.refresh, go: s.go, setRoute: s.setRoute, route: s.route, lastRevertGeneration: s.lastRevertGeneration, revision: s.revision })));
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [showDeleted, setShowDeleted] = useState(false);
  const [selectedGeneration, setSelectedGeneration] = useState<string | null>(null);
  const project = workspace?.project ?? null;
  const q = route.screen === 'history' ? route.params['q'] ?? '' : '';
  const kindParam = route.screen === 'history' ? route.params['kind'] ?? '' : '';
  const kind = (LINEAGE_KINDS as readonly string[]).includes(kindParam) ? (kindParam as LineageKind) : null;
  const setFilter = (changes: Record<string, string | null>) => setRoute(withParams({ screen: 'history', params: route.screen === 'history' ? route.params : {} }, changes), { replace: true });
  const nameFilter = q.trim() === '' ? undefined : q.trim().slice(0, HISTORY_NAME_FILTER_MAX);
  // Every page, through the one paging helper; a new filter or a refresh (revision) aborts the previous run.
  const history = useQuery(project === null ? null : JSON.stringify([project, revision, nameFilter ?? null, kind]), async (signal) => {
    const pages = await fetchAllPages(
      (after) => invoke('history.list', { project: project ?? '', limit: HISTORY_PAGE, after, ...(kind === null ? {} : { kind }), ...(nameFilter === undefined ? {} : { name: nameFilter }) }),
      { maxPages: MAX_HISTORY_PAGES, signal },
    );
    return { entries: pages.flatMap((p) => p.entries), total: pages[0]?.total_records ?? 0 };
  });
  const retention = useQuery(project === null ? null : `${project}|${revision}`, () => invoke('retention.show', { project: project ?? '' }));
  const deleted = useDeletedCheckpoints(showDeleted ? project : null, revision);
  const entries = history.data?.entries ?? null;
  // The table (every row) renders after the timeline has drawn: the picture first, then the list, one frame later.
  const tableEntries = useDeferredValue(entries);
  /** Checkpoint names per generation (a diff endpoint for "diff with parent"). */
  const namesByGeneration = useMemo(() => {
    const m = new Map<string, string>();
    for (const c of checkpoints) if (c.generation_uuid !== null && c.name !== null && !m.has(c.generation_uuid)) m.set(c.generation_uuid, c.name);
    return m;
  }, [checkpoints]);
  /** Revert → the generation it restored, as the summary's restoration records say (places reverts of deleted checkpoints too). */
  const restoredSources = useMemo(() => new Map((summary?.generations ?? []).flatMap((g) => (g.restoration === null ? [] : [[g.generation_uuid, g.restoration.source_generation_uuid] as const]))), [summary]);
  // The table renders its rows a step at a time (more when its end scrolls into view, all on request):
  // 10,000 rows at once took seconds before History could be read.
  const [rowsShown, setRowsShown] = useState(ROWS_STEP);
  const [scrollTo, setScrollTo] = useState<string | null>(null);
  const rowsEnd = useRef<HTMLParagraphElement | null>(null);
  const rowCount = tableEntries?.length ?? 0;
  useEffect(() => setRowsShown(ROWS_STEP), [entries]);
  useEffect(() => {
    const el = rowsEnd.current;
    if (el === null || rowsShown >= rowCount || typeof IntersectionObserver === 'undefined') return undefined;
    const seen = new IntersectionObserver((items) => {
      if (items.some((i) => i.isIntersecting)) setRowsShown((n) => n + ROWS_STEP);
    });
    seen.observe(el);
    return () => seen.disconnect();
  }, [rowsShown, rowCount]);
  useEffect(() => {
    if (scrollTo === null) return;
    document.querySelector<HTMLElement>(`[data-generation="${CSS.escape(scrollTo)}"]`)?.scrollIntoView({ block: 'nearest' });
    setScrollTo(null);
  }, [scrollTo, rowsShown]);
  const selectGeneration = (uuid: string) => {
    setSelectedGeneration(uuid);
    // A row the table has not rendered yet: render up to it first.
    const at = (tableEntries ?? []).findIndex((g) => g.generation_uuid === uuid);
    if (at >= rowsShown) setRowsShown(at + 1);
    setScrollTo(uuid);
  };
  if (summary === null || workspace === null) return <p className="muted">Loading history…</p>;
  const policy = retention.data;
  return (
    <section className="screen" aria-labelledby="history-title">
      <div className="screen-head">
        <h2 id="history-title">History</h2>
        <div className="actions">
          <button type="button" onClick={() => setCreating(true)} disabled={summary.current === null} data-testid="create-checkpoint">
            Create checkpoint
          </button>
          <button type="button" onClick={() => void refresh()}>Refresh</button>
        </div>
      </div>
      <p className="muted">
        {history.data === null ? (
          <span>{history.error === null ? 'Counting publications…' : 'Publications not counted'} ·{' '}</span>
        ) : (
          <>
            <span data-testid="generation-count">{formatCount(history.data.total)}</span> {plural(history.data.total, 'generation', 'generations')} published ·{' '}
          </>
        )}
        <span data-testid="checkpoint-count">{formatCount(checkpoints.length)}</span> active {plural(checkpoints.length, 'checkpoint', 'checkpoints')}
      </p>
      {policy !== null && (
        <p className="muted small" data-testid="retention-policy">
          Retention keeps CURRENT, its {countOf(policy.retain_ancestors, 'nearest ancestor', 'nearest ancestors')}
          {policy.source === 'default' ? ' (the default)' : ' (set for this workspace)'}, every checkpointed generation and every generation a reader has open. Older content is pruned; its
          history row stays.
        </p>
      )}
      <div className="row-form" role="search" aria-label="Filter history">
        <label htmlFor="history-q">Checkpoint name</label>
        <input id="history-q" type="search" value={q} onChange={(e) => setFilter({ q: e.target.value })} autoComplete="off" data-testid="history-search" />
        <label htmlFor="history-kind">Kind</label>
        <select id="history-kind" value={kind ?? ''} onChange={(e) => setFilter({ kind: e.target.value })} data-testid="history-kind">
          <option value="">all kinds</option>
          {LINEAGE_KINDS.map((k) => <option key={k} value={k}>{KIND_TEXT[k]}</option>)}
        </select>
        {entries !== null && (nameFilter !== undefined || kind !== null) && <span className="muted small" role="status" data-testid="history-shown">{countOf(entries.length, 'match', 'matches')}</span>}
      </div>
      {history.error !== null && <ErrorBox error={history.error} testId="history-error" />}
      {entries === null ? (
        history.error === null && <p className="muted">Loading the timeline…</p>
      ) : entries.length === 0 ? (
        <p className="muted" data-testid="history-empty">No generation matches.</p>
      ) : (
        <section aria-label="Generations">
          <HistoryTimeline entries={entries} restoredSources={restoredSources} selected={selectedGeneration} onSelect={selectGeneration} onDiff={(from, to) => setRoute({ screen: 'diff', params: { from, to } })} />
          <table className="timeline reflow" data-testid="timeline">
            <caption className="sr-only">Generations, newest first by publication order</caption>
            <thead>
              <tr><th scope="col">published</th><th scope="col">what</th><th scope="col">checkpoints</th><th scope="col">changes</th><th scope="col">actor</th><th scope="col">generation</th><th scope="col">actions</th></tr>
            </thead>
            <tbody>
              {(tableEntries ?? []).slice(0, rowsShown).map((g) => (
                <HistoryRow key={g.generation_uuid} entry={g} isNew={g.generation_uuid === lastRevertGeneration} selected={g.generation_uuid === selectedGeneration} parentName={g.parent_generation_uuid === null ? null : namesByGeneration.get(g.parent_generation_uuid) ?? null}
                  onOpen={(name) => go('checkpoint', name)} onRevert={(name) => go('revert', name)} onDelete={setDeleting}
                  onDiff={(from, to) => setRoute({ screen: 'diff', params: { from, to } })} />
              ))}
            </tbody>
          </table>
          {rowsShown < rowCount && (
            <p className="muted small" ref={rowsEnd} data-testid="history-rows-more">
              {formatCount(rowsShown)} of {formatCount(rowCount)} rows listed; more as you scroll.{' '}
              <button type="button" className="link" onClick={() => setRowsShown(rowCount)} data-testid="history-rows-all">List all {formatCount(rowCount)}</button>
            </p>
          )}
        </section>
      )}
      <label className="toggle">
        <input type="checkbox" checked={showDeleted} onChange={(e) => setShowDeleted(e.target.checked)} data-testid="show-deleted" /> Show deleted checkpoints
      </label>
      {showDeleted && (
        <section aria-label="Deleted checkpoints">
          {deleted.error !== null && <ErrorBox error={deleted.error} />}
          {deleted.data === null ? (
            deleted.error === null && <p className="muted">Loading deleted checkpoints…</p>
          ) : deleted.data.length === 0 ? (
            <p className="muted" data-testid="no-tombstones">No checkpoint has been deleted.</p>
          ) : (
            <table className="timeline" data-testid="tombstones">
              <caption className="sr-only">Deleted checkpoints, in deletion order</caption>
              <thead>
                <tr><th scope="col">deleted checkpoint</th><th scope="col">checkpoint</th><th scope="col">generation</th><th scope="col">deleted at</th><th scope="col">registry revision</th></tr>
              </thead>
              <tbody>
                {deleted.data.map((t) => (
                  <tr key={t.checkpoint_uuid} data-testid="tombstone-row">
                    <td><span className="badge badge-deleted">deleted</span> <span data-testid="tombstone-name">{t.name}</span></td>
                    <td className="mono" title={t.checkpoint_uuid ?? ''}>{short(t.checkpoint_uuid)}</td>
                    <td className="mono" title={t.generation_uuid ?? ''}>{short(t.generation_uuid)}</td>
                    <td><When iso={t.deleted_at} /></td>
                    <td>{t.deleted_revision}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
      {creating && <CreateDialog project={workspace.project} existing={checkpoints.map((c) => c.name ?? '')} onClose={() => setCreating(false)} onDone={() => void refresh()} />}
      {deleting !== null && <DeleteDialog project={workspace.project} name={deleting} onClose={() => setDeleting(null)} onDone={() => void refresh()} />}
    </section>
  );
}

/** One timeline row: time, kind, description or reason, checkpoint names with their actions. */
function HistoryRow({ entry: g, isNew, selected = false, parentName, onOpen, onRevert, onDelete, onDiff }: {
  entry: Entry; isNew: boolean; selected?: boolean; parentName: string | null;
  onOpen: (name: string) => void; onRevert: (name: string) => void; onDelete: (name: string) => void; onDiff: (from: string, to: string) => void;
}) {
  const pruned = g.status === 'pruned';
  const first = g.checkpoints[0]?.name ?? null;
  return (
    <tr className={[isNew ? 'is-new' : '', pruned ? 'is-pruned' : '', selected ? 'is-selected' : ''].join(' ').trim() || undefined} data-testid="generation-row" data-status={g.status} data-generation={g.generation_uuid} aria-current={selected ? 'true' : undefined}>
      <td data-label="published"><When iso={g.published_at} testId="row-published" /></td>
      <td data-label="what" data-testid="produced-by">
        {g.status === 'current' && <span className="badge badge-current">CURRENT</span>}{' '}
        {pruned && <span className="badge badge-deleted" data-testid="pruned-badge">pruned</span>}{' '}
        {g.kind === 'revert' ? (
          <span className="restoration">
            <span className="badge badge-revert">revert</span> to {g.restored_checkpoint_name ?? short(g.restored_checkpoint_uuid)}
            {g.reason !== null && <> · <q data-testid="row-reason">{g.reason}</q></>}
          </span>
        ) : (
          KIND_TEXT[g.kind]
        )}
        {g.checkpoints.map((c) => c.description === null ? null : <p key={c.checkpoint_uuid} className="small muted">{c.name}: {c.description}</p>)}
      </td>
      <td data-label="checkpoints">
        {g.checkpoints.map((c) => (
          <span className="label-chip" key={c.checkpoint_uuid}>
            <button type="button" className="link" onClick={() => onOpen(c.name)} data-testid="checkpoint-label" disabled={pruned}>{c.name}</button>
            <button type="button" className="small" aria-label={`Delete checkpoint ${c.name}`} onClick={() => onDelete(c.name)} data-testid="checkpoint-delete">Delete…</button>
          </span>
        ))}
      </td>
      <td data-label="changes">{countOf(g.participants_changed, 'participant', 'participants')}</td>
      <td data-label="actor"><ActorLabel actor={g.actor} testId="row-actor" /></td>
      <td data-label="generation" className="mono" title={g.generation_uuid} data-testid="row-generation">{g.generation_uuid}</td>
      <td data-label="actions">
        {pruned ? (
          <span className="muted small">content pruned by retention</span>
        ) : (
          <span className="row-actions">
            {first !== null && parentName !== null && <button type="button" className="link" onClick={() => onDiff(parentName, first)} data-testid="row-diff-parent">Diff with parent</button>}
            {first !== null && g.status !== 'current' && <button type="button" className="link" onClick={() => onDiff(first, 'CURRENT')} data-testid="row-diff-current">Diff with CURRENT</button>}
            {first !== null && <button type="button" className="link" onClick={() => onOpen(first)} data-testid="row-open">Open read-only</button>}
            {first !== null && g.status !== 'current' && <button type="button" className="link" onClick={() => onRevert(first)} data-testid="row-revert">Revert to it</button>}
            {first === null && g.status === 'current' && <span className="muted small">Create a checkpoint to name it: then it can be diffed, opened and reverted to</span>}
            {first === null && g.status !== 'current' && <span className="muted small">No checkpoint names it: only CURRENT can be named, so it cannot be diffed, opened or reverted to</span>}
          </span>
        )}
      </td>
    </tr>
  );
}

/** Every tombstone of the project (pages of 500) while `project` is set; refetched on every refresh (`revision`). */
function useDeletedCheckpoints(project: string | null, revision: number): Query<readonly TombstoneRow[]> {
  return useQuery(project === null ? null : `${project}|${revision}`, async (signal) => {
    const pages = await fetchAllPages((after) => invoke('checkpoints.list', { project: project ?? '', deleted: true, limit: 500, after }), { maxPages: 100, signal });
    return pages.flatMap((page) => decodeArrow(page.bytes, 'checkpoints.list', 'checkpoint_tombstone@1').rows);
  });
}

/** The create-checkpoint dialog (names CURRENT); also offered by the revert preview. */
export function CreateDialog({ project, existing, onClose, onDone }: { project: string; existing: readonly string[]; onClose: () => void; onDone: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [touched, setTouched] = useState(false);
  const [key] = useState(() => crypto.randomUUID());
  const problem = newNameProblem(name) ?? (existing.includes(name.normalize('NFC')) ? 'A checkpoint with this name already exists.' : null);
  const { run, busy, error } = useAction(async () => {
    await invoke('checkpoints.create', { project, name, description: description === '' ? null : description, idempotency_key: key, ...actorField() });
    onDone();
    onClose();
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (problem !== null) return;
    void run();
  };
  return (
    <Dialog title="Create a checkpoint" onClose={onClose} testId="create-dialog">
      <form onSubmit={submit} className="stack">
        <p className="muted">Names the current generation.</p>
        <label htmlFor="cp-name">Name</label>
        <input id="cp-name" value={name} onChange={(e) => { setName(e.target.value); setTouched(true); }} aria-invalid={touched && problem !== null} aria-describedby="cp-name-help" autoComplete="off" />
        <p id="cp-name-help" className={touched && problem !== null ? 'field-error' : 'muted small'} data-testid="name-problem" aria-live="polite">
          {touched && problem !== null ? problem : 'Letters, numbers, spaces, "_", "-", "."; 1–128 UTF-8 bytes.'}
        </p>
        <label htmlFor="cp-description">Description (optional)</label>
        <textarea id="cp-description" value={description} onChange={(e) => setDescription(e.target.value)} rows={2} />
        {error !== null && <ErrorBox error={error} testId="create-error" />}
        <div className="actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary" disabled={busy || problem !== null}>{busy ? 'Creating…' : 'Create'}</button>
        </div>
      </form>
    </Dialog>
  );
}

function DeleteDialog({ project, name, onClose, onDone }: { project: string; name: string; onClose: () => void; onDone: () => void }) {
  const [key] = useState(() => crypto.randomUUID());
  const { run: confirm, busy, error } = useAction(async () => {
    await invoke('checkpoints.delete', { project, name, idempotency_key: key, ...actorField() });
    onDone();
    onClose();
  });
  return (
    <Dialog title={`Delete checkpoint “${name}”?`} onClose={onClose} testId="delete-dialog">
      <p>The name is removed; its generation stays until ordinary retention. This cannot be undone from here.</p>
      {error !== null && <ErrorBox error={error} testId="delete-error" />}
      <div className="actions">
        <button type="button" onClick={onClose}>Keep it</button>
        <button type="button" className="danger" onClick={() => void confirm()} disabled={busy}>{busy ? 'Deleting…' : 'Delete'}</button>
      </div>
    </Dialog>
  );
}
