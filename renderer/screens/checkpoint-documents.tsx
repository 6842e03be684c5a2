// The workspace documents of an opened checkpoint (ADR-0014
// workspace_ontology@1 / workspace_configuration@1): the user's view first —
// mode, source format, contract version, the canonical ontology readable and
// the configuration as a table — and the digests only on request.
import { useMemo, useState } from 'react';
import type { ArrowRow } from '../../core/contract/results';
import { decodeArrow } from '../arrow-rows';
import { ErrorBox } from '../components/error-box';
import { useQuery } from '../hooks';
import { invoke } from '../invoke';

type OntologyRow = ArrowRow<'workspace_ontology_info@1'>;
type ConfigurationRow = ArrowRow<'workspace_configuration_info@1'>;

/** What each ontology mode means, in one sentence. */
const MODE_TEXT: Readonly<Record<string, string>> = {
  none: 'No ontology is adopted: records are not checked against classes or relations.',
  advisory: 'The ontology is adopted in advisory mode: records are compared with it, nothing is refused.',
  strict: 'The ontology is adopted in strict mode: every record must use its classes and relations.',
};

/** One configuration setting as a table row. */
export interface SettingRow {
  readonly group: string;
  readonly setting: string;
  readonly value: string;
}

function settingText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * The configuration document as readable rows: the ontology mode, then every
 * capability setting (`capability` → setting), then every embedding setting,
 * in the document's order (registered stable ids).
 */
export function configurationRows(row: Pick<ConfigurationRow, 'ontology_mode' | 'capability_configuration' | 'embedding_configuration'>): SettingRow[] {
  const rows: SettingRow[] = [{ group: 'workspace', setting: 'ontology_mode', value: row.ontology_mode ?? 'none' }];
  const capabilities = JSON.parse(row.capability_configuration ?? '{}') as Record<string, Record<string, unknown>>;
  for (const [capability, settings] of Object.entries(capabilities)) {
    for (const [setting, value] of Object.entries(settings)) rows.push({ group: capability, setting, value: settingText(value) });
  }
  const embedding = JSON.parse(row.embedding_configuration ?? '{}') as Record<string, unknown>;
  for (const [setting, value] of Object.entries(embedding)) rows.push({ group: 'embedding', setting, value: settingText(value) });
  return rows;
}

/** The canonical ontology pretty-printed for reading (the stored form is compact canonical JSON). */
function readable(canonical: string): string {
  return JSON.stringify(JSON.parse(canonical), null, 2);
}

/** The ontology and configuration of the generation an open view pins (read through `workspace.ontology` / `workspace.configuration`). */
export function WorkspaceDocumentsPanel({ view }: { readonly view: string }) {
  const docs = useQuery(view, async () => {
    const [o, c] = await Promise.all([invoke('workspace.ontology', { view }), invoke('workspace.configuration', { view })]);
    return { ontology: decodeArrow(o.bytes, 'workspace.ontology').rows[0] ?? null, configuration: decodeArrow(c.bytes, 'workspace.configuration').rows[0] ?? null };
  });
  const [showDigests, setShowDigests] = useState(false);
  if (docs.error !== null) return <ErrorBox error={docs.error} testId="ws-documents-error" />;
  if (docs.data === null) return <p className="muted small" aria-live="polite">Loading the ontology and configuration…</p>;
  const { ontology, configuration } = docs.data;
  return (
    <section className="stack notice" aria-labelledby="ws-docs-title" data-testid="ws-documents">
      <h3 id="ws-docs-title">Ontology and configuration</h3>
      {ontology !== null && <OntologyPart row={ontology} showDigests={showDigests} />}
      {configuration !== null && <ConfigurationPart row={configuration} showDigests={showDigests} />}
      <label className="toggle small">
        <input type="checkbox" checked={showDigests} onChange={(e) => setShowDigests(e.target.checked)} data-testid="ws-show-digests" />
        Show digests
      </label>
    </section>
  );
}

function OntologyPart({ row, showDigests }: { readonly row: OntologyRow; readonly showDigests: boolean }) {
  const mode = row.mode ?? 'none';
  const content = useMemo(() => (row.canonical_ontology === null ? null : readable(row.canonical_ontology)), [row.canonical_ontology]);
  return (
    <div className="stack" data-testid="ws-ontology">
      <h4>Ontology</h4>
      <dl className="record-fields">
        <div><dt>Mode</dt><dd><span className="badge" data-testid="ws-ontology-mode">{mode}</span> <span className="muted small">{MODE_TEXT[mode] ?? ''}</span></dd></div>
        {mode !== 'none' && (
          <div><dt>Classes · relations</dt><dd data-testid="ws-ontology-counts">{row.class_count} classes · {row.relation_count} relations</dd></div>
        )}
        <div><dt>Source format</dt><dd data-testid="ws-ontology-format">{row.source_format ?? '—'}</dd></div>
        <div><dt>Contract version</dt><dd data-testid="ws-ontology-version">{row.contract_version}</dd></div>
        {showDigests && (
          <div><dt>Canonical digest</dt><dd className="mono small" data-testid="ws-ontology-digest">{row.canonical_ontology_sha256 ?? 'none (no ontology)'}</dd></div>
        )}
      </dl>
      {content !== null && (
        <details>
          <summary>Canonical ontology</summary>
          <pre className="mono small" style={{ maxHeight: '24rem', overflow: 'auto' }} tabIndex={0} aria-label="Canonical ontology (JSON)" data-testid="ws-ontology-content">{content}</pre>
        </details>
      )}
    </div>
  );
}

function ConfigurationPart({ row, showDigests }: { readonly row: ConfigurationRow; readonly showDigests: boolean }) {
  const rows = useMemo(() => configurationRows(row), [row]);
  return (
    <div className="stack" data-testid="ws-configuration">
      <h4>Configuration <span className="muted small">contract version {row.contract_version}</span></h4>
      <table className="data-table">
        <caption className="sr-only">Configuration settings</caption>
        <thead>
          <tr><th scope="col">Group</th><th scope="col">Setting</th><th scope="col">Value</th></tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.group}.${r.setting}`} data-testid="ws-config-row">
              <td>{r.group}</td><td className="mono">{r.setting}</td><td className="mono">{r.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 1 && <p className="muted small">No capability or embedding settings.</p>}
      {showDigests && <p className="muted small">document <span className="mono" data-testid="ws-configuration-digest">{row.document_sha256 ?? '—'}</span></p>}
    </div>
  );
}
