// Agent threads: the guided prune. Choose how many checkpoints each thread
// keeps (and whether only the open thread), preview what would go (time,
// thread, step and source first; ids one column to the right), then a
// required reason and the confirmation. The delete is bound to the preview's
// digest: a database that changed since is refused by the engine and the
// preview is read again. The idempotency key is kept until a receipt is shown.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { reasonProblem } from '../../core/contract/reasons';
import { exactUtc } from '../../core/contract/format';
import { THREAD_PAGE_LIMITS, THREAD_PRUNE_KEEP_MAX, type ThreadPrunePreview, type ThreadPruneReceipt, type ThreadPruneRow } from '../../core/contract/threads';
import { ErrorBox } from '../components/error-box';
import { ReasonField } from '../components/reason-field';
import { VirtualGrid, type GridColumn } from '../components/virtual-grid';
import { When } from '../components/when';
import { WriteProgress } from '../components/write-progress';
import { countOf, formatCount } from '../format';
import { useAction } from '../hooks';
import { invoke } from '../invoke';
import { actorField } from '../store';
import { shortId, threadError, type ThreadSource } from './threads-common';

const COLUMNS: readonly GridColumn<ThreadPruneRow>[] = [
  { id: 'time', header: 'Time', minRem: 19, render: (r) => (r.time === null ? '—' : <When iso={r.time} />), title: (r) => (r.time === null ? 'its document does not read' : `${exactUtc(r.time) ?? r.time} (UTC)`) },
  { id: 'thread_id', header: 'Thread', minRem: 10 },
  { id: 'step', header: 'Step', minRem: 4, render: (r) => (r.step === null ? '—' : formatCount(r.step)), title: (r) => String(r.step ?? '') },
  { id: 'source', header: 'Source', minRem: 5 },
  { id: 'checkpoint_id', header: 'Checkpoint', mono: true, minRem: 12, render: (r) => shortId(r.checkpoint_id), title: (r) => r.checkpoint_id },
];

const KEPT_WORDS: Readonly<Record<keyof ThreadPrunePreview['kept'], string>> = {
  head: 'heads',
  interrupted: 'waiting for an answer',
  restored_head: 'restores',
  restore_target: 'restored from',
  unreadable: 'unreadable metadata',
};

