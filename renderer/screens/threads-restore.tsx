// Agent threads: the guided restore. A preview diff from the head to the
// target, a required reason (the revert reason rules), the thread id typed to
// confirm, then the receipt with the new head. The request's idempotency key
// is kept until a receipt is shown, so a retry after a lost answer returns the
// original receipt instead of restoring twice.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { reasonProblem } from '../../core/contract/reasons';
import { THREAD_HEAD_SELECTOR, type ThreadRestoreReceipt } from '../../core/contract/threads';
import { ErrorBox } from '../components/error-box';
import { ReasonField } from '../components/reason-field';
import { useAction } from '../hooks';
import { ActorLabel } from '../components/actor-label';
import { When } from '../components/when';
import { WriteProgress } from '../components/write-progress';
import { actorField } from '../store';
import { invoke } from '../invoke';
import { ThreadDiffView } from './threads-inspect';
import { shortId, threadError, type ThreadSource } from './threads-common';

/** Restore `target` as the new head of `thread`. */
export function RestorePanel({ source, thread, target, targetTime, headId, revision, onRestored, onStale, onInspect }: {
  readonly source: ThreadSource;
  readonly thread: string;
  readonly target: string;
  /** The target's time, when the history page holding it is loaded. */
  readonly targetTime: string | null;
  /** The thread's newest checkpoint (null while the history loads). */
  readonly headId: string | null;
  readonly revision: number;
  readonly onRestored: (receipt: ThreadRestoreReceipt) => void;
  /** The engine refused the restore because the head moved: reload the history and the preview. */
  readonly onStale: () => void;
  readonly onInspect: (checkpointId: string) => void;
}) {
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const [confirmText, setConfirmText] = useState('');
  const [receipt, setReceipt] = useState<ThreadRestoreReceipt | null>(null);
  // One key per target until its receipt: a retried request is a replay, never a second restore.
  const key = useRef<{ readonly target: string; readonly key: string } | null>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  const receiptRef = useRef<HTMLHeadingElement>(null);
  /** The head the user's preview was computed from: the restore is bound to it. */
  const [basis, setBasis] = useState<string | null>(null);
  const [stale, setStale] = useState(false);
  useEffect(() => {
    setConfirmText('');
    setBasis(null);
    setStale(false);
  }, [target, thread]);
  /** The head our own restore appended, until the history shows it (that change is no surprise). */
  const own = useRef<string | null>(null);
  useEffect(() => {
    if (headId === null) return;
    if (own.current !== null) {
      if (headId === basis) return; // still the history from before our own restore
      const ours = headId === own.current;
      own.current = null;
      setBasis(headId);
      if (ours) return;
      setStale(true);
      setConfirmText('');
      return;
    }
    if (basis === null) setBasis(headId);
    else if (basis !== headId) {
      // The thread got a new head (another tab, a running graph): the preview changed under the confirmation.
      setBasis(headId);
      setStale(true);
      setConfirmText('');
    }
  }, [headId, basis]);
  useEffect(() => {
    if (receipt !== null) receiptRef.current?.focus();
  }, [receipt]);
  const problem = reasonProblem(reason);
  const confirmed = confirmText === thread;
  const isHead = headId !== null && headId === target;
  const ready = headId !== null && !isHead && problem === null && confirmed;
  const action = useAction(async () => {
    if (key.current === null || key.current.target !== `${thread}|${target}`) key.current = { target: `${thread}|${target}`, key: crypto.randomUUID() };
    const actor = actorField().actor_uuid;
    let r: ThreadRestoreReceipt;
    try {
      r = await invoke('threads.restore', { source, thread_id: thread, checkpoint_id: target, reason, idempotency_key: key.current.key, ...(actor === undefined ? {} : { actor }), ...(basis === null ? {} : { expected_head_checkpoint_id: basis }) });
    } catch (e) {
      if ((e as { code?: unknown } | null)?.code === 'GF_STALE_PREVIEW') {
        setStale(true);
        setConfirmText('');
        onStale();
        return;
      }
      throw e;
    }
    key.current = null;
    // Our own restore appends the new head: the history showing it is no surprise.
    own.current = r.checkpoint_id;
    setStale(false);
    setReceipt(r);
    setReason('');
    setTouched(false);
    setConfirmText('');
    onRestored(r);
  });
  useEffect(() => {
    if (action.error !== null) errorRef.current?.focus();
  }, [action.error]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (ready) void action.run();
  };
  const busy = action.busy;
  return (
    <div data-testid="thread-restore">
      {receipt !== null && (
        <div className="receipt" role="status" data-testid="restore-receipt">
          <h4 ref={receiptRef} tabIndex={-1}>{receipt.replayed ? 'This restore was already done: nothing new was written' : `Restored “${receipt.thread_id}”: a new head was appended`}</h4>
          <dl className="record-fields">
            <div><dt>reason</dt><dd data-testid="receipt-reason">{receipt.reason}</dd></div>
            <div><dt>restored at</dt><dd><When iso={receipt.restored_at} /></dd></div>
            <div><dt>by</dt><dd><ActorLabel actor={receipt.actor} testId="restore-receipt-actor" /></dd></div>
            <div><dt>new head</dt><dd className="mono" data-testid="receipt-new-head">{receipt.checkpoint_id}</dd></div>
            <div><dt>restored from</dt><dd className="mono" data-testid="receipt-restored-from">{receipt.restored_from}</dd></div>
            <div><dt>previous head</dt><dd className="mono">{receipt.parent_checkpoint_id}</dd></div>
            <div><dt>request id</dt><dd className="mono">{receipt.idempotency_key}</dd></div>
          </dl>
          <div className="actions">
            <button type="button" onClick={() => onInspect(receipt.checkpoint_id)} data-testid="receipt-inspect">Inspect the new head</button>
          </div>
        </div>
      )}
      {isHead ? (
        <p className="notice" data-testid="restore-is-head">This checkpoint is already the head of the thread: restoring it would change nothing. Choose an earlier checkpoint in the history.</p>
      ) : (
        <form onSubmit={submit} aria-describedby="restore-blocked">
          {stale && (
            <div className="warning" role="alert" data-testid="restore-stale">
              <p><strong>The thread's head changed since you previewed.</strong> The preview below is computed from the new head; review it and type the thread id again to confirm.</p>
            </div>
          )}
          <ol className="steps">
            <li>
              <h4>What the restore changes (head → this checkpoint{targetTime !== null && <> of <When iso={targetTime} /></>})</h4>
              <ThreadDiffView source={source} thread={thread} from={THREAD_HEAD_SELECTOR} to={target} revision={revision} label="Restore preview: value changes" testId="restore-preview" />
              <p className="muted small">A new checkpoint equal to <span className="mono" title={target}>{shortId(target)}</span> is appended at the head; no checkpoint is changed or deleted.</p>
            </li>
            <li>
              <ReasonField id="restore-reason" reason={reason} problem={problem} touched={touched} disabled={busy} testId="restore-reason-problem" onChange={setReason} onTouched={() => setTouched(true)} />
            </li>
            <li>
              <label htmlFor="restore-confirm">Type the thread id to confirm: <strong>{thread}</strong></label>
              <input id="restore-confirm" value={confirmText} onChange={(e) => setConfirmText(e.target.value)} autoComplete="off" spellCheck={false} disabled={busy} aria-invalid={confirmText !== '' && !confirmed} />
            </li>
          </ol>
          <p id="restore-blocked" className="muted small" data-testid="restore-blocked">
            {ready || busy ? '' : headId === null ? 'Restore is available once the history is read.' : problem !== null ? 'Restore needs a reason (1 to 1,024 bytes).' : 'Restore needs the thread id typed to confirm.'}
          </p>
          <div className="actions">
            <button type="submit" className="danger" disabled={busy || !ready} data-testid="restore-submit">{busy ? 'Restoring…' : 'Restore'}</button>
          </div>
        </form>
      )}
      {busy && <WriteProgress label="Restore in progress" text="Appending the restored checkpoint" note="A restore cannot be cancelled once it starts: it appends one checkpoint, or none." />}
      {action.error !== null && (
        <div ref={errorRef} tabIndex={-1}>
          <ErrorBox error={threadError(action.error)} testId="restore-error" />
        </div>
      )}
    </div>
  );
}
