// Diff: from/to (checkpoints or CURRENT), scope, the per-participant summary,
// a family's record diff paged as you scroll (colour-coded, filterable),
// field-level before/after for a selected record, progress + Cancel, export.
import { useCallback, useRef, useState } from 'react';
import { DIFF_SCOPES, type DiffScope, type RecordChangeEntry, type Row } from '../../core/contract/operations';
import { CURRENT_SELECTOR, RECORD_CHANGE_KINDS, SUMMARY_DIFF_COLUMNS, type RecordChangeKind } from '../../core/contract/diff';
import { microsTextIso } from '../../core/contract/time';
import { decodeArrow } from '../arrow-rows';
import { ErrorBox } from '../components/error-box';
import { VirtualGrid, type GridColumn } from '../components/virtual-grid';
import { showError, type ShownError } from '../errors-text';
import { invoke } from '../invoke';
import { fetchAllPages } from '../pages';
import { usePaged } from '../paged';
import { useShallow } from 'zustand/react/shallow';
import { useStudio } from '../store';
import { ExportAllRecords, concatArrow, download, toCsv } from './diff-export';

const CURRENT = CURRENT_SELECTOR;
const SUMMARY_PAGE = 1000;
const RECORD_PAGE = 500;
/** Upper bound on summary pages (one row per participant: far beyond any workspace). */
const MAX_SUMMARY_PAGES = 1000;
const CHANGE_KINDS = RECORD_CHANGE_KINDS;
type ChangeKind = RecordChangeKind;
/** A summary row (`checkpoint_summary_diff@1`). */
type SummaryRow = Row<'checkpoints.diff', 'checkpoint_summary_diff@1'>;
/** A record-diff row (`checkpoint_record_diff@1`). */
type RecordRow = Row<'checkpoints.diff', 'checkpoint_record_diff@1'>;

/** One compared pair. */
interface Compared {
  readonly from: string;
  readonly to: string;
  readonly scope: DiffScope;
  readonly rows: readonly SummaryRow[];
  readonly pages: readonly Uint8Array[];
}

const SUMMARY_COLUMNS: readonly GridColumn<SummaryRow>[] = [
  { id: 'scope', header: 'scope', width: '8rem' },
  { id: 'capability_id', header: 'capability', width: '8rem' },
  { id: 'record_family_id', header: 'family', width: 'minmax(8rem, 1fr)' },
  { id: 'change_kind', header: 'change', width: '7rem' },
  { id: 'from_row_count', header: 'from rows', width: '6rem' },
  { id: 'to_row_count', header: 'to rows', width: '6rem' },
];

const RECORD_COLUMNS: readonly GridColumn<RecordRow>[] = [
  { id: 'change_kind', header: 'change', width: '6rem' },
  { id: 'record_uuid', header: 'record uuid', width: 'minmax(10rem, 1fr)', mono: true },
  { id: 'record_identity_fingerprint', header: 'identity fingerprint', width: 'minmax(10rem, 1fr)', mono: true },
  { id: 'from_record_fingerprint', header: 'before', width: 'minmax(8rem, 1fr)', mono: true },
  { id: 'to_record_fingerprint', header: 'after', width: 'minmax(8rem, 1fr)', mono: true },
];

