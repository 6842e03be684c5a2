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
import { useShallow } from 'zustand/react/shallow';
import { useStudio } from '../store';

type ViewOpened = JsonResults['view.open'];

/** The scope a participant belongs to, as the registry declares it (the engine sends it). */
export function scopeOf(p: Pick<ParticipantEntry, 'scope'>): string {
  return p.scope ?? 'unregistered';
}

const PAGE = 100;

/** The checkpoint view screen. */
export function CheckpointScreen() {
  const { checkpoints, focusName, workspace } = useStudio(useShallow((s) => ({ checkpoints: s.checkpoints, focusName: s.focusName, workspace: s.workspace })));
  const names = checkpoints.map((c) => c.name ?? '');
  const [name, setName] = useState<string>(focusName ?? names[0] ?? '');
  const [view, setView] = useState<ViewOpened | null>(null);
  const [participants, setParticipants] = useState<readonly ParticipantEntry[]>([]);
  const [error, setError] = useState<ShownError | null>(null);
  const [family, setFamily] = useState<ParticipantEntry | null>(null);

  useEffect(() => {
    if (workspace === null || name === '') return;
    let live = true;
    let opened: string | null = null;
    setView(null);
    setParticipants([]);
    setFamily(null);
    setError(null);
    (async () => {
      const v = await invoke('view.open', { project: workspace.project, name });
      opened = v.view;
      if (!live) {
        // Unmounted (or switched) while the view opened: release its lease now, the cleanup ran too early to.
        void invoke('view.close', { view: v.view }).catch(() => undefined);
        return;
      }
      const ps = await invoke('view.participants', { view: v.view });
      if (!live) return;
      setView(v);
      setParticipants(ps.participants);
    })().catch((e: unknown) => live && setError(showError(e)));
    return () => {
      live = false;
      if (opened !== null) void invoke('view.close', { view: opened }).catch(() => undefined);
    };
  }, [workspace, name]);

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
          <select id="cp-select" value={name} onChange={(e) => setName(e.target.value)}>
            {names.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </div>
      </div>
      {error !== null && <ErrorBox error={error} testId="view-error" />}
      {view !== null && (
        <p className="muted small">
          generation <span className="mono" data-testid="view-generation">{view.generation_uuid}</span> · manifest <span className="mono">{view.manifest_sha256.slice(0, 16)}…</span>
        </p>
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
                      <button type="button" className="participant" aria-pressed={family === p} onClick={() => setFamily(p)} data-testid="participant">
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
    </section>
  );
}

function RecordsPane({ view, family }: { view: string; family: ParticipantEntry }) {
  const key = `${view}|${family.capability_id}/${family.record_family_id}`;
  const paged = usePaged('view.records', key, (after) => invoke('view.records', { view, capability_id: family.capability_id, record_family_id: family.record_family_id, limit: PAGE, after }));
  const columns = useMemo<GridColumn[]>(() => paged.columns.map((c) => ({ id: c, header: c, mono: /uuid|sha256|fingerprint/.test(c), minRem: /uuid|sha256|fingerprint/.test(c) ? 20 : 9 })), [paged.columns]);
  return (
    <div className="stack">
      <h3>
        <span className="mono">{family.capability_id}/{family.record_family_id}</span> · {family.row_count.toLocaleString('en-US')} records
      </h3>
      {paged.error !== null && <ErrorBox error={paged.error} testId="records-error" />}
      <VirtualGrid
        label={`Records of ${family.capability_id}/${family.record_family_id}`}
        columns={columns}
        rows={paged.rows}
        rowKey={(_r, i) => String(i)}
        totalRows={family.row_count}
        hasMore={paged.hasMore}
        loading={paged.loading}
        onNeedMore={paged.more}
        testId="records-grid"
      />
      <p className="muted small" data-testid="records-pages">{paged.rows.length} of {family.row_count} loaded in {paged.pages} page{paged.pages === 1 ? '' : 's'}</p>
      <Lookup view={view} family={family} fields={paged.columns} />
    </div>
  );
}

function Lookup({ view, family, fields }: { view: string; family: ParticipantEntry; fields: readonly string[] }) {
  const [pairs, setPairs] = useState<{ field: string; value: string }[]>([{ field: '', value: '' }]);
  const [result, setResult] = useState<DecodedPage | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setResult(null);
    const identity: Record<string, string | number | boolean | null> = {};
    for (const p of pairs) {
      const f = p.field || fields[0] || '';
      identity[f] = p.value;
    }
    try {
      const page = await invoke('view.record', { view, capability_id: family.capability_id, record_family_id: family.record_family_id, identity });
      setResult(decodeArrow(page.bytes, 'view.record'));
    } catch (err) {
      setError(showError(err));
    }
  };
  return (
    <form className="lookup stack" onSubmit={(e) => void submit(e)} aria-label="Look up a record by identity">
      <h4>Look up by identity</h4>
      {pairs.map((p, i) => (
        <div className="row-form" key={i}>
          <label htmlFor={`lk-field-${i}`}>Field</label>
          <select id={`lk-field-${i}`} value={p.field || fields[0] || ''} onChange={(e) => setPairs(pairs.map((q, j) => (j === i ? { ...q, field: e.target.value } : q)))}>
            {fields.map((f) => <option key={f} value={f}>{f}</option>)}
          </select>
          <label htmlFor={`lk-value-${i}`}>Value</label>
          <input id={`lk-value-${i}`} className="mono" value={p.value} onChange={(e) => setPairs(pairs.map((q, j) => (j === i ? { ...q, value: e.target.value } : q)))} />
        </div>
      ))}
      <div className="actions">
        <button type="button" onClick={() => setPairs([...pairs, { field: '', value: '' }])} disabled={pairs.length >= 8}>Add field</button>
        <button type="submit">Look up</button>
      </div>
      {error !== null && <ErrorBox error={error} testId="lookup-error" />}
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
