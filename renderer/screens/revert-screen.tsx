// Guided revert: checkpoint → preview → reason (1–1,024 bytes, live) →
// confirm by typing the name → progress → receipt. The idempotency key is
// kept until a receipt is shown, so a retried revert (after a crash or a
// lost response) returns the original receipt instead of reverting twice.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { JsonResults, Row } from '../../core/contract/operations';
import { reasonProblem, trimReason } from '../../core/contract/reasons';
import { decodeArrow } from '../arrow-rows';
import { ErrorBox } from '../components/error-box';
import { ReasonField } from '../components/reason-field';
import { countOf, formatCount, plural } from '../format';
import { CreateDialog } from './history-screen';
import { useAction, useQuery } from '../hooks';
import { invoke } from '../invoke';
import { useShallow } from 'zustand/react/shallow';
import { useStudio } from '../store';

type Preview = JsonResults['revert.preview'];
type Receipt = Row<'checkpoints.revert'>;
const PENDING_KEY = 'gf.pending-revert';

interface Pending {
  readonly workspace: string;
  readonly name: string;
  readonly key: string;
}

function pendingFor(workspace: string, name: string): string {
  try {
    const p = JSON.parse(localStorage.getItem(PENDING_KEY) ?? 'null') as Pending | null;
    if (p !== null && p.workspace === workspace && p.name === name) return p.key;
  } catch {
    // ignore a damaged entry
  }
  const key = crypto.randomUUID();
  localStorage.setItem(PENDING_KEY, JSON.stringify({ workspace, name, key } satisfies Pending));
  return key;
}

/** The participants a revert would change (the preview's summary rows other than `unchanged`). */
const changed = (p: Preview): Preview['changes'] => p.changes.filter((c) => c.change_kind !== 'unchanged');

