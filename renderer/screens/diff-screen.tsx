// Diff: from/to (checkpoints or CURRENT), scope, the per-participant summary,
// a family's record diff paged as you scroll (colour-coded, filterable), rows
// that expand inline to every field before and after with the changed cells
// highlighted (several at once), copy buttons, progress + Cancel, export.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { csvText } from '../../core/contract/csv';
import { DIFF_SCOPES, type DiffScope, type Row } from '../../core/contract/operations';
import {
  CURRENT_SELECTOR,
  DIFF_SEARCH_MAX_CHARS,
  RECORD_CHANGE_KINDS,
  SUMMARY_DIFF_COLUMNS,
  changedFieldList,
  diffScopeOfParticipant,
  parseDisplay,
  type DiffStatResult,
  type DisplayValues,
  type RecordChangeKind,
} from '../../core/contract/diff';
import { decodeArrow } from '../arrow-rows';
import { ErrorBox } from '../components/error-box';
import { VirtualGrid, type GridColumn } from '../components/virtual-grid';
import { invoke } from '../invoke';
import { fetchAllPages, useQuery, withOperation } from '../hooks';
import { formatCount, middleTruncate } from '../format';

export { middleTruncate } from '../format';
import { usePaged } from '../paged';
import { useShallow } from 'zustand/react/shallow';
import { useStudio } from '../store';
import { ExportAllRecords, concatArrow, download } from './diff-export';
import { DiffGraphPanel, type RecordDiffJump } from '../pictures/diff-graph';
import { dropNulls, familyKeyOf, familyParam, filterParams, filterRequest, filteredTotal, linkedFilter, linkedPair, pairParams, type RecordFilter } from './diff-link';
import { RecordExpansion, recordDiffRequest, recordId, type FamilyTarget, type RecordRow } from './diff-record';

const CURRENT = CURRENT_SELECTOR;
const SUMMARY_PAGE = 1000;
const RECORD_PAGE = 500;
/** Upper bound on summary pages (one row per participant: far beyond any workspace). */
const MAX_SUMMARY_PAGES = 1000;
const CHANGE_KINDS = RECORD_CHANGE_KINDS;
type ChangeKind = RecordChangeKind;
/** A summary row (`checkpoint_summary_diff@1`). */
type SummaryRow = Row<'checkpoints.diff', 'checkpoint_summary_diff@1'>;

/** The pair a diff compares. */
type Pair = { readonly from: string; readonly to: string; readonly scope: DiffScope };

/** One compared pair: the summary rows and the engine's exact statistics. */
interface Compared {
  readonly from: string;
  readonly to: string;
  readonly scope: DiffScope;
  readonly rows: readonly SummaryRow[];
  readonly pages: readonly Uint8Array[];
  readonly stat: DiffStatResult;
}


function summaryColumns(stat: DiffStatResult): readonly GridColumn<SummaryRow>[] {
  const byKey = new Map(stat.families.map((f) => [familyKeyOf(f), f]));
  const count = (k: 'added' | 'removed' | 'modified') => (r: SummaryRow) => {
    const f = byKey.get(familyKeyOf(r));
    return f === undefined ? '—' : formatCount(f[k]);
  };
  const rows = (k: 'from_row_count' | 'to_row_count') => (r: SummaryRow) => (r[k] === null ? '—' : formatCount(BigInt(r[k])));
  // The counts come right after the family, so they stay in view at 1024 px and at 200% zoom; the rest follows.
  return [
    { id: 'record_family_id', header: 'family', width: 'minmax(7rem, 1fr)', minRem: 7 },
    { id: 'change_kind', header: 'change', width: '5rem', minRem: 5 },
    { id: 'change_kind', key: 'added', header: 'added', width: '5rem', minRem: 5, render: count('added') },
    { id: 'change_kind', key: 'removed', header: 'removed', width: '5rem', minRem: 5, render: count('removed') },
    { id: 'change_kind', key: 'modified', header: 'modified', width: '5rem', minRem: 5, render: count('modified') },
    { id: 'from_row_count', header: 'from rows', width: '6rem', minRem: 6, render: rows('from_row_count') },
    { id: 'to_row_count', header: 'to rows', width: '6rem', minRem: 6, render: rows('to_row_count') },
    { id: 'capability_id', header: 'capability', width: 'minmax(7rem, 1fr)', minRem: 7 },
    { id: 'scope', header: 'scope', width: '6rem', minRem: 6 },
  ];
}

