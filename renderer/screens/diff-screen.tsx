// Diff: from/to (checkpoints or CURRENT), scope, the per-participant summary,
// a family's record diff paged as you scroll (colour-coded, filterable), rows
// that expand inline to every field before and after with the changed cells
// highlighted (several at once), copy buttons, progress + Cancel, export.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { DIFF_SCOPES, type DiffScope, type OperationInput, type RecordChangeEntry, type RecordJson, type Row } from '../../core/contract/operations';
import { CURRENT_SELECTOR, DOMAIN_SCOPES, RECORD_CHANGE_KINDS, SUMMARY_DIFF_COLUMNS, type RecordChangeKind } from '../../core/contract/diff';
import { microsTextIso } from '../../core/contract/time';
import { decodeArrow } from '../arrow-rows';
import { ErrorBox } from '../components/error-box';
import { VirtualGrid, type GridColumn } from '../components/virtual-grid';
import { showError, type ShownError } from '../errors-text';
import { invoke } from '../invoke';
import { fetchAllPages, useQuery } from '../hooks';
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

/**
 * The request scope that reaches a family of declared scope `declared` (the
 * summary row's `scope`, from the participant registry): that scope when the
 * contract names it as a request scope, otherwise `all`, narrowed by the
 * family filter. Never guessed from the capability id: `workspace /
 * restoration_transition` has no request scope of its own.
 */
export function familyRequestScope(declared: string | null | undefined): DiffScope {
  return (DOMAIN_SCOPES as readonly (string | null | undefined)[]).includes(declared) ? (declared as DiffScope) : 'all';
}

/** The endpoints and the family of a record-diff request. */
export interface FamilyTarget {
  readonly project: string;
  readonly from: string;
  readonly to: string;
  readonly family: Pick<SummaryRow, 'scope' | 'capability_id' | 'record_family_id'>;
}

/** One page of a family's record diff, as the contract takes it (the scope derived from the family's declared scope). */
export function recordDiffRequest(t: FamilyTarget, page: { readonly limit: number; readonly after: string | null; readonly operation_id: string }): OperationInput<'checkpoints.diff'> {
  return {
    project: t.project,
    from: t.from,
    to: t.to,
    scope: familyRequestScope(t.family.scope),
    detail: 'records',
    limit: page.limit,
    after: page.after,
    record_family_id: t.family.record_family_id ?? '',
    capability_id: t.family.capability_id ?? '',
    operation_id: page.operation_id,
  };
}

/** A summary row of the workspace's own bookkeeping (the restoration records of reverts), not of its content. */
export const isBookkeeping = (r: Pick<SummaryRow, 'scope'>): boolean => !(DOMAIN_SCOPES as readonly (string | null)[]).includes(r.scope);

/**
 * The summary's headline: content participants changed (or "content
 * identical"), and the restoration records a revert added, counted apart.
 */
export function summaryHeadline(rows: readonly Pick<SummaryRow, 'scope' | 'change_kind' | 'from_row_count' | 'to_row_count'>[]): string {
  const content = rows.filter((r) => !isBookkeeping(r));
  const changed = content.filter((r) => r.change_kind !== 'unchanged').length;
  let restorations = 0;
  for (const r of rows) if (isBookkeeping(r)) restorations += Number(r.to_row_count ?? 0) - Number(r.from_row_count ?? 0);
  const head = changed === 0 ? 'content identical' : `${changed} of ${content.length} participants changed`;
  if (restorations === 0) return head;
  const n = Math.abs(restorations);
  return `${head}; ${n} restoration record${n === 1 ? '' : 's'}${restorations < 0 ? ' fewer' : ''}`;
}

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
              <strong>{compared.from}</strong> → <strong>{compared.to}</strong> ({compared.scope}): <span data-testid="diff-headline">{summaryHeadline(compared.rows)}</span>
              <span className="muted small"> · <span data-testid="diff-changed">{changed}</span> changed, <span data-testid="diff-unchanged">{unchanged}</span> unchanged participants</span>
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
          {family !== null && workspace !== null && (
            // Keyed by the family: another family starts with nothing expanded, filtered or selected from the previous one.
            <RecordDiff key={`${family.capability_id ?? ''}/${family.record_family_id ?? ''}`} project={workspace.project} compared={compared} family={family} />
          )}
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

/** A record-diff row's key: its identity (one row per record and kind). */
const recordKey = (r: RecordRow): string => `${r.record_identity_fingerprint ?? ''}/${r.change_kind ?? ''}`;

/** The id a person copies for a record: its record UUID, or (families without one) its identity fingerprint. */
const recordId = (r: RecordRow): string => r.record_uuid ?? r.record_identity_fingerprint ?? '';

