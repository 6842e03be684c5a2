// Guided revert: checkpoint → preview → reason (1–1,024 bytes, live) →
// confirm by typing the name → progress → receipt. The idempotency key is
// kept until a receipt is shown, so a retried revert (after a crash or a
// lost response) returns the original receipt instead of reverting twice.
import { useEffect, useState } from 'react';
import type { JsonResults, Row } from '../../core/contract/operations';
import { REASON_MAX_UTF8_BYTES, reasonBytes, reasonProblem } from '../../core/contract/reasons';
import { decodeArrow } from '../arrow-rows';
import { ErrorBox } from '../components/error-box';
import { showError, type ShownError } from '../errors-text';
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
  const { checkpoints, workspace, focusName, refresh, markRevert, go } = useStudio(useShallow((s) => ({ checkpoints: s.checkpoints, workspace: s.workspace, focusName: s.focusName, refresh: s.refresh, markRevert: s.markRevert, go: s.go })));
  const names = checkpoints.map((c) => c.name ?? '');
  const [name, setName] = useState(focusName ?? names[0] ?? '');
  const [preview, setPreview] = useState<Preview | null>(null);
  const [reason, setReason] = useState('');
  const [reasonTouched, setReasonTouched] = useState(false);
  const [confirmText, setConfirmText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const [receipt, setReceipt] = useState<Receipt | null>(null);

  useEffect(() => {
    setPreview(null);
    setError(null);
    setReceipt(null);
    setConfirmText('');
    if (workspace === null || name === '') return;
    let live = true;
    (async () => {
      // One request: the preview carries its own summary rows (no second diff).
      const p = await invoke('revert.preview', { project: workspace.project, name });
      if (!live) return;
      setPreview(p);
    })().catch((e: unknown) => live && setError(showError(e)));
    return () => {
      live = false;
    };
  }, [workspace, name]);

  const problem = reasonProblem(reason);
  const confirmed = confirmText === name && name !== '';
  const submit = async () => {
    setReasonTouched(true);
    if (workspace === null || problem !== null || !confirmed) return;
    setBusy(true);
    setError(null);
    try {
      const key = pendingFor(workspace.label, name);
      const r = await invoke('checkpoints.revert', { project: workspace.project, name, reason, idempotency_key: key });
      const row = decodeArrow(r.bytes, 'checkpoints.revert').rows[0] ?? null;
      setReceipt(row);
      localStorage.removeItem(PENDING_KEY);
      if (row !== null && row.result_generation_uuid !== null) markRevert(row.result_generation_uuid);
      await refresh();
    } catch (e) {
      setError(showError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="screen" aria-labelledby="revert-title">
      <h2 id="revert-title">Revert to a checkpoint</h2>
      <ol className="steps">
        <li>
          <label htmlFor="revert-name">Checkpoint</label>{' '}
          <select id="revert-name" value={name} onChange={(e) => setName(e.target.value)} disabled={busy}>
            {names.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </li>
        <li>
          <h3>What will change</h3>
          {preview === null && error === null && <p className="muted">Computing the preview…</p>}
          {preview !== null && (
            <div data-testid="revert-preview">
              <p>
                CURRENT <span className="mono">{preview.current_generation_uuid.slice(0, 8)}</span> will be followed by a new generation equal to{' '}
                <span className="mono">{preview.source_generation_uuid.slice(0, 8)}</span>. <span data-testid="revert-change-count">{changed(preview).length}</span> participants change.
              </p>
              <ul className="plain-list">
                {changed(preview).map((c) => (
                  <li key={`${c.capability_id}/${c.record_family_id}`} className={`change-${c.change_kind}`}>
                    <span className="mono">{c.capability_id}/{c.record_family_id}</span> {c.change_kind} ({c.from_row_count ?? 0} → {c.to_row_count ?? 0} rows)
                  </li>
                ))}
              </ul>
            </div>
          )}
        </li>
        <li>
          <label htmlFor="revert-reason">Reason (required)</label>
          <textarea id="revert-reason" rows={3} value={reason} onChange={(e) => { setReason(e.target.value); setReasonTouched(true); }} aria-invalid={reasonTouched && problem !== null} aria-describedby="revert-reason-help" disabled={busy} />
          <p id="revert-reason-help" className={reasonTouched && problem !== null ? 'field-error' : 'muted small'} data-testid="reason-problem" aria-live="polite">
            {reasonTouched && problem !== null ? problem : `${reasonBytes(reason)} / ${REASON_MAX_UTF8_BYTES} bytes`}
          </p>
        </li>
        <li>
          <label htmlFor="revert-confirm">Type the checkpoint name to confirm: <strong>{name}</strong></label>
          <input id="revert-confirm" value={confirmText} onChange={(e) => setConfirmText(e.target.value)} autoComplete="off" disabled={busy} />
        </li>
      </ol>
      <div className="actions">
        <button type="button" className="danger" onClick={() => void submit()} disabled={busy || !confirmed} data-testid="revert-submit">
          {busy ? 'Reverting…' : 'Revert'}
        </button>
      </div>
      {busy && <p role="status"><progress aria-label="Revert in progress" /> Publishing the restored generation…</p>}
      {error !== null && <ErrorBox error={error} testId="revert-error" />}
      {receipt !== null && (
        <div className="receipt" role="status" data-testid="revert-receipt">
          <h3>Reverted</h3>
          <dl className="record-fields">
            <div><dt>new generation</dt><dd className="mono" data-testid="receipt-generation">{receipt.result_generation_uuid}</dd></div>
            <div><dt>operation</dt><dd className="mono" data-testid="receipt-operation">{receipt.operation_uuid}</dd></div>
            <div><dt>checkpoint</dt><dd>{receipt.name}</dd></div>
            <div><dt>prior CURRENT</dt><dd className="mono">{receipt.prior_current_generation_uuid}</dd></div>
            <div><dt>committed at</dt><dd>{receipt.committed_at}</dd></div>
          </dl>
          <button type="button" onClick={() => go('history')}>See it in the history</button>
        </div>
      )}
    </section>
  );
}