/** Prune old checkpoints of the source's threads (or of `thread` only), with a preview first. */
export function PrunePanel({ source, thread, onPruned }: { readonly source: ThreadSource; readonly thread: string | null; readonly onPruned: () => void }) {
  const [keepText, setKeepText] = useState('20');
  const [onlyThread, setOnlyThread] = useState(false);
  const [preview, setPreview] = useState<ThreadPrunePreview | null>(null);
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const [stale, setStale] = useState(false);
  const [receipt, setReceipt] = useState<ThreadPruneReceipt | null>(null);
  const key = useRef<{ readonly digest: string; readonly key: string } | null>(null);
  const keep = /^(0|[1-9][0-9]{0,6})$/.test(keepText) && Number(keepText) <= THREAD_PRUNE_KEEP_MAX ? Number(keepText) : null;
  const scope = onlyThread && thread !== null ? thread : null;
  // A preview answers one request: changing the request drops it.
  useEffect(() => {
    setPreview(null);
    setStale(false);
  }, [keep, scope]);
  const load = useAction(async () => {
    if (keep === null) return;
    setPreview(await invoke('threads.prune_preview', { source, keep_last: keep, ...(scope === null ? {} : { thread_id: scope }), limit: THREAD_PAGE_LIMITS.max }));
  });
  const problem = reasonProblem(reason);
  const ready = preview !== null && preview.total > 0 && problem === null;
  const prune = useAction(async () => {
    if (preview === null) return;
    if (key.current === null || key.current.digest !== preview.preview_digest) key.current = { digest: preview.preview_digest, key: crypto.randomUUID() };
    const actor = actorField().actor_uuid;
    let r: ThreadPruneReceipt;
    try {
      r = await invoke('threads.prune', { source, keep_last: preview.keep_last, ...(preview.thread_id === null ? {} : { thread_id: preview.thread_id }), reason, idempotency_key: key.current.key, expected_preview_digest: preview.preview_digest, ...(actor === undefined ? {} : { actor }) });
    } catch (e) {
      if ((e as { code?: unknown } | null)?.code === 'GF_STALE_PREVIEW') {
        // The database changed under the preview: show the new one, to be reviewed again.
        setStale(true);
        setPreview(null);
        void load.run();
        return;
      }
      throw e;
    }
    key.current = null;
    setReceipt(r);
    setPreview(null);
    setStale(false);
    setReason('');
    setTouched(false);
    onPruned();
  });
  const submitPreview = (e: FormEvent) => {
    e.preventDefault();
    setReceipt(null);
    void load.run();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (ready) void prune.run();
  };
  const busy = prune.busy || load.busy;
  const kept = preview === null ? [] : (Object.entries(preview.kept) as [keyof ThreadPrunePreview['kept'], number][]).filter(([, n]) => n > 0);
  return (
    <div data-testid="thread-prune">
      <form className="row-form" onSubmit={submitPreview}>
        <label htmlFor="prune-keep">Checkpoints each thread keeps (newest)</label>
        <input id="prune-keep" inputMode="numeric" value={keepText} onChange={(e) => setKeepText(e.target.value.trim())} aria-invalid={keep === null} disabled={busy} />
        {thread !== null && (
          <label>
            <input type="checkbox" checked={onlyThread} onChange={(e) => setOnlyThread(e.target.checked)} disabled={busy} /> only “{thread}”
          </label>
        )}
        <button type="submit" disabled={busy || keep === null} data-testid="prune-preview-submit">{load.busy ? 'Reading…' : 'Preview the prune'}</button>
      </form>
      <p className="muted small">A prune never deletes a thread’s newest checkpoint, one waiting for an answer, a restore’s checkpoint or the one it restored from. Subgraph checkpoints are kept.</p>
      {receipt !== null && (
        <div className="receipt" role="status" data-testid="prune-receipt">
          <h4>{receipt.replayed ? 'This prune was already done: nothing more was deleted' : `Deleted ${countOf(receipt.checkpoints, 'checkpoint', 'checkpoints')} of ${countOf(receipt.threads, 'thread', 'threads')}`}</h4>
          <dl className="record-fields">
            <div><dt>reason</dt><dd data-testid="prune-receipt-reason">{receipt.reason}</dd></div>
            <div><dt>pruned at</dt><dd><When iso={receipt.pruned_at} /></dd></div>
            <div><dt>pending writes deleted</dt><dd>{formatCount(receipt.writes)}</dd></div>
            <div><dt>channel values deleted</dt><dd>{formatCount(receipt.blobs)}</dd></div>
            <div><dt>recorded in</dt><dd className="mono">{receipt.recorded_in}</dd></div>
          </dl>
        </div>
      )}
      {stale && (
        <div className="warning" role="alert" data-testid="prune-stale">
          <p><strong>The database changed since you previewed; nothing was deleted.</strong> The preview below is read again: review it before you confirm.</p>
        </div>
      )}
      {load.error !== null && <ErrorBox error={threadError(load.error)} testId="prune-preview-error" />}
      {preview !== null && (
        <form onSubmit={submit}>
          <p data-testid="prune-preview-total">
            {preview.total === 0 ? 'Nothing to delete: every older checkpoint is one a prune keeps.' : `${countOf(preview.total, 'checkpoint', 'checkpoints')} of ${countOf(preview.threads, 'thread', 'threads')} would be deleted.`}
            {kept.length > 0 && <> Older ones kept: {kept.map(([why, n]) => `${formatCount(n)} ${KEPT_WORDS[why]}`).join(', ')}.</>}
          </p>
          {preview.total > 0 && (
            <>
              <VirtualGrid
                label="Checkpoints the prune would delete"
                columns={COLUMNS}
                rows={preview.rows}
                rowKey={(r) => `${r.thread_id}\u0000${r.checkpoint_id}`}
                size="short"
                testId="prune-preview-rows"
                emptyText="Nothing to delete."
                status={preview.truncated ? `the first ${formatCount(preview.rows.length)} of ${formatCount(preview.total)} listed` : countOf(preview.rows.length, 'checkpoint', 'checkpoints')}
              />
              <ReasonField id="prune-reason" reason={reason} problem={problem} touched={touched} disabled={busy} testId="prune-reason-problem" onChange={setReason} onTouched={() => setTouched(true)} />
              <div className="actions">
                <button type="submit" className="danger" disabled={busy || !ready} data-testid="prune-submit">{prune.busy ? 'Deleting…' : `Delete ${countOf(preview.total, 'checkpoint', 'checkpoints')}`}</button>
              </div>
            </>
          )}
        </form>
      )}
      {prune.busy && <WriteProgress label="Prune in progress" text="Deleting the previewed checkpoints" note="A prune runs in one transaction: it deletes every previewed checkpoint, or none." />}
      {prune.error !== null && <ErrorBox error={threadError(prune.error)} testId="prune-error" />}
    </div>
  );
}