/** `abcdef…uvwxyz`: the two ends of a long id (the whole id is in the cell's title and copied by its button). */
export function middleTruncate(text: string, keep = 8): string {
  return text.length <= 2 * keep + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep)}`;
}

const TECHNICAL_COLUMNS: readonly GridColumn<RecordRow>[] = [
  { id: 'record_identity_fingerprint', header: 'identity fingerprint', width: 'minmax(10rem, 1fr)', mono: true, minRem: 12 },
  { id: 'from_record_fingerprint', header: 'before fingerprint', width: 'minmax(10rem, 1fr)', mono: true, minRem: 12 },
  { id: 'to_record_fingerprint', header: 'after fingerprint', width: 'minmax(10rem, 1fr)', mono: true, minRem: 12 },
];

function recordColumns(expanded: ReadonlySet<string>, technical: boolean): readonly GridColumn<RecordRow>[] {
  const change: GridColumn<RecordRow> = {
    id: 'change_kind',
    header: 'change',
    width: '8rem',
    render: (r) => (
      <>
        <span aria-hidden="true" className="expander">{expanded.has(recordKey(r)) ? '▾' : '▸'}</span> {r.change_kind}
      </>
    ),
  };
  const id: GridColumn<RecordRow> = {
    id: 'record_uuid',
    header: 'record id',
    width: 'minmax(12rem, 1fr)',
    mono: true,
    minRem: 12,
    title: recordId,
    render: (r) => r.record_uuid ?? middleTruncate(r.record_identity_fingerprint ?? '', 12),
  };
  return technical ? [change, id, ...TECHNICAL_COLUMNS] : [change, id];
}

function RecordDiff({ project, compared, family }: { project: string; compared: Compared; family: SummaryRow }) {
  const familyId = family.record_family_id ?? '';
  const capabilityId = family.capability_id ?? '';
  const [kinds, setKinds] = useState<ReadonlySet<ChangeKind>>(new Set(CHANGE_KINDS));
  const [technical, setTechnical] = useState(false);
  // Expanded rows belong to one filter: changing the kinds closes them all (never a stale detail).
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => setExpanded(new Set()), [kinds]);
  const target: FamilyTarget = useMemo(() => ({ project, from: compared.from, to: compared.to, family }), [project, compared.from, compared.to, family]);
  const key = `${compared.from}|${compared.to}|${capabilityId}/${familyId}`;
  // The engine diffs and pages this family alone (its tokens are bound to it): no other family is read or sent.
  const fetchPage = useCallback(
    (after: string | null, operationId: string) => invoke('checkpoints.diff', recordDiffRequest(target, { limit: RECORD_PAGE, after, operation_id: operationId })),
    [target],
  );
  const paged = usePaged('checkpoints.diff', key, fetchPage, 'checkpoint_record_diff@1');
  const view = useRef<KindView | null>(null);
  view.current = advanceKindView(view.current, paged.rows, paged.count, kinds);
  const { shown, counts } = view.current;
  const columns = useMemo(() => recordColumns(expanded, technical), [expanded, technical]);
  const toggle = useCallback((r: RecordRow) => {
    const k = recordKey(r);
    setExpanded((prev) => {
      const next = new Set(prev);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });
  }, []);
  const renderExpanded = useCallback((r: RecordRow) => <RecordExpansion target={target} row={r} />, [target]);
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
        <label className="chip">
          <input type="checkbox" checked={technical} onChange={(e) => setTechnical(e.target.checked)} data-testid="technical-columns" /> technical columns
        </label>
      </fieldset>
      <ExportAllRecords
        key={key}
        target={{ project, from: compared.from, to: compared.to, scope: familyRequestScope(family.scope), family: familyId }}
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
        <VirtualGrid
          label={`Record changes of ${familyId}`}
          columns={columns}
          rows={shown}
          rowKey={recordKey}
          hasMore={paged.hasMore}
          loading={paged.loading}
          onNeedMore={paged.more}
          onActivate={toggle}
          expanded={expanded}
          renderExpanded={renderExpanded}
          resetKey={[...kinds].join(',')}
          rowClass={(r) => `change-${r.change_kind ?? ''}`}
          testId="record-diff-grid"
          emptyText={paged.hasMore ? 'Loading more pages…' : 'No record changes of these kinds.'}
        />
      )}
    </div>
  );
}

/** UTC microseconds (decimal text) as ISO 8601 with six fraction digits (the contract's one formatter). */
const microsIso = (text: string): string => microsTextIso(text) ?? text;

/** A JSON record value as shown (timestamps as ISO 8601). */
const shownValue = (v: string | number | boolean | null | undefined, timestamp: boolean): string =>
  v === null || v === undefined ? '—' : timestamp ? microsIso(String(v)) : String(v);

/** One field of a record change as shown: its value before and after, and whether it changed. */
export interface FieldLine {
  readonly field: string;
  readonly before: string;
  readonly after: string;
  readonly changed: boolean;
}

/**
 * Every field of a record change in schema order (the fields of either
 * version), with display values and the engine's changed flag: a modified
 * record marks exactly `changed_fields`; an added or removed record marks none
 * (it has one side only).
 */
export function fieldLines(entry: Pick<RecordChangeEntry, 'change_kind' | 'from' | 'to' | 'changed_fields' | 'timestamp_fields'>): readonly FieldLine[] {
  const names: string[] = [];
  for (const side of [entry.from, entry.to]) for (const f of Object.keys(side ?? {})) if (!names.includes(f)) names.push(f);
  const changed = new Set(entry.change_kind === 'modified' ? entry.changed_fields : []);
  return names.map((f) => {
    const ts = entry.timestamp_fields.includes(f);
    return { field: f, before: shownValue(entry.from?.[f], ts), after: shownValue(entry.to?.[f], ts), changed: changed.has(f) };
  });
}

/** A record as shown (timestamps ISO 8601), for "Copy row as JSON". */
function shownRecord(rec: RecordJson | null, timestamps: readonly string[]): Record<string, string | number | boolean | null> | null {
  if (rec === null) return null;
  const out: Record<string, string | number | boolean | null> = {};
  for (const [k, v] of Object.entries(rec)) out[k] = v !== null && timestamps.includes(k) ? microsIso(String(v)) : v;
  return out;
}

/** The JSON a "Copy row as JSON" button copies: the change, its ids, both versions and the changed fields. */
export function rowJson(row: RecordRow, entry: RecordChangeEntry | null): string {
  return JSON.stringify(
    {
      change_kind: row.change_kind,
      record_family_id: row.record_family_id,
      record_uuid: row.record_uuid,
      record_identity_fingerprint: row.record_identity_fingerprint,
      ...(entry === null
        ? { from_record_fingerprint: row.from_record_fingerprint, to_record_fingerprint: row.to_record_fingerprint }
        : { changed_fields: entry.changed_fields, from: shownRecord(entry.from, entry.timestamp_fields), to: shownRecord(entry.to, entry.timestamp_fields) }),
    },
    null,
    2,
  );
}

/** A button that copies `text` to the clipboard and says whether it did. */
function CopyButton({ label, text, testId }: { label: string; text: string; testId: string }) {
  const [said, setSaid] = useState<string>('');
  return (
    <span className="copy">
      <button
        type="button"
        data-testid={testId}
        onClick={() => {
          setSaid('');
          navigator.clipboard.writeText(text).then(
            () => setSaid('Copied.'),
            () => setSaid('Not copied: the clipboard is not available here.'),
          );
        }}
      >
        {label}
      </button>
      <span role="status" className="muted small">{said}</span>
    </span>
  );
}

/**
 * An expanded record-diff row: every field before and after, changed cells
 * highlighted (and marked for screen readers), with copy buttons. Loads the
 * record's two versions once when expanded.
 */
function RecordExpansion({ target, row }: { target: FamilyTarget; row: RecordRow }) {
  const fingerprint = row.record_identity_fingerprint;
  const uuid = row.record_uuid;
  const familyId = target.family.record_family_id ?? '';
  const query = useQuery(fingerprint === null || fingerprint.length !== 64 ? null : `${target.from}|${target.to}|${familyId}|${fingerprint}`, () =>
    invoke('checkpoints.record_change', {
      project: target.project,
      from: target.from,
      to: target.to,
      record_family_id: familyId,
      record_identity_fingerprint: fingerprint ?? '',
      ...(uuid === null ? {} : { record_uuid: uuid }),
    }),
  );
  const entry = query.data;
  const error = query.error;
  const lines = entry === null ? [] : fieldLines(entry);
  const kind = row.change_kind ?? '';
  const beforeClass = (l: FieldLine) => (l.changed ? 'mono cell-changed' : kind === 'removed' ? 'mono cell-removed' : 'mono');
  const afterClass = (l: FieldLine) => (l.changed ? 'mono cell-changed' : kind === 'added' ? 'mono cell-added' : 'mono');
  return (
    <div className="record-expansion stack" data-testid="record-expansion">
      {error !== null && <ErrorBox error={error} testId="record-expansion-error" />}
      {fingerprint === null && <p className="muted small">This row carries no identity fingerprint, so its values cannot be looked up.</p>}
      {entry === null && error === null && fingerprint !== null && <p className="muted small" role="status">Loading the record's fields…</p>}
      {entry !== null && (
        <table className="fields-table" data-testid="changed-fields">
          <caption>
            {kind} record, every field ({target.from} → {target.to}){kind === 'modified' ? `: ${entry.changed_fields.length} changed, highlighted` : ''}
          </caption>
          <thead>
            <tr><th scope="col">field</th><th scope="col">before</th><th scope="col">after</th></tr>
          </thead>
          <tbody>
            {lines.map((l) => (
              <tr key={l.field} data-field={l.field} data-changed={l.changed ? 'true' : 'false'}>
                <th scope="row" className="mono">{l.field}{l.changed && <span className="sr-only"> (changed)</span>}</th>
                <td className={beforeClass(l)}>{l.before}</td>
                <td className={afterClass(l)}>{l.after}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="actions">
        <CopyButton label={row.record_uuid === null ? 'Copy identity fingerprint' : 'Copy record id'} text={recordId(row)} testId="copy-id" />
        <CopyButton label="Copy row as JSON" text={rowJson(row, entry)} testId="copy-json" />
      </div>
    </div>
  );
}
