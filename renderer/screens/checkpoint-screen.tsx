// Checkpoint view: a read-only, lease-pinned view of one checkpoint;
// participants grouped by scope; a record table paged from the engine as you
// scroll; lookup of one record by identity.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { JsonResults, ParticipantEntry } from '../../core/contract/operations';
import { decodeArrow, type DecodedPage } from '../arrow-rows';
import { ErrorBox } from '../components/error-box';
import { VirtualGrid, type GridColumn } from '../components/virtual-grid';
import { showError, type ShownError } from '../errors-text';
import { invoke } from '../invoke';
import { usePaged } from '../paged';
import { WorkspaceDocumentsPanel } from './checkpoint-documents';
import { CheckpointGraphPanel } from '../pictures/checkpoint-graph';
import { useShallow } from 'zustand/react/shallow';
import { useStudio } from '../store';
import { ActorLabel } from '../components/actor-label';
import { When } from '../components/when';
import { formatCount } from '../format';

type ViewOpened = JsonResults['view.open'];

/** The scope a participant belongs to, as the registry declares it (the engine sends it). */
export function scopeOf(p: Pick<ParticipantEntry, 'scope'>): string {
  return p.scope ?? 'unregistered';
}

const PAGE = 100;
const NO_PARTICIPANTS: readonly ParticipantEntry[] = [];

/** An open view and its participants (null until both arrived). */
interface OpenedView {
  readonly view: ViewOpened;
  readonly participants: readonly ParticipantEntry[];
}

/**
 * Opens a read-only view of checkpoint `name` for as long as the caller is
 * mounted with the same project and name, and closes it on every path: the
 * name changes, the screen unmounts (also before `view.open` answered: the
 * view is closed as soon as its handle arrives), or its participants fail to
 * load. Returns the view with its participants, or the error.
 */
export function useViewLease(project: string | null, name: string): { readonly opened: OpenedView | null; readonly error: ShownError | null } {
  const [opened, setOpened] = useState<OpenedView | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  useEffect(() => {
    setOpened(null);
    setError(null);
    if (project === null || name === '') return undefined;
    let live = true;
    let handle: string | null = null;
    const close = (view: string) => void invoke('view.close', { view }).catch(() => undefined);
    invoke('view.open', { project, name })
      .then(async (v) => {
        handle = v.view;
        // Unmounted or switched while the view opened: the cleanup ran before there was a handle to close.
        if (!live) return close(v.view);
        const ps = await invoke('view.participants', { view: v.view });
        if (live) setOpened({ view: v, participants: ps.participants });
      })
      .catch((e: unknown) => {
        if (live) setError(showError(e));
      });
    return () => {
      live = false;
      if (handle !== null) close(handle);
    };
  }, [project, name]);
  return { opened, error };
}

