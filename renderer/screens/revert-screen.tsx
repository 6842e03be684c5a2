// Guided revert: checkpoint → preview → reason (1–1,024 bytes, live) →
// confirm by typing the name → progress → receipt. The idempotency key is
// kept until a receipt is shown, so a retried revert (after a crash or a
// lost response) returns the original receipt instead of reverting twice.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { JsonResults, Row } from '../../core/contract/operations';
import { REASON_MAX_UTF8_BYTES, reasonBytes, reasonProblem, trimReason } from '../../core/contract/reasons';
import { decodeArrow } from '../arrow-rows';
import { ErrorBox } from '../components/error-box';
import { formatCount, plural } from '../format';
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

  // One request: the preview carries its own summary rows (no second diff).
  // Keyed on the store revision: a refresh (ours after a revert, or a live
  // update from another process) recomputes it against the new CURRENT.
  const project = workspace?.project ?? null;
  const preview = useQuery(project === null || name === '' ? null : `${project}|${name}|${revision}`, () => invoke('revert.preview', { project: project ?? '', name }));
  const p = preview.data;
  /** A target whose content already equals CURRENT's: publishing would change nothing. */
  const sameContent = p !== null && changed(p).length === 0;

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
    if (row !== null && row.result_generation_uuid !== null) markRevert(row.result_generation_uuid);
    // A fresh form: a second click cannot publish a second generation.
    setReason('');
    setReasonTouched(false);
    setConfirmText('');
    setSameConfirmed(false);
    await refresh();
  });
  const { busy, error } = action;
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
                {sameContent && (
                  <div className="warning" data-testid="revert-same-content">
                    <p>“{name}” already has the same content as CURRENT: reverting publishes a generation that changes nothing.</p>
                    <label className="toggle">
                      <input type="checkbox" checked={sameConfirmed} onChange={(e) => setSameConfirmed(e.target.checked)} disabled={busy} data-testid="revert-same-confirm" /> Publish it anyway
                    </label>
                  </div>
                )}
              </div>
            )}
          </li>
          <li>
            <label htmlFor="revert-reason">Reason (required)</label>
            <textarea id="revert-reason" rows={3} value={reason} onChange={(e) => { setReason(e.target.value); setReasonTouched(true); }} onBlur={() => setReasonTouched(true)} aria-invalid={reasonTouched && problem !== null} aria-describedby="revert-reason-help" disabled={busy} />
            <p id="revert-reason-help" className={reasonTouched && problem !== null ? 'field-error' : 'muted small'} data-testid="reason-problem" aria-live="polite">
              {reasonTouched && problem !== null ? problem : `${formatCount(reasonBytes(reason))} / ${formatCount(REASON_MAX_UTF8_BYTES)} bytes`}
            </p>
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
      {receipt !== null && (
        <div className="receipt" role="status" data-testid="revert-receipt">
          <h3>Reverted to “{receipt.row.name}”</h3>
          <dl className="record-fields">
            <div><dt>reason</dt><dd data-testid="receipt-reason">{receipt.reason}</dd></div>
            <div><dt>committed at</dt><dd>{receipt.row.committed_at}</dd></div>
            <div><dt>new generation</dt><dd className="mono" data-testid="receipt-generation">{receipt.row.result_generation_uuid}</dd></div>
            <div><dt>previous CURRENT</dt><dd className="mono" data-testid="receipt-prior">{receipt.row.prior_current_generation_uuid}</dd></div>
            <div><dt>operation</dt><dd className="mono" data-testid="receipt-operation">{receipt.row.operation_uuid}</dd></div>
          </dl>
          <button type="button" onClick={() => go('history')}>See it in the history</button>
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
  if (s.sameContent && !s.sameConfirmed) return 'Confirm that you want to publish a generation that changes nothing.';
  return '';
}
