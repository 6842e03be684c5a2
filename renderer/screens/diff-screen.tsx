// Diff: from/to (checkpoints or CURRENT), scope, the per-participant summary,
// a family's record diff paged as you scroll (colour-coded, filterable), rows
// that expand inline to every field before and after with the changed cells
// highlighted (several at once), copy buttons, progress + Cancel, export.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { DIFF_SCOPES, type DiffScope, type OperationInput, type RecordChangeEntry, type RecordJson, type Row } from '../../core/contract/operations';
import {
  CURRENT_SELECTOR,
  DIFF_SEARCH_MAX_CHARS,
  RECORD_CHANGE_KINDS,
  SUMMARY_DIFF_COLUMNS,
  changedFieldList,
  diffScopeOfParticipant,
  parseDisplay,
  type DiffStatFamily,
  type DiffStatResult,
  type DisplayValues,
  type RecordChangeKind,
} from '../../core/contract/diff';
import { microsTextIso } from '../../core/contract/time';
import { decodeArrow } from '../arrow-rows';
import { ErrorBox } from '../components/error-box';
import { VirtualGrid, type GridColumn } from '../components/virtual-grid';
import { showError, type ShownError } from '../errors-text';
import { invoke } from '../invoke';
import { fetchAllPages, useQuery, withOperation } from '../hooks';
import { formatCount, middleTruncate } from '../format';
import { CopyButton } from '../components/copy-button';

export { middleTruncate } from '../format';
import { usePaged } from '../paged';
import { useShallow } from 'zustand/react/shallow';
import { useStudio } from '../store';
import { ExportAllRecords, concatArrow, download, toCsv } from './diff-export';
import { DiffGraphPanel, type RecordDiffJump } from '../pictures/diff-graph';

const CURRENT = CURRENT_SELECTOR;
const SUMMARY_PAGE = 1000;
const RECORD_PAGE = 500;
/** Upper bound on summary pages (one row per participant: far beyond any workspace). */
const MAX_SUMMARY_PAGES = 1000;
const CHANGE_KINDS = RECORD_CHANGE_KINDS;
type ChangeKind = RecordChangeKind;
/** A summary row (`checkpoint_summary_diff@1`). */
type SummaryRow = Row<'checkpoints.diff', 'checkpoint_summary_diff@1'>;
/** A record-diff row with display values, row number and total (`checkpoint_record_diff_display@1`). */
type RecordRow = Row<'checkpoints.diff', 'checkpoint_record_diff_display@1'>;

/** One compared pair: the summary rows and the engine's exact statistics. */
interface Compared {
  readonly from: string;
  readonly to: string;
  readonly scope: DiffScope;
  readonly rows: readonly SummaryRow[];
  readonly pages: readonly Uint8Array[];
  readonly stat: DiffStatResult;
}

/** A family's key in the summary and the statistics. */
const familyKeyOf = (f: { readonly capability_id: string | null; readonly record_family_id: string | null }): string => `${f.capability_id ?? ''}/${f.record_family_id ?? ''}`;

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
    scope: diffScopeOfParticipant(t.family.scope ?? ''),
    detail: 'records',
    limit: page.limit,
    after: page.after,
    record_family_id: t.family.record_family_id ?? '',
    capability_id: t.family.capability_id ?? '',
    operation_id: page.operation_id,
  };
}

/** A family's key in a deep link (`capability/record_family`, as the summary keys it). */
const familyParam = (r: Pick<SummaryRow, 'capability_id' | 'record_family_id'>): string => familyKeyOf(r);

/** The compared pair a diff link names (`from`, `to`, `scope`), or null when it names none. */
export function linkedPair(params: Readonly<Record<string, string>>): { readonly from: string; readonly to: string; readonly scope: DiffScope } | null {
  const from = params['from'];
  const to = params['to'];
  if (from === undefined || to === undefined) return null;
  const s = params['scope'];
  return { from, to, scope: s !== undefined && (DIFF_SCOPES as readonly string[]).includes(s) ? (s as DiffScope) : 'all' };
}

/** The link parameters of a compared pair (scope `all` left out). */
export function pairParams(pair: { readonly from: string; readonly to: string; readonly scope: DiffScope }): Record<string, string> {
  return { from: pair.from, to: pair.to, ...(pair.scope === 'all' ? {} : { scope: pair.scope }) };
}

/** The record filter and position a diff link holds (`kinds`, `field`, `q`, `row`); defaults for what it omits or garbles. */
export function linkedFilter(params: Readonly<Record<string, string>>): { readonly filter: RecordFilter; readonly position: number } {
  const k = params['kinds'];
  const kinds = k === undefined ? CHANGE_KINDS : CHANGE_KINDS.filter((x) => k.split(',').includes(x));
  const row = Number(params['row'] ?? '1');
  return {
    filter: { kinds: kinds.length === 0 ? CHANGE_KINDS : kinds, field: params['field'] ?? null, search: params['q'] ?? null },
    position: Number.isSafeInteger(row) && row >= 1 ? row - 1 : 0,
  };
}