/** The checkpoint view screen. */
export function CheckpointScreen() {
  const { checkpoints, focusName, workspace, route, setRoute } = useStudio(useShallow((s) => ({ checkpoints: s.checkpoints, focusName: s.focusName, workspace: s.workspace, route: s.route, setRoute: s.setRoute })));
  const names = checkpoints.map((c) => c.name ?? '');
  const [name, setName] = useState<string>(focusName ?? names[0] ?? '');
  const { opened, error } = useViewLease(workspace?.project ?? null, name);
  const row = checkpoints.find((c) => c.name === name);
  const view = opened?.view ?? null;
  const participants = opened?.participants ?? NO_PARTICIPANTS;
  const [family, setFamily] = useState<ParticipantEntry | null>(null);
  // Another checkpoint (or a reopened view) starts with the link's participant (`family`), else none.
  const linkedFamily = route.screen === 'checkpoint' ? route.params['family'] ?? null : null;
  useEffect(() => setFamily(opened?.participants.find((p) => `${p.capability_id}/${p.record_family_id}` === linkedFamily) ?? null), [opened]);
  // The checkpoint and the participant chosen go into the link (in place), so a reload or a second tab reopens them.
  const link = (n: string, f: ParticipantEntry | null) =>
    setRoute({ screen: 'checkpoint', params: { name: n, ...(f === null ? {} : { family: `${f.capability_id}/${f.record_family_id}` }) } }, { replace: true });

  const groups = useMemo(() => {
    const m = new Map<string, ParticipantEntry[]>();
    for (const p of participants) m.set(scopeOf(p), [...(m.get(scopeOf(p)) ?? []), p]);
    return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [participants]);

  return (
    <section className="screen" aria-labelledby="cp-title">
      <div className="screen-head">
        <h2 id="cp-title">Checkpoint <span className="badge">read-only</span></h2>
        <div className="actions">
          <label htmlFor="cp-select">Checkpoint</label>
          <select id="cp-select" value={name} onChange={(e) => (setName(e.target.value), link(e.target.value, null))}>
            {names.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </div>
      </div>
      {error !== null && <ErrorBox error={error} testId="view-error" />}
      {row !== undefined && (
        <div className="checkpoint-facts" data-testid="checkpoint-facts">
          <p>
            Created <When iso={row.created_at} testId="checkpoint-created" /> by <ActorLabel actor={row.created_by} testId="checkpoint-actor" />
          </p>
          {row.description !== null && row.description !== '' && <p data-testid="checkpoint-description">{row.description}</p>}
        </div>
      )}
      {view !== null && (
        <details className="small muted">
          <summary>Technical details</summary>
          generation <span className="mono" data-testid="view-generation">{view.generation_uuid}</span> · manifest <span className="mono">{view.manifest_sha256.slice(0, 16)}…</span>
        </details>
      )}
      <div className="split">
        <nav aria-label="Participants" className="participants" data-testid="participants">
          {groups.map(([scope, ps]) => (
            <div key={scope} className="scope-group">
              <h3>{scope}</h3>
              <ul className="plain-list">
                {ps.map((p) => {
                  const id = `${p.capability_id}/${p.record_family_id}`;
                  return (
                    <li key={id}>
                      <button type="button" className="participant" aria-pressed={family === p} onClick={() => (setFamily(p), link(name, p))} data-testid="participant">
                        <span className="mono">{id}</span> <span className="count" data-testid="participant-rows">{p.row_count.toLocaleString('en-US')} rows</span>
                      </button>
                    </li>
                  );
                })}
              </ul>
            </div>
          ))}
        </nav>
        <div className="records-pane">
          {view !== null && family !== null ? <RecordsPane view={view.view} family={family} /> : <p className="muted">Choose a participant to browse its records.</p>}
        </div>
      </div>
      {view !== null && participants.some((p) => p.capability_id === 'graph' && p.record_family_id === 'node') && <CheckpointGraphPanel key={view.view} view={view.view} />}
      {view !== null && <WorkspaceDocumentsPanel view={view.view} />}
    </section>
  );
}

function RecordsPane({ view, family }: { view: string; family: ParticipantEntry }) {
  const key = `${view}|${family.capability_id}/${family.record_family_id}`;
  const paged = usePaged('view.records', key, (after) => invoke('view.records', { view, capability_id: family.capability_id, record_family_id: family.record_family_id, limit: PAGE, after }));
  const columns = useMemo<GridColumn[]>(() => paged.columns.map((c) => ({ id: c, header: c, mono: /uuid|sha256|fingerprint/.test(c), minRem: /uuid|sha256|fingerprint/.test(c) ? 20 : 9 })), [paged.columns]);
  const [search, setSearch] = useState('');
  const [sortBy, setSortBy] = useState('');
  const [descending, setDescending] = useState(false);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  // Search and sort act on the records loaded so far (the engine pages them in its own order); the status line says so.
  const shown = useMemo(() => {
    const needle = search.trim().toLowerCase();
    const rows = needle === '' ? [...paged.rows] : paged.rows.filter((r) => Object.values(r).some((v) => v !== null && String(v).toLowerCase().includes(needle)));
    if (sortBy !== '') {
      const collator = new Intl.Collator(undefined, { numeric: true });
      rows.sort((a, b) => collator.compare(String(a[sortBy] ?? ''), String(b[sortBy] ?? '')) * (descending ? -1 : 1));
    }
    return rows;
  }, [paged.rows, paged.rows.length, search, sortBy, descending]);
  const filtered = search.trim() !== '' || sortBy !== '';
  const rowKeyOf = (r: (typeof shown)[number]): string => JSON.stringify(paged.columns.map((c) => r[c] ?? null));
  return (
    <div className="stack">
      <h3>
        <span className="mono">{family.capability_id}/{family.record_family_id}</span> · {formatCount(family.row_count)} records
      </h3>
      <div className="row-form" role="search" aria-label="Search and sort the records">
        <label htmlFor="records-search">Search</label>
        <input id="records-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} autoComplete="off" data-testid="records-search" />
        <label htmlFor="records-sort">Sort by</label>
        <select id="records-sort" value={sortBy} onChange={(e) => setSortBy(e.target.value)} data-testid="records-sort">
          <option value="">stored order</option>
          {paged.columns.map((c) => <option key={c} value={c}>{c}</option>)}
        </select>
        <label className="toggle"><input type="checkbox" checked={descending} onChange={(e) => setDescending(e.target.checked)} disabled={sortBy === ''} /> descending</label>
      </div>
      {paged.error !== null && <ErrorBox error={paged.error} testId="records-error" />}
      <VirtualGrid
        label={`Records of ${family.capability_id}/${family.record_family_id}`}
        columns={columns}
        rows={shown}
        rowKey={(r) => rowKeyOf(r)}
        totalRows={filtered ? shown.length : family.row_count}
        hasMore={paged.hasMore}
        loading={paged.loading}
        onNeedMore={paged.more}
        onActivate={(r) => setOpen((o) => {
          const k = rowKeyOf(r);
          const next = new Set(o);
          if (next.has(k)) next.delete(k);
          else next.add(k);
          return next;
        })}
        expanded={open}
        renderExpanded={(r) => (
          <dl className="record-fields" data-testid="record-open">
            {paged.columns.map((c) => <div key={c}><dt className="mono">{c}</dt><dd className="mono">{r[c] ?? '—'}</dd></div>)}
          </dl>
        )}
        resetKey={`${search}|${sortBy}|${descending}`}
        testId="records-grid"
        emptyText={filtered ? 'No loaded record matches.' : 'No records.'}
      />
      <p className="muted small" data-testid="records-pages">{formatCount(paged.rows.length)} of {formatCount(family.row_count)} loaded in {formatCount(paged.pages)} page{paged.pages === 1 ? '' : 's'}</p>
      {filtered && <p className="muted small" role="status" data-testid="records-filtered">{formatCount(shown.length)} of the {formatCount(paged.rows.length)} loaded records shown; search and sort apply to the loaded records (scroll to load more). Click a record (or Enter) to open it.</p>}
      <Lookup key={key} view={view} family={family} />
    </div>
  );
}

/** The sentence naming a family's identity fields (shown with every lookup error). */
export function identityFieldsText(family: Pick<ParticipantEntry, 'capability_id' | 'record_family_id' | 'identity_fields'>): string {
  const fields = family.identity_fields;
  return fields.length === 0
    ? `${family.capability_id}/${family.record_family_id} is not a registered family: it has no identity fields to look a record up by.`
    : `A record of ${family.capability_id}/${family.record_family_id} is named by ${fields.length === 1 ? 'its identity field' : `its ${fields.length} identity fields`} ${fields.join(', ')}.`;
}

function Lookup({ view, family }: { view: string; family: ParticipantEntry }) {
  const fields = family.identity_fields;
  const [values, setValues] = useState<Readonly<Record<string, string>>>({});
  const [result, setResult] = useState<DecodedPage | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [missing, setMissing] = useState<readonly string[]>([]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setResult(null);
    const empty = fields.filter((f) => (values[f] ?? '').trim() === '');
    setMissing(empty);
    if (empty.length > 0) return;
    const identity: Record<string, string> = {};
    for (const f of fields) identity[f] = (values[f] ?? '').trim();
    try {
      const page = await invoke('view.record', { view, capability_id: family.capability_id, record_family_id: family.record_family_id, identity });
      setResult(decodeArrow(page.bytes, 'view.record'));
    } catch (err) {
      setError(showError(err));
    }
  };
  const hint = identityFieldsText(family);
  return (
    <form className="lookup stack" onSubmit={(e) => void submit(e)} aria-label="Look up a record by identity" noValidate>
      <h4>Look up by identity</h4>
      <p className="muted small" id="lk-hint">{hint}</p>
      {fields.map((f) => (
        <div className="row-form" key={f}>
          <label htmlFor={`lk-${f}`} className="mono">{f}</label>
          <input
            id={`lk-${f}`}
            className="mono"
            value={values[f] ?? ''}
            aria-describedby="lk-hint"
            aria-invalid={missing.includes(f) ? true : undefined}
            onChange={(e) => setValues({ ...values, [f]: e.target.value })}
            data-testid="lookup-field"
          />
        </div>
      ))}
      <div className="actions">
        <button type="submit" disabled={fields.length === 0}>Look up</button>
      </div>
      {missing.length > 0 && (
        <p className="field-error" role="alert" data-testid="lookup-missing">
          Fill in every identity field: {missing.join(', ')} {missing.length === 1 ? 'is' : 'are'} empty. {hint}
        </p>
      )}
      {error !== null && (
        <div>
          <ErrorBox error={error} testId="lookup-error" />
          <p className="field-error" data-testid="lookup-error-fields">{hint}</p>
        </div>
      )}
      {result !== null && (
        <div data-testid="lookup-result" aria-live="polite">
          {result.rows.length === 0 ? (
            <p>No record has this identity.</p>
          ) : (
            <dl className="record-fields">
              {result.columns.map((c) => (
                <div key={c}><dt>{c}</dt><dd className="mono">{result.rows[0]?.[c] ?? '—'}</dd></div>
              ))}
            </dl>
          )}
        </div>
      )}
    </form>
  );
}
