// History: the generation timeline (parents, restorations), named
// checkpoints as labels, create (validated as typed) and delete (confirmed);
// deleted checkpoints (tombstones) on request.
import { useMemo, useState, type FormEvent } from 'react';
import type { Row } from '../../core/contract/operations';
import { newNameProblem } from '../../core/contract/names';
import { decodeArrow } from '../arrow-rows';
import { Dialog } from '../components/dialog';
import { ErrorBox } from '../components/error-box';
import { fetchAllPages, useAction, useQuery, type Query } from '../hooks';
import { invoke } from '../invoke';
import { useShallow } from 'zustand/react/shallow';
import { useStudio, type CheckpointRow } from '../store';

/** A deleted checkpoint (`checkpoint_tombstone@1`). */
type TombstoneRow = Row<'checkpoints.list', 'checkpoint_tombstone@1'>;

const short = (u: string | null | undefined): string => (u === null || u === undefined ? '—' : u.slice(0, 8));

/** The history screen. */
export function HistoryScreen() {
  const { summary, checkpoints, workspace, refresh, go, lastRevertGeneration, revision } = useStudio(useShallow((s) => ({ summary: s.summary, checkpoints: s.checkpoints, workspace: s.workspace, refresh: s.refresh, go: s.go, lastRevertGeneration: s.lastRevertGeneration, revision: s.revision })));
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<string | null>(null);
  const labels = useMemo(() => {
    const m = new Map<string, CheckpointRow[]>();
    for (const c of checkpoints) {
      const g = c.generation_uuid ?? '';
      m.set(g, [...(m.get(g) ?? []), c]);
    }
    return m;
  }, [checkpoints]);
  const [showDeleted, setShowDeleted] = useState(false);
  const deleted = useDeletedCheckpoints(showDeleted ? workspace?.project ?? null : null, revision);
  const byUuid = useMemo(() => new Map(checkpoints.map((c) => [c.checkpoint_uuid ?? '', c.name ?? ''])), [checkpoints]);
  if (summary === null || workspace === null) return <p className="muted">Loading history…</p>;
  const gens = summary.generations;
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
        <span data-testid="generation-count">{gens.length}</span> generations · <span data-testid="checkpoint-count">{checkpoints.length}</span> active checkpoints
      </p>
      {summary.older_generations_cleaned_up && (
        <p className="muted small" data-testid="history-cleaned-up">
          Older generations were cleaned up by retention: the timeline shows every generation still on disk (a parent shown without its row is gone).
        </p>
      )}
      <section aria-label="Generations">
        <table className="timeline" data-testid="timeline">
          <caption className="sr-only">Generations, newest first</caption>
          <thead>
            <tr><th scope="col">generation</th><th scope="col">parent</th><th scope="col">checkpoints</th><th scope="col">participants</th><th scope="col">produced by</th></tr>
          </thead>
          <tbody>
            {gens.map((g) => (
              <tr key={g.generation_uuid} className={g.generation_uuid === lastRevertGeneration ? 'is-new' : undefined} data-testid="generation-row">
                <td className="mono" title={g.generation_uuid}>{g.generation_uuid}</td>
                <td className="mono" title={g.parent_generation_uuid ?? ''}>{short(g.parent_generation_uuid)}</td>
                <td>
                  {g.is_current && <span className="badge badge-current">CURRENT</span>}
                  {(labels.get(g.generation_uuid) ?? []).map((c) => (
                    <span className="label-chip" key={c.checkpoint_uuid}>
                      <button type="button" className="link" onClick={() => go('checkpoint', c.name)} data-testid="checkpoint-label" title={c.description ?? ''}>
                        {c.name}
                      </button>
                      <button type="button" className="icon" aria-label={`Delete checkpoint ${c.name ?? ''}`} onClick={() => setDeleting(c.name ?? '')}>
                        ×
                      </button>
                    </span>
                  ))}
                </td>
                <td>{g.participant_count}</td>
                <td data-testid="produced-by">
                  {g.restoration === null ? (
                    g.parent_generation_uuid === null ? 'first publication' : 'publication'
                  ) : (
                    <span className="restoration">
                      <span className="badge badge-revert">revert</span> to {byUuid.get(g.restoration.checkpoint_uuid) ?? short(g.restoration.checkpoint_uuid)} (source {short(g.restoration.source_generation_uuid)}, at{' '}
                      {g.restoration.restored_at})
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
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
                    <td>{t.deleted_at}</td>
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

/** Every tombstone of the project (pages of 500) while `project` is set; refetched on every refresh (`revision`). */
function useDeletedCheckpoints(project: string | null, revision: number): Query<readonly TombstoneRow[]> {
  return useQuery(project === null ? null : `${project}|${revision}`, async (signal) => {
    const pages = await fetchAllPages((after) => invoke('checkpoints.list', { project: project ?? '', deleted: true, limit: 500, after }), { maxPages: 100, signal });
    return pages.flatMap((page) => decodeArrow(page.bytes, 'checkpoints.list', 'checkpoint_tombstone@1').rows);
  });
}

function CreateDialog({ project, existing, onClose, onDone }: { project: string; existing: readonly string[]; onClose: () => void; onDone: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [touched, setTouched] = useState(false);
  const [key] = useState(() => crypto.randomUUID());
  const problem = newNameProblem(name) ?? (existing.includes(name.normalize('NFC')) ? 'A checkpoint with this name already exists.' : null);
  const { run, busy, error } = useAction(async () => {
    await invoke('checkpoints.create', { project, name, description: description === '' ? null : description, idempotency_key: key });
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
    await invoke('checkpoints.delete', { project, name, idempotency_key: key });
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