/** The endpoints and the family of a record-diff request. */



/** The diff screen. Its link holds the compared pair, the family and its filter: a reload, bookmark or second tab reopens the same diff. */
export function DiffScreen() {
  const { checkpoints, workspace, route, setRoute } = useStudio(useShallow((s) => ({ checkpoints: s.checkpoints, workspace: s.workspace, route: s.route, setRoute: s.setRoute })));
  const params = route.screen === 'diff' ? route.params : NO_PARAMS;
  const linked = linkedPair(params);
  const names = checkpoints.map((c) => c.name ?? '');
  const endpoints = [...names, CURRENT];
  const [from, setFrom] = useState(linked?.from ?? names[0] ?? CURRENT);
  const [to, setTo] = useState(linked?.to ?? CURRENT);
  const [scope, setScope] = useState<DiffScope>(linked?.scope ?? 'all');
  const [notice, setNotice] = useState<string | null>(null);
  const [family, setFamily] = useState<SummaryRow | null>(null);
  /** Bumped by each jump from the graph of the changes, so the record diff reopens at the row even in the same family. */
  const [jumps, setJumps] = useState(0);
  /** The graph of the changes is drawn on request: a WebGL picture and its layout cost more than the tables a reviewer reads first. */
  const [showGraph, setShowGraph] = useState(false);
  // The pair last asked for (by Compare or by the link): the link is followed only when it names another one.
  const requested = useRef<string | null>(null);
  /** The comparison asked for; each ask has its own run number, so pressing Compare again on the same pair runs it again. */
  const [asked, setAsked] = useState<{ readonly pair: Pair; readonly family: string | null; readonly run: number } | null>(null);
  const runs = useRef(0);

  // The summary and the exact statistics together, through the renderer's one query idiom: a new ask, Cancel or leaving the
  // screen aborts both requests in flight (withOperation tells the engine), and a cancelled or failed diff shows nothing partial.
  const project = workspace?.project ?? null;
  const query = useQuery<Compared>(project === null || asked === null ? null : JSON.stringify([project, asked.pair.from, asked.pair.to, asked.pair.scope, asked.run]), async (signal) => {
    // Runs only under a key, which exists only when both are set.
    const { from, to, scope } = asked?.pair ?? { from: CURRENT, to: CURRENT, scope: 'all' as const };
    const on = project ?? '';
    const [results, stat] = await Promise.all([
      fetchAllPages(
        (after) => withOperation(signal, (id) => invoke('checkpoints.diff', { project: on, from, to, scope, detail: 'summary', limit: SUMMARY_PAGE, after, operation_id: id })),
        { maxPages: MAX_SUMMARY_PAGES, signal },
      ),
      withOperation(signal, (id) => invoke('checkpoints.diff_stat', { project: on, from, to, scope, operation_id: id })),
    ]);
    const rows = results.flatMap((page) => decodeArrow(page.bytes, 'checkpoints.diff', 'checkpoint_summary_diff@1').rows);
    return { from, to, scope, rows, pages: results.map((page) => page.bytes), stat };
  });
  const compared = query.data;
  const running = query.loading;
  const cancelledByEngine = query.error?.code === 'GF_CANCELLED';
  const error = cancelledByEngine ? null : query.error;
  const shownNotice = cancelledByEngine ? 'Diff cancelled. No result is shown.' : notice;

  // A link's family opens once its summary is here (a family the diff does not have is ignored).
  const linkedFamily = asked?.family ?? null;
  useEffect(() => {
    if (compared !== null && linkedFamily !== null) setFamily(compared.rows.find((r) => familyParam(r) === linkedFamily) ?? null);
  }, [compared]);

  const compare = (pair: Pair, withFamily: string | null = null) => {
    requested.current = JSON.stringify([pair.from, pair.to, pair.scope]);
    runs.current += 1;
    setAsked({ pair, family: withFamily, run: runs.current });
    setFamily(null);
    setNotice(null);
  };

  // A link (boot, History's "Diff with …", the revert receipt, back/forward) that names a pair other than the one asked for opens it.
  const linkedKey = linked === null ? null : JSON.stringify([linked.from, linked.to, linked.scope]);
  useEffect(() => {
    if (linked === null || linkedKey === requested.current) return;
    setFrom(linked.from);
    setTo(linked.to);
    setScope(linked.scope);
    compare(linked, params['family'] ?? null);
    // Keyed on the link's pair alone: a family or filter change in the same diff is written by this screen, not followed.
  }, [linkedKey]);

  /** Compare pressed: the pair goes into the link (a new history entry) and runs. */
  const compareChosen = () => {
    setRoute({ screen: 'diff', params: pairParams({ from, to, scope }) });
    compare({ from, to, scope });
  };

  /** A summary row opened: it becomes the link's family (the filter starts afresh). */
  const openFamily = (r: SummaryRow) => {
    setFamily(r);
    if (compared !== null) setRoute({ screen: 'diff', params: { ...pairParams(compared), family: familyParam(r) } }, { replace: true });
  };

  const cancel = () => {
    if (!running) return;
    query.cancel();
    setNotice('Diff cancelled. No result is shown.');
  };

  const summaryCols = useMemo(() => (compared === null ? [] : summaryColumns(compared.stat)), [compared]);
  const changed = compared?.rows.filter((r) => r.change_kind !== 'unchanged').length ?? 0;
  const unchanged = (compared?.rows.length ?? 0) - changed;

  const exportSummary = (format: 'arrow' | 'csv' | 'json') => {
    if (compared === null) return;
    const base = `diff-summary-${compared.scope}`;
    if (format === 'arrow') download(`${base}.arrow`, 'application/vnd.apache.arrow.file', concatArrow(compared.pages) as Uint8Array<ArrayBuffer>);
    else if (format === 'csv') download(`${base}.csv`, 'text/csv', csvText(SUMMARY_COLUMNS_ALL(), compared.rows));
    else download(`${base}.json`, 'application/json', JSON.stringify({ from: compared.from, to: compared.to, scope: compared.scope, rows: compared.rows }, null, 2));
  };

  return (
    <section className="screen" aria-labelledby="diff-title">
      <h2 id="diff-title">Diff</h2>
      <form className="row-form" onSubmit={(e) => { e.preventDefault(); compareChosen(); }}>
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
        <button type="submit" className="primary" disabled={running}>Compare</button>
      </form>
      {running && (
        <div className="progress" role="status" data-testid="diff-progress">
          <progress aria-label="Diff in progress" />
          <span>Comparing {from} → {to}…</span>
          <button type="button" onClick={cancel} data-testid="diff-cancel">Cancel</button>
        </div>
      )}
      {shownNotice !== null && <p className="notice" role="status" data-testid="diff-notice">{shownNotice}</p>}
      {error !== null && <ErrorBox error={error} testId="diff-error" />}
      {compared !== null && (
        <div className="stack" data-testid="diff-result">
          <div className="screen-head">
            <p>
              <strong>{compared.from}</strong> → <strong>{compared.to}</strong> ({compared.scope}): <span data-testid="diff-headline">{compared.stat.headline}</span>
              <span className="muted small"> · <span data-testid="diff-changed">{formatCount(changed)}</span> changed, <span data-testid="diff-unchanged">{formatCount(unchanged)}</span> unchanged participants</span>
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
            columns={summaryCols}
            rows={compared.rows}
            rowKey={(r) => `${r.capability_id ?? ''}/${r.record_family_id ?? ''}`}
            onActivate={openFamily}
            selectedKey={family === null ? null : `${family.capability_id ?? ''}/${family.record_family_id ?? ''}`}
            rowClass={(r) => `change-${r.change_kind ?? ''}`}
            size="short"
            testId="diff-summary"
            fit
          />
          {workspace !== null && !showGraph && compared.stat.families.some((f) => f.capability_id === 'graph' && f.change_kind !== 'unchanged') && (
            <p>
              <button type="button" onClick={() => setShowGraph(true)} data-testid="diff-graph-show">Show the graph of these changes</button>
            </p>
          )}
          {workspace !== null && showGraph && compared.stat.families.some((f) => f.capability_id === 'graph' && f.change_kind !== 'unchanged') && (
            <DiffGraphPanel
              key={`${compared.from}|${compared.to}`}
              project={workspace.project}
              from={compared.from}
              to={compared.to}
              families={compared.stat.families}
              onJump={(j: RecordDiffJump) => {
                const r = compared.rows.find((x) => x.capability_id === 'graph' && x.record_family_id === j.family);
                if (r === undefined) return;
                setFamily(r);
                setJumps((n) => n + 1);
                setRoute({ screen: 'diff', params: { ...pairParams(compared), family: familyParam(r), ...dropNulls({ kinds: j.kinds === null ? null : j.kinds.join(','), field: j.field, row: String(j.row) }) } }, { replace: true });
              }}
            />
          )}
          {family !== null && workspace !== null && (
            // Keyed by the family: another family starts with nothing expanded, filtered or selected from the previous one.
            <RecordDiff
              key={`${family.capability_id ?? ''}/${family.record_family_id ?? ''}#${jumps}`}
              project={workspace.project}
              compared={compared}
              family={family}
              initial={params['family'] === familyParam(family) ? linkedFilter(params) : null}
              onLink={(changes) => setRoute({ screen: 'diff', params: { ...pairParams(compared), family: familyParam(family), ...dropNulls(changes) } }, { replace: true })}
            />
          )}
        </div>
      )}
    </section>
  );
}