/** The diff screen. */
export function DiffScreen() {
  const { checkpoints, workspace } = useStudio(useShallow((s) => ({ checkpoints: s.checkpoints, workspace: s.workspace })));
  const names = checkpoints.map((c) => c.name ?? '');
  const endpoints = [...names, CURRENT];
  const [from, setFrom] = useState(names[0] ?? CURRENT);
  const [to, setTo] = useState(CURRENT);
  const [scope, setScope] = useState<DiffScope>('all');
  const [running, setRunning] = useState<{ readonly id: string; readonly started: number } | null>(null);
  const [compared, setCompared] = useState<Compared | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [family, setFamily] = useState<SummaryRow | null>(null);
  const runId = useRef(0);

  const compare = async () => {
    if (workspace === null) return;
    const id = crypto.randomUUID();
    const mine = ++runId.current;
    setRunning({ id, started: performance.now() });
    setCompared(null);
    setFamily(null);
    setError(null);
    setNotice(null);
    try {
      const results = await fetchAllPages(
        (after) => invoke('checkpoints.diff', { project: workspace.project, from, to, scope, detail: 'summary', limit: SUMMARY_PAGE, after, operation_id: id }),
        { maxPages: MAX_SUMMARY_PAGES },
      );
      if (mine !== runId.current) return;
      const rows = results.flatMap((page) => decodeArrow(page.bytes, 'checkpoints.diff', 'checkpoint_summary_diff@1').rows);
      // Shown only once complete: a cancelled or failed diff shows nothing partial.
      setCompared({ from, to, scope, rows, pages: results.map((page) => page.bytes) });
    } catch (e) {
      if (mine !== runId.current) return;
      const shown = showError(e);
      if (shown.code === 'GF_CANCELLED') setNotice('Diff cancelled. No result is shown.');
      else setError(shown);
    } finally {
      if (mine === runId.current) setRunning(null);
    }
  };

  const cancel = async () => {
    if (running === null) return;
    const id = running.id;
    runId.current++;
    setRunning(null);
    setCompared(null);
    setNotice('Diff cancelled. No result is shown.');
    await invoke('operation.cancel', { operation_id: id }).catch(() => undefined);
  };

  const changed = compared?.rows.filter((r) => r.change_kind !== 'unchanged').length ?? 0;
  const unchanged = (compared?.rows.length ?? 0) - changed;

  const exportSummary = (format: 'arrow' | 'csv' | 'json') => {
    if (compared === null) return;
    const base = `diff-summary-${compared.scope}`;
    if (format === 'arrow') download(`${base}.arrow`, 'application/vnd.apache.arrow.file', concatArrow(compared.pages) as Uint8Array<ArrayBuffer>);
    else if (format === 'csv') download(`${base}.csv`, 'text/csv', toCsv(SUMMARY_COLUMNS_ALL(), compared.rows));
    else download(`${base}.json`, 'application/json', JSON.stringify({ from: compared.from, to: compared.to, scope: compared.scope, rows: compared.rows }, null, 2));
  };

  return (
    <section className="screen" aria-labelledby="diff-title">
      <h2 id="diff-title">Diff</h2>
      <form className="row-form" onSubmit={(e) => { e.preventDefault(); void compare(); }}>
        <label htmlFor="diff-from">From</label>
        <select id="diff-from" value={from} onChange={(e) => setFrom(e.target.value)}>
          {endpoints.map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
        <button type="button" onClick={() => { setFrom(to); setTo(from); }} aria-label="Swap from and to">⇄ Swap</button>
        <label htmlFor="diff-to">To</label>
        <select id="diff-to" value={to} onChange={(e) => setTo(e.target.value)}>
          {endpoints.map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
        <label htmlFor="diff-scope">Scope</label>
        <select id="diff-scope" value={scope} onChange={(e) => setScope(e.target.value as DiffScope)}>
          {DIFF_SCOPES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
        <button type="submit" className="primary" disabled={running !== null}>Compare</button>
      </form>
      {running !== null && (
        <div className="progress" role="status" data-testid="diff-progress">
          <progress aria-label="Diff in progress" />
          <span>Comparing {from} → {to}…</span>
          <button type="button" onClick={() => void cancel()} data-testid="diff-cancel">Cancel</button>
        </div>
      )}
      {notice !== null && <p className="notice" role="status" data-testid="diff-notice">{notice}</p>}
      {error !== null && <ErrorBox error={error} testId="diff-error" />}
      {compared !== null && (
        <div className="stack" data-testid="diff-result">
          <div className="screen-head">
            <p>
              <strong>{compared.from}</strong> → <strong>{compared.to}</strong> ({compared.scope}): <span data-testid="diff-changed">{changed}</span> changed,{' '}
              <span data-testid="diff-unchanged">{unchanged}</span> unchanged participants
            </p>
            <div className="actions" role="group" aria-label="Export the summary">
              <span className="muted">Export the summary:</span>
              <button type="button" onClick={() => exportSummary('arrow')}>Arrow</button>
              <button type="button" onClick={() => exportSummary('csv')} data-testid="export-csv">CSV</button>
              <button type="button" onClick={() => exportSummary('json')}>JSON</button>
            </div>
          </div>
          {workspace !== null && (
            <ExportAllRecords
              key={`${compared.from}|${compared.to}|${compared.scope}`}
              target={{ project: workspace.project, from: compared.from, to: compared.to, scope: compared.scope, family: null }}
              label={`Export every record change (${compared.scope})`}
              testId="export-all"
            />
          )}
          <VirtualGrid
            label="Diff summary by participant"
            columns={SUMMARY_COLUMNS}
            rows={compared.rows}
            rowKey={(r) => `${r.capability_id ?? ''}/${r.record_family_id ?? ''}`}
            onActivate={(r) => setFamily(r)}
            selectedKey={family === null ? null : `${family.capability_id ?? ''}/${family.record_family_id ?? ''}`}
            rowClass={(r) => `change-${r.change_kind ?? ''}`}
            size="short"
            testId="diff-summary"
          />
          {family !== null && workspace !== null && <RecordDiff project={workspace.project} compared={compared} family={family} />}
        </div>
      )}
    </section>
  );
}

const SUMMARY_COLUMNS_ALL = (): readonly string[] => SUMMARY_DIFF_COLUMNS;

/**
 * The record diff as shown: rows of the chosen change kinds and the count of
 * every kind, kept up to date incrementally as pages are appended.
 */
interface KindView {
  readonly source: readonly RecordRow[];
  readonly kinds: ReadonlySet<ChangeKind>;
  /** Source rows already looked at. */
  readonly seen: number;
  /** Append-only for this source and these kinds. */
  readonly shown: RecordRow[];
  readonly counts: Record<ChangeKind, number>;
}

/**
 * Brings `prev` up to the first `count` rows of `source`: only the new rows
 * are looked at, unless the source (a restart) or the kinds changed.
 */
function advanceKindView(prev: KindView | null, source: readonly RecordRow[], count: number, kinds: ReadonlySet<ChangeKind>): KindView {
  const fresh = prev === null || prev.source !== source || prev.kinds !== kinds || prev.seen > count;
  const base: KindView = fresh ? { source, kinds, seen: 0, shown: [], counts: { added: 0, removed: 0, modified: 0 } } : prev;
  if (base.seen === count) return base;
  const { shown } = base;
  const counts = { ...base.counts };
  for (let i = base.seen; i < count; i++) {
    const r = source[i]!;
    const k = r.change_kind as ChangeKind;
    if (k in counts) counts[k]++;
    if (kinds.has(k)) shown.push(r);
  }
  return { source, kinds, seen: count, shown, counts };
}

function RecordDiff({ project, compared, family }: { project: string; compared: Compared; family: SummaryRow }) {
  const familyId = family.record_family_id ?? '';
  const capabilityId = family.capability_id ?? '';
  const scope = (family.scope ?? 'all') as DiffScope;
  const [kinds, setKinds] = useState<ReadonlySet<ChangeKind>>(new Set(CHANGE_KINDS));
  const [selected, setSelected] = useState<RecordRow | null>(null);
  const key = `${compared.from}|${compared.to}|${scope}|${capabilityId}/${familyId}`;
  // The engine diffs and pages this family alone (its tokens are bound to it): no other family is read or sent.
  const fetchPage = useCallback(
    (after: string | null, operationId: string) =>
      invoke('checkpoints.diff', {
        project,
        from: compared.from,
        to: compared.to,
        scope,
        detail: 'records',
        limit: RECORD_PAGE,
        after,
        record_family_id: familyId,
        capability_id: capabilityId,
        operation_id: operationId,
      }),
    [project, compared.from, compared.to, scope, familyId, capabilityId],
  );
  const paged = usePaged('checkpoints.diff', key, fetchPage, 'checkpoint_record_diff@1');
  const view = useRef<KindView | null>(null);
  view.current = advanceKindView(view.current, paged.rows, paged.count, kinds);
  const { shown, counts } = view.current;
  return (
    <div className="stack" data-testid="record-diff">
      <h3>Records of <span className="mono">{family.capability_id}/{familyId}</span> ({family.change_kind})</h3>
      <fieldset className="row-form">
        <legend>Show change kinds</legend>
        {CHANGE_KINDS.map((k) => (
          <label key={k} className={`chip change-${k}`}>
            <input
              type="checkbox"
              checked={kinds.has(k)}
              onChange={(e) => {
                const next = new Set(kinds);
                if (e.target.checked) next.add(k);
                else next.delete(k);
                setKinds(next);
              }}
            />{' '}
            {k} <span data-testid={`count-${k}`}>{counts[k]}</span>
          </label>
        ))}
      </fieldset>
      <ExportAllRecords
        key={key}
        target={{ project, from: compared.from, to: compared.to, scope, family: familyId }}
        label={`Export every ${familyId} change`}
        testId="export-family"
      />
      {/* Fixed-height status line: progress and Cancel while a page loads, never shifting the grid. */}
      <div className="progress status-line" role="status" data-testid="record-diff-status">
        {paged.loading ? (
          <>
            <progress aria-label="Record diff page in progress" />
            <span>Loading record changes{paged.count > 0 ? ` after ${paged.count.toLocaleString('en-US')} rows` : ''}…</span>
            <button type="button" onClick={paged.cancel} data-testid="record-diff-cancel">Cancel</button>
          </>
        ) : paged.cancelled ? (
          <>
            <span data-testid="record-diff-notice">Record diff cancelled. No rows are shown.</span>
            <button type="button" onClick={paged.retry} data-testid="record-diff-retry">Load again</button>
          </>
        ) : null}
      </div>
      {paged.error !== null && <ErrorBox error={paged.error} testId="record-diff-error" />}
      {!paged.cancelled && (
      <div className="split-detail">
        <VirtualGrid
          label={`Record changes of ${familyId}`}
          columns={RECORD_COLUMNS}
          rows={shown}
          rowKey={(r) => `${r.record_identity_fingerprint ?? ''}/${r.change_kind ?? ''}`}
          hasMore={paged.hasMore}
          loading={paged.loading}
          onNeedMore={paged.more}
          onActivate={(r) => setSelected(r)}
          selectedKey={selected === null ? null : `${selected.record_identity_fingerprint ?? ''}/${selected.change_kind ?? ''}`}
          rowClass={(r) => `change-${r.change_kind ?? ''}`}
          testId="record-diff-grid"
          emptyText={paged.hasMore ? 'Loading more pages…' : 'No record changes of these kinds.'}
        />
        {selected !== null && (
          // Keyed by the record: another selection starts with no values shown (never the previous record's).
          <RecordDetail key={`${selected.record_identity_fingerprint ?? ''}/${selected.change_kind ?? ''}`} project={project} compared={compared} family={family} row={selected} />
        )}
      </div>
      )}
    </div>
  );
}

/** UTC microseconds (decimal text) as ISO 8601 with six fraction digits (the contract's one formatter). */
const microsIso = (text: string): string => microsTextIso(text) ?? text;

/** A JSON record value as shown (timestamps as ISO 8601). */
const shownValue = (v: string | number | boolean | null | undefined, timestamp: boolean): string =>
  v === null || v === undefined ? '—' : timestamp ? microsIso(String(v)) : String(v);

function RecordDetail({ project, compared, family, row }: { project: string; compared: Compared; family: SummaryRow; row: RecordRow }) {
  const [fields, setFields] = useState<RecordChangeEntry | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const uuid = row.record_uuid;
  const fingerprint = row.record_identity_fingerprint;
  const familyId = family.record_family_id ?? '';
  // Every diff row names its record by the identity fingerprint (any family); the record uuid, when the row has one, lets the engine seek.
  const canLoad = typeof fingerprint === 'string' && fingerprint.length === 64;
  const load = async () => {
    if (!canLoad) return;
    setNote(null);
    setBusy(true);
    try {
      setFields(
        await invoke('checkpoints.record_change', {
          project,
          from: compared.from,
          to: compared.to,
          record_family_id: familyId,
          record_identity_fingerprint: fingerprint,
          ...(uuid === null || uuid === undefined ? {} : { record_uuid: uuid }),
        }),
      );
    } catch (e) {
      setNote(`${showError(e).code}: field values are not available for this record.`);
    } finally {
      setBusy(false);
    }
  };
  const changedFields = fields?.changed_fields ?? [];
  return (
    <aside className="record-detail" aria-label="Selected record change" data-testid="record-detail">
      <h4 className={`change-${row.change_kind ?? ''}`}>{row.change_kind} record</h4>
      <dl className="record-fields">
        <div><dt>record uuid</dt><dd className="mono">{uuid ?? '—'}</dd></div>
        <div><dt>identity fingerprint</dt><dd className="mono">{row.record_identity_fingerprint}</dd></div>
        <div><dt>before fingerprint</dt><dd className="mono">{row.from_record_fingerprint ?? '—'}</dd></div>
        <div><dt>after fingerprint</dt><dd className="mono">{row.to_record_fingerprint ?? '—'}</dd></div>
      </dl>
      {canLoad ? (
        <button type="button" onClick={() => void load()} disabled={busy} data-testid="load-fields">Show changed fields</button>
      ) : (
        <p className="muted small">This row carries no identity fingerprint, so its values cannot be looked up from here.</p>
      )}
      {note !== null && <p className="muted small">{note}</p>}
      {fields !== null && (
        <table className="fields-table" data-testid="changed-fields">
          <caption>Fields that changed ({compared.from} → {compared.to})</caption>
          <thead><tr><th scope="col">field</th><th scope="col">before</th><th scope="col">after</th></tr></thead>
          <tbody>
            {changedFields.map((k) => (
              <tr key={k}><th scope="row" className="mono">{k}</th><td className="mono change-removed">{shownValue(fields.from?.[k], fields.timestamp_fields.includes(k))}</td><td className="mono change-added">{shownValue(fields.to?.[k], fields.timestamp_fields.includes(k))}</td></tr>
            ))}
            {changedFields.length === 0 && <tr><td colSpan={3}>No field differs.</td></tr>}
          </tbody>
        </table>
      )}
    </aside>
  );
}