/** The link parameters of a record filter and position (defaults omitted, so a plain family link stays short). */
export function filterParams(filter: RecordFilter, position: number): Record<string, string | null> {
  return {
    kinds: filter.kinds.length === CHANGE_KINDS.length ? null : filter.kinds.join(','),
    field: filter.field,
    q: filter.search,
    row: position === 0 ? null : String(position + 1),
  };
}

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
  const [running, setRunning] = useState(false);
  const [compared, setCompared] = useState<Compared | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [family, setFamily] = useState<SummaryRow | null>(null);
  /** Bumped by each jump from the graph of the changes, so the record diff reopens at the row even in the same family. */
  const [jumps, setJumps] = useState(0);
  /** The graph of the changes is drawn on request: a WebGL picture and its layout cost more than the tables a reviewer reads first. */
  const [showGraph, setShowGraph] = useState(false);
  // The renderer's one cancellation idiom: aborting stops both requests in flight (withOperation tells the engine).
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);
  // The pair last asked for (by Compare or by the link): the link is followed only when it names another one.
  const requested = useRef<string | null>(null);

  const compare = async (pair: { readonly from: string; readonly to: string; readonly scope: DiffScope }, linkedFamily: string | null = null) => {
    if (workspace === null) return;
    const { from, to, scope } = pair;
    requested.current = JSON.stringify([from, to, scope]);
    controller.current?.abort();
    const c = new AbortController();
    controller.current = c;
    setRunning(true);
    setCompared(null);
    setFamily(null);
    setError(null);
    setNotice(null);
    const project = workspace.project;
    try {
      // The summary and the exact statistics together: the chips show exact totals from the first paint.
      const [results, stat] = await Promise.all([
        fetchAllPages(
          (after) => withOperation(c.signal, (id) => invoke('checkpoints.diff', { project, from, to, scope, detail: 'summary', limit: SUMMARY_PAGE, after, operation_id: id })),
          { maxPages: MAX_SUMMARY_PAGES, signal: c.signal },
        ),
        withOperation(c.signal, (id) => invoke('checkpoints.diff_stat', { project, from, to, scope, operation_id: id })),
      ]);
      if (c.signal.aborted) return;
      const rows = results.flatMap((page) => decodeArrow(page.bytes, 'checkpoints.diff', 'checkpoint_summary_diff@1').rows);
      // Shown only once complete: a cancelled or failed diff shows nothing partial.
      setCompared({ from, to, scope, rows, pages: results.map((page) => page.bytes), stat });
      // A link's family opens once its summary is here (a family the diff does not have is ignored).
      if (linkedFamily !== null) setFamily(rows.find((r) => familyParam(r) === linkedFamily) ?? null);
    } catch (e) {
      if (c.signal.aborted) return;
      const shown = showError(e);
      if (shown.code === 'GF_CANCELLED') setNotice('Diff cancelled. No result is shown.');
      else setError(shown);
    } finally {
      if (controller.current === c) {
        controller.current = null;
        setRunning(false);
      }
    }
  };

  // A link (boot, History's "Diff with …", the revert receipt, back/forward) that names a pair other than the one asked for opens it.
  const linkedKey = linked === null ? null : JSON.stringify([linked.from, linked.to, linked.scope]);
  useEffect(() => {
    if (linked === null || linkedKey === requested.current) return;
    setFrom(linked.from);
    setTo(linked.to);
    setScope(linked.scope);
    void compare(linked, params['family'] ?? null);
    // Keyed on the link's pair alone: a family or filter change in the same diff is written by this screen, not followed.
  }, [linkedKey]);

  /** Compare pressed: the pair goes into the link (a new history entry) and runs. */
  const compareChosen = () => {
    setRoute({ screen: 'diff', params: pairParams({ from, to, scope }) });
    void compare({ from, to, scope });
  };

  /** A summary row opened: it becomes the link's family (the filter starts afresh). */
  const openFamily = (r: SummaryRow) => {
    setFamily(r);
    if (compared !== null) setRoute({ screen: 'diff', params: { ...pairParams(compared), family: familyParam(r) } }, { replace: true });
  };

  const cancel = () => {
    if (controller.current === null) return;
    controller.current.abort();
    controller.current = null;
    setRunning(false);
    setCompared(null);
    setNotice('Diff cancelled. No result is shown.');
  };

  const summaryCols = useMemo(() => (compared === null ? [] : summaryColumns(compared.stat)), [compared]);
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
      {notice !== null && <p className="notice" role="status" data-testid="diff-notice">{notice}</p>}
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

/** The id a person copies for a record: its record UUID, or (families without one) its identity fingerprint. */
const recordId = (r: RecordRow): string => r.record_uuid ?? r.record_identity_fingerprint ?? '';

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

/** What the engine filters a family's change list by (page tokens are bound to it). */
export interface RecordFilter {
  readonly kinds: readonly ChangeKind[];
  /** Only modified records in which this field changed. */
  readonly field: string | null;
  /** Record-id prefix or display-text substring. */
  readonly search: string | null;
}

/**
 * Rows of the change list a filter selects, from the exact statistics; null
 * when only the engine's walk can tell (a search).
 */
export function filteredTotal(stat: Pick<DiffStatFamily, 'added' | 'removed' | 'modified' | 'changed_cells'> | null, filter: RecordFilter): number | null {
  if (stat === null || filter.search !== null) return null;
  if (filter.field !== null) return filter.kinds.includes('modified') ? (stat.changed_cells.find((c) => c.field === filter.field)?.records ?? 0) : 0;
  return filter.kinds.reduce((n, k) => n + stat[k], 0);
}

/** The engine-side filter fields of a record-diff request (none for the whole list). */
export function filterRequest(filter: RecordFilter): Pick<OperationInput<'checkpoints.diff'>, 'change_kinds' | 'changed_field' | 'search'> {
  return {
    ...(filter.kinds.length === CHANGE_KINDS.length ? {} : { change_kinds: [...filter.kinds] }),
    ...(filter.field === null ? {} : { changed_field: filter.field }),
    ...(filter.search === null ? {} : { search: filter.search }),
  };
}

const NO_KEYS: ReadonlySet<string> = new Set();

const NO_PARAMS: Readonly<Record<string, string>> = {};

/** Link parameters with the removed ones (null) left out. */
function dropNulls(changes: Readonly<Record<string, string | null>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(changes)) if (v !== null) out[k] = v;
  return out;
}

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