const SUMMARY_COLUMNS_ALL = (): readonly string[] => SUMMARY_DIFF_COLUMNS;

/** A record-diff row's key: its identity (one row per record and kind). */
const recordKey = (r: RecordRow): string => `${r.record_identity_fingerprint ?? ''}/${r.change_kind ?? ''}`;


/** Each row's display values, parsed once. */
const displayCache = new WeakMap<RecordRow, DisplayValues>();
function displayOf(r: RecordRow): DisplayValues {
  let d = displayCache.get(r);
  if (d === undefined) {
    d = parseDisplay(r.display);
    displayCache.set(r, d);
  }
  return d;
}

const TECHNICAL_COLUMNS: readonly GridColumn<RecordRow>[] = [
  { id: 'record_identity_fingerprint', header: 'identity fingerprint', width: 'minmax(10rem, 1fr)', mono: true, minRem: 12 },
  { id: 'from_record_fingerprint', header: 'before fingerprint', width: 'minmax(10rem, 1fr)', mono: true, minRem: 12 },
  { id: 'to_record_fingerprint', header: 'after fingerprint', width: 'minmax(10rem, 1fr)', mono: true, minRem: 12 },
];

/** The record grid's columns: change, the family's display fields, changed fields, the record id, and (on request) the fingerprints. */
function recordColumns(displayFields: readonly string[], expanded: ReadonlySet<string>, technical: boolean): readonly GridColumn<RecordRow>[] {
  const change: GridColumn<RecordRow> = {
    id: 'change_kind',
    header: 'change',
    width: '8rem',
    minRem: 7,
    render: (r) => (
      <>
        <span aria-hidden="true" className="expander">{expanded.has(recordKey(r)) ? '▾' : '▸'}</span> {r.change_kind}
      </>
    ),
  };
  const display = displayFields.map(
    (f): GridColumn<RecordRow> => ({
      id: 'display',
      key: `display:${f}`,
      header: f,
      width: 'minmax(9rem, 1fr)',
      minRem: 9,
      title: (r) => displayOf(r)[f] ?? '',
      render: (r) => displayOf(r)[f] ?? '—',
    }),
  );
  const changed: GridColumn<RecordRow> = {
    id: 'changed_fields',
    header: 'changed fields',
    width: 'minmax(9rem, 1fr)',
    minRem: 9,
    render: (r) => changedFieldList(r.changed_fields).join(', ') || '—',
    title: (r) => changedFieldList(r.changed_fields).join(', '),
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
  return [change, ...display, changed, id, ...(technical ? TECHNICAL_COLUMNS : [])];
}

const NO_KEYS: ReadonlySet<string> = new Set();

const NO_PARAMS: Readonly<Record<string, string>> = {};


/**
 * A family's record changes. `initial` is the filter and position a link
 * holds (null: the whole list from the top); every change is reported to
 * `onLink` as link parameters (null removes one), so the link reopens it.
 */
function RecordDiff({ project, compared, family, initial, onLink }: {
  project: string;
  compared: Compared;
  family: SummaryRow;
  initial: ReturnType<typeof linkedFilter> | null;
  onLink: (changes: Record<string, string | null>) => void;
}) {
  const familyId = family.record_family_id ?? '';
  const capabilityId = family.capability_id ?? '';
  const stat = compared.stat.families.find((f) => familyKeyOf(f) === familyKeyOf(family)) ?? null;
  const [kinds, setKinds] = useState<readonly ChangeKind[]>(initial?.filter.kinds ?? CHANGE_KINDS);
  const [field, setField] = useState<string | null>(initial?.filter.field ?? null);
  const [search, setSearch] = useState<string | null>(initial?.filter.search ?? null);
  const [searchText, setSearchText] = useState(initial?.filter.search ?? '');
  const [position, setPosition] = useState(initial?.position ?? 0);
  const [jumpText, setJumpText] = useState('');
  const [technical, setTechnical] = useState(false);
  const filter: RecordFilter = useMemo(() => ({ kinds, field, search }), [kinds, field, search]);
  const target: FamilyTarget = useMemo(() => ({ project, from: compared.from, to: compared.to, family }), [project, compared.from, compared.to, family]);
  const filterKey = JSON.stringify([kinds, field, search]);
  const windowKey = `${compared.from}|${compared.to}|${capabilityId}/${familyId}|${filterKey}|${position}`;
  // Expanded rows belong to one filter and window: any change closes them all (never a stale detail).
  const [open, setOpen] = useState<{ readonly key: string; readonly keys: ReadonlySet<string> }>({ key: windowKey, keys: NO_KEYS });
  const expanded = open.key === windowKey ? open.keys : NO_KEYS;
  // The engine diffs, filters and pages this family alone (its tokens are bound to the family and the filter).
  const fetchPage = useCallback(
    (after: string | null, operationId: string) =>
      invoke('checkpoints.diff', {
        ...recordDiffRequest(target, { limit: RECORD_PAGE, after, operation_id: operationId }),
        display: true,
        ...filterRequest(filter),
        ...(after === null && position > 0 ? { position } : {}),
      }),
    [target, filter, position],
  );
  const paged = usePaged('checkpoints.diff', kinds.length === 0 ? null : windowKey, fetchPage, 'checkpoint_record_diff_display@1');
  const rows = paged.rows;
  const last = rows[paged.count - 1];
  const total = (last?.total_rows ?? null) !== null ? Number(last!.total_rows) : filteredTotal(stat, filter);
  const columns = useMemo(() => recordColumns(stat?.display_fields ?? [], expanded, technical), [stat, expanded, technical]);
  const toggle = useCallback(
    (r: RecordRow) => {
      const k = recordKey(r);
      setOpen((prev) => {
        const next = new Set(prev.key === windowKey ? prev.keys : NO_KEYS);
        if (next.has(k)) next.delete(k);
        else next.add(k);
        return { key: windowKey, keys: next };
      });
    },
    [windowKey],
  );
  const renderExpanded = useCallback((r: RecordRow) => <RecordExpansion target={target} row={r} />, [target]);
  const setFilter = (next: Partial<RecordFilter>) => {
    if (next.kinds !== undefined) setKinds(next.kinds);
    if (next.field !== undefined) setField(next.field);
    if (next.search !== undefined) setSearch(next.search);
    setPosition(0);
    onLink(filterParams({ ...filter, ...next }, 0));
  };
  const lastPage = total === null ? null : Math.max(0, total - RECORD_PAGE);
  /** True while the last jump was "Last page": the new window opens at its last rows. */
  const [atEnd, setAtEnd] = useState(false);
  const jumpFocused = useRef(false);
  const jump = (to: number, end = false) => {
    const p = Math.max(0, total === null ? to : Math.min(to, Math.max(0, total - 1)));
    setAtEnd(end);
    setPosition(p);
    onLink(filterParams(filter, p));
  };
  // "Go to row" follows the grid: it holds the first row in view (unless the user is typing in it).
  const onRange = useCallback((first: number) => {
    if (!jumpFocused.current) setJumpText(String(position + first + 1));
  }, [position]);
  const rangeText = (first: number, lastIndex: number): string => {
    const a = rows[first]?.row_number ?? null;
    const b = rows[lastIndex]?.row_number ?? null;
    const of = total === null ? (paged.hasMore ? 'more' : formatCount(Number(last?.row_number ?? 0))) : formatCount(total);
    return a === null || b === null ? `no rows of ${of}` : `rows ${formatCount(Number(a))}–${formatCount(Number(b))} of ${of}`;
  };
  const cells = stat?.changed_cells ?? [];
  return (
    <div className="stack" data-testid="record-diff">
      <h3>Records of <span className="mono">{family.capability_id}/{familyId}</span> ({family.change_kind})</h3>
      <fieldset className="row-form">
        <legend>Show change kinds</legend>
        {CHANGE_KINDS.map((k) => (
          <label key={k} className={`chip change-${k}`}>
            <input
              type="checkbox"
              checked={kinds.includes(k)}
              onChange={(e) => setFilter({ kinds: CHANGE_KINDS.filter((x) => (x === k ? e.target.checked : kinds.includes(x))) })}
            />{' '}
            {k} <span data-testid={`count-${k}`}>{stat === null ? '—' : formatCount(stat[k])}</span>
          </label>
        ))}
        <label className="chip">
          <input type="checkbox" checked={technical} onChange={(e) => setTechnical(e.target.checked)} data-testid="technical-columns" /> technical columns
        </label>
      </fieldset>
      <div className="row-form">
        <label htmlFor="diff-changed-field">Changed field</label>
        <select id="diff-changed-field" value={field ?? ''} onChange={(e) => setFilter({ field: e.target.value === '' ? null : e.target.value })} data-testid="changed-field">
          <option value="">any field</option>
          {cells.map((c) => (
            <option key={c.field} value={c.field}>{`${c.field} (changed in ${formatCount(c.records)} ${c.records === 1 ? 'record' : 'records'})`}</option>
          ))}
        </select>
        <form
          className="row-form"
          role="search"
          aria-label="Search the record changes"
          onSubmit={(e) => {
            e.preventDefault();
            const text = searchText.trim();
            setFilter({ search: text === '' ? null : text });
          }}
        >
          <label htmlFor="diff-search">Search</label>
          <input
            id="diff-search"
            type="search"
            maxLength={DIFF_SEARCH_MAX_CHARS}
            placeholder="record id prefix or display text"
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
            data-testid="diff-search"
          />
          <button type="submit" data-testid="search-go">Search</button>
          {search !== null && (
            <button type="button" onClick={() => (setSearchText(''), setFilter({ search: null }))} data-testid="search-clear">Clear search</button>
          )}
        </form>
      </div>
      {cells.length > 0 && (
        <p className="muted small" data-testid="changed-cells">
          Changed cells: {cells.map((c) => `${c.field} in ${formatCount(c.records)}`).join(' · ')}
        </p>
      )}
      <ExportAllRecords
        key={`${compared.from}|${compared.to}|${capabilityId}/${familyId}`}
        target={{ project, from: compared.from, to: compared.to, scope: diffScopeOfParticipant(family.scope ?? ''), family: familyId }}
        label={`Export every ${familyId} change`}
        testId="export-family"
      />
      <form
        className="pager"
        aria-label="Jump in the record changes"
        onSubmit={(e) => {
          e.preventDefault();
          const n = Number(jumpText);
          if (Number.isInteger(n) && n >= 1) jump(n - 1);
        }}
      >
        <button type="button" onClick={() => jump(0)} disabled={position === 0} data-testid="jump-first">First page</button>
        <button type="button" onClick={() => jump(position - RECORD_PAGE)} disabled={position === 0} data-testid="jump-prev">Previous page</button>
        <label htmlFor="diff-jump">Go to row</label>
        <input id="diff-jump" type="number" min={1} max={total ?? undefined} value={jumpText} onChange={(e) => setJumpText(e.target.value)} onFocus={(e) => { jumpFocused.current = true; e.target.select(); }} onBlur={() => { jumpFocused.current = false; }} data-testid="jump-row" />
        <button type="submit" data-testid="jump-go">Go</button>
        <button type="button" onClick={() => lastPage !== null && jump(lastPage, true)} disabled={lastPage === null || (position === lastPage && atEnd)} data-testid="jump-last">Last page</button>
      </form>
      {/* Fixed-height status line: progress and Cancel while a page loads, never shifting the grid. */}
      <div className="progress status-line" role="status" data-testid="record-diff-status">
        {paged.loading ? (
          <>
            <progress aria-label="Record diff page in progress" />
            <span>Loading record changes{paged.count > 0 ? ` after ${formatCount(paged.count)} rows` : ''}…</span>
            <button type="button" onClick={paged.cancel} data-testid="record-diff-cancel">Cancel</button>
          </>
        ) : paged.cancelled ? (
          <>
            <span data-testid="record-diff-notice">Record diff cancelled. No rows are shown.</span>
            <button type="button" onClick={paged.retry} data-testid="record-diff-retry">Load again</button>
          </>
        ) : kinds.length === 0 ? (
          <span>Choose at least one change kind.</span>
        ) : null}
      </div>
      {paged.error !== null && <ErrorBox error={paged.error} testId="record-diff-error" />}
      {!paged.cancelled && kinds.length > 0 && (
        <VirtualGrid
          // A new window (jump, filter, search) is a new grid: its scroll position and measurements start afresh.
          key={windowKey}
          label={`Record changes of ${familyId}`}
          columns={columns}
          rows={rows}
          rowKey={recordKey}
          totalRows={total ?? undefined}
          hasMore={paged.hasMore}
          loading={paged.loading}
          onNeedMore={paged.more}
          onActivate={toggle}
          expanded={expanded}
          renderExpanded={renderExpanded}
          rowOffset={position}
          resetKey={windowKey}
          startAtEnd={atEnd}
          onRange={onRange}
          rowClass={(r) => `change-${r.change_kind ?? ''}`}
          testId="record-diff-grid"
          status={(first, lastIndex) => (paged.loading && paged.count === 0 ? 'Loading…' : <span data-testid="rows-range">{rangeText(first, lastIndex)}</span>)}
          emptyText={paged.hasMore ? 'Loading more pages…' : search !== null ? `No record change matches “${search}”.` : 'No record changes of these kinds.'}
        />
      )}
      <p className="muted small" data-testid="loaded-rows">{formatCount(paged.count)} loaded from row {formatCount(position + 1)}</p>
    </div>
  );
}