/** The guided revert screen. */
export function RevertScreen() {
  const { checkpoints, workspace, focusName, refresh, markRevert, go, revision, setRoute } = useStudio(useShallow((s) => ({ checkpoints: s.checkpoints, workspace: s.workspace, focusName: s.focusName, refresh: s.refresh, markRevert: s.markRevert, go: s.go, revision: s.revision, setRoute: s.setRoute })));
  const names = checkpoints.map((c) => c.name ?? '');
  const [name, setName] = useState(focusName ?? names[0] ?? '');
  // A deep link followed while the screen is open (back, forward, an edited address).
  useEffect(() => {
    if (focusName !== null) setName(focusName);
  }, [focusName]);
  const [reason, setReason] = useState('');
  const [reasonTouched, setReasonTouched] = useState(false);
  const [confirmText, setConfirmText] = useState('');
  const [sameConfirmed, setSameConfirmed] = useState(false);
  const [receipt, setReceipt] = useState<{ readonly row: Receipt; readonly reason: string } | null>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  // The reason as the lineage log stored it (trimmed), read back for the receipt.
  const receiptGeneration = receipt?.row.result_generation_uuid ?? null;
  const stored = useQuery(receiptGeneration === null || workspace === null ? null : `${workspace.project}|${receiptGeneration}`, async () => {
    const page = await invoke('history.list', { project: workspace?.project ?? '', limit: 1, after: null, generation_uuid: receiptGeneration ?? '' });
    return page.entries[0]?.reason ?? null;
  });

  // One request: the preview carries its own summary rows (no second diff).
  // Keyed on the store revision: a refresh (ours after a revert, or a live
  // update from another process) recomputes it against the new CURRENT.
  const project = workspace?.project ?? null;
  const preview = useQuery(project === null || name === '' ? null : `${project}|${name}|${revision}`, () => invoke('revert.preview', { project: project ?? '', name }));
  const p = preview.data;
  /** A target whose content already equals CURRENT's: publishing would change nothing (the engine says so). */
  const sameContent = p !== null && p.same_content;
  const [creatingFirst, setCreatingFirst] = useState(false);

  const problem = reasonProblem(reason);
  const confirmed = confirmText === name && name !== '';
  const ready = p !== null && confirmed && problem === null && (!sameContent || sameConfirmed);
  const action = useAction(async () => {
    if (workspace === null) return;
    const key = pendingFor(workspace.label, name);
    const r = await invoke('checkpoints.revert', { project: workspace.project, name, reason, idempotency_key: key });
    const row = decodeArrow(r.bytes, 'checkpoints.revert').rows[0] ?? null;
    localStorage.removeItem(PENDING_KEY);
    if (row !== null) setReceipt({ row, reason: trimReason(reason) });
    setCreatingFirst(false);
    if (row !== null && row.result_generation_uuid !== null) markRevert(row.result_generation_uuid);
    // A fresh form: a second click cannot publish a second generation.
    setReason('');
    setReasonTouched(false);
    setConfirmText('');
    setSameConfirmed(false);
    await refresh();
  });
  const { busy, error } = action;
  /** A checkpoint naming the receipt's previous CURRENT (a diff endpoint), if any. */
  const sameUuid = (a: string | null, b: string | null): boolean => a !== null && b !== null && a.replace(/-/g, '').toLowerCase() === b.replace(/-/g, '').toLowerCase();
  const priorName = receipt === null ? null : checkpoints.find((c) => sameUuid(c.generation_uuid, receipt.row.prior_current_generation_uuid))?.name ?? null;
  useEffect(() => {
    if (error !== null) errorRef.current?.focus();
  }, [error]);
  const choose = (n: string) => {
    setName(n);
    setRoute({ screen: 'revert', params: { name: n } }, { replace: true });
    setReceipt(null);
    setConfirmText('');
    setSameConfirmed(false);
    action.clearError();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setReasonTouched(true);
    if (ready) void action.run();
  };

  return (
    <section className="screen" aria-labelledby="revert-title">
      <h2 id="revert-title">Revert to a checkpoint</h2>
      <form onSubmit={submit} aria-describedby="revert-blocked">
        <ol className="steps">
          <li>
            <label htmlFor="revert-name">Checkpoint</label>{' '}
            <select id="revert-name" value={name} onChange={(e) => choose(e.target.value)} disabled={busy}>
              {names.map((n) => <option key={n} value={n}>{n}</option>)}
            </select>
          </li>
          <li>
            <h3>What will change</h3>
            {p === null && preview.error === null && <p className="muted">Computing the preview…</p>}
            {preview.error !== null && <ErrorBox error={preview.error} testId="revert-preview-error" />}
            {p !== null && (
              <div data-testid="revert-preview">
                <p>
                  CURRENT <span className="mono" data-testid="preview-current">{p.current_generation_uuid.slice(0, 8)}</span> will be followed by a new generation equal to{' '}
                  <span className="mono">{p.source_generation_uuid.slice(0, 8)}</span>.{' '}
                  <span data-testid="revert-change-count">{formatCount(changed(p).length)}</span> {plural(changed(p).length, 'participant changes', 'participants change')}.
                </p>
                <ul className="plain-list">
                  {changed(p).map((c) => (
                    <li key={`${c.capability_id}/${c.record_family_id}`} className={`change-${c.change_kind}`}>
                      <span className="mono">{c.capability_id}/{c.record_family_id}</span> {c.change_kind} ({formatCount(c.from_row_count ?? 0)} → {formatCount(c.to_row_count ?? 0)} rows)
                    </li>
                  ))}
                </ul>
                {p.prunable.length > 0 && (
                  <div className="warning" data-testid="revert-prunable" role="note" aria-labelledby="prunable-title">
                    <h4 id="prunable-title">
                      {countOf(p.prunable.length, 'generation becomes', 'generations become')} prunable
                    </h4>
                    <p className="small">
                      Retention keeps CURRENT, its {countOf(p.retain_ancestors, 'nearest ancestor', 'nearest ancestors')} and every checkpoint. After this revert, the next cleanup removes the
                      content of these unnamed generations; History keeps listing them as pruned.
                    </p>
                    <ul className="plain-list">
                      {p.prunable.map((g) => (
                        <li key={g.generation_uuid} data-testid="prunable-row">
                          {g.published_at ?? 'unknown time'} · {g.kind ?? 'publication'}
                          {g.reason !== null && <> · “{g.reason}”</>} · <span className="mono" title={g.generation_uuid}>{g.generation_uuid.slice(0, 8)}</span>
                        </li>
                      ))}
                    </ul>
                    <button type="button" onClick={() => setCreatingFirst(true)} disabled={busy} data-testid="checkpoint-current-first">
                      Create a checkpoint on CURRENT first
                    </button>
                  </div>
                )}
                {sameContent && (
                  <div className="warning" data-testid="revert-same-content">
                    <p>“{name}” already has the same records as CURRENT: reverting still publishes a new generation, which differs from CURRENT only by its restoration record (the record of this revert).</p>
                    <label className="toggle">
                      <input type="checkbox" checked={sameConfirmed} onChange={(e) => setSameConfirmed(e.target.checked)} disabled={busy} data-testid="revert-same-confirm" /> Publish it anyway
                    </label>
                  </div>
                )}
              </div>
            )}
          </li>
          <li>
            <ReasonField id="revert-reason" reason={reason} problem={problem} touched={reasonTouched} disabled={busy} testId="reason-problem" onChange={setReason} onTouched={() => setReasonTouched(true)} />
          </li>
          <li>
            <label htmlFor="revert-confirm">Type the checkpoint name to confirm: <strong>{name}</strong></label>
            <input id="revert-confirm" value={confirmText} onChange={(e) => setConfirmText(e.target.value)} autoComplete="off" disabled={busy} aria-invalid={confirmText !== '' && !confirmed} />
          </li>
        </ol>
        <p id="revert-blocked" className="muted small" data-testid="revert-blocked">
          {ready || busy ? '' : blockedReason({ preview: p !== null, confirmed, reasonOk: problem === null, sameContent, sameConfirmed })}
        </p>
        <div className="actions">
          <button type="submit" className="danger" disabled={busy || !ready} data-testid="revert-submit">
            {busy ? 'Reverting…' : 'Revert'}
          </button>
        </div>
      </form>
      {busy && <p role="status"><progress aria-label="Revert in progress" /> Publishing the restored generation…</p>}
      {error !== null && (
        <div ref={errorRef} tabIndex={-1} data-testid="revert-error-focus">
          <ErrorBox error={error} testId="revert-error" />
        </div>
      )}
      {creatingFirst && workspace !== null && (
        <CreateDialog project={workspace.project} existing={names} onClose={() => setCreatingFirst(false)} onDone={() => void refresh()} />
      )}
      {receipt !== null && (
        <div className="receipt" role="status" data-testid="revert-receipt">
          <h3>Reverted to “{receipt.row.name}”</h3>
          <dl className="record-fields">
            <div><dt>reason</dt><dd data-testid="receipt-reason">{stored.data ?? receipt.reason}</dd></div>
            <div><dt>committed at</dt><dd>{receipt.row.committed_at}</dd></div>
            <div><dt>new generation</dt><dd className="mono" data-testid="receipt-generation">{receipt.row.result_generation_uuid}</dd></div>
            <div><dt>previous CURRENT</dt><dd className="mono" data-testid="receipt-prior">{receipt.row.prior_current_generation_uuid}</dd></div>
            <div><dt>operation</dt><dd className="mono" data-testid="receipt-operation">{receipt.row.operation_uuid}</dd></div>
          </dl>
          <div className="actions">
            <button type="button" onClick={() => go('history')}>See it in the history</button>
            {priorName !== null ? (
              <button type="button" className="link" data-testid="receipt-diff-previous" onClick={() => setRoute({ screen: 'diff', params: { from: priorName, to: 'CURRENT' } })}>
                Diff with the previous CURRENT (“{priorName}”)
              </button>
            ) : (
              <span className="muted small" data-testid="receipt-diff-previous-unnamed">
                The previous CURRENT has no checkpoint name, so it cannot be diffed (diffs take checkpoint names); “Create a checkpoint on CURRENT first” keeps one.
              </span>
            )}
          </div>
        </div>
      )}
    </section>
  );
}

/** Why Revert is disabled, in words (announced with the button). */
function blockedReason(s: { preview: boolean; confirmed: boolean; reasonOk: boolean; sameContent: boolean; sameConfirmed: boolean }): string {
  if (!s.preview) return 'Revert is available once the preview is computed.';
  if (!s.reasonOk) return 'Revert needs a reason (1 to 1,024 bytes).';
  if (!s.confirmed) return 'Revert needs the checkpoint name typed to confirm.';
  if (s.sameContent && !s.sameConfirmed) return 'Confirm that you want to publish a generation that only records this revert.';
  return '';
}
