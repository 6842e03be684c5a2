// Export of a whole record diff (every page, not only the loaded rows) as
// Arrow, CSV or JSON. Each row leads with what a reviewer reads: the change
// kind, the family's display fields, the changed field names and, for a
// modified record, each changed field's value before and after (an added or
// removed record: every field on its side); the ids and
// fingerprints come last. The engine gives all of it (display pages with
// `changed_values`, family by family, the families and their changed fields
// from `checkpoints.diff_stat`). On a large workspace this runs for seconds:
// it shows its progress and a Cancel button; Cancel stops the engine's call
// in flight (`operation.cancel` with the export's operation id) and writes no
// file.
import { useEffect, useRef, useState } from 'react';
import { RecordBatch, Schema, Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { csvHeader, csvLines } from '../../core/contract/csv';
import { changedFieldList, parseDisplay } from '../../core/contract/diff';
import type { DiffStatFamily } from '../../core/contract/diff';
import type { ArrowResult, DiffScope, Row } from '../../core/contract/operations';
import { decodeArrow } from '../arrow-rows';
import { ErrorBox } from '../components/error-box';
import { showError, type ShownError } from '../errors-text';
import { invoke } from '../invoke';

/** Records per engine page while exporting. */
export const EXPORT_PAGE = 5000;
/** Export formats. */
export const EXPORT_FORMATS = ['arrow', 'csv', 'json'] as const;
/** One export format. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Saves bytes as a browser download. */
export function download(name: string, type: string, body: BlobPart | readonly BlobPart[]): void {
  const url = URL.createObjectURL(new Blob(Array.isArray(body) ? [...(body as readonly BlobPart[])] : [body as BlobPart], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Concatenates IPC pages into one Arrow file (one schema, all batches). */
export function concatArrow(pages: readonly Uint8Array[]): Uint8Array {
  const tables = pages.map((p) => tableFromIPC(p));
  const schema = tables[0]?.schema;
  if (schema === undefined) return new Uint8Array();
  const batches = tables.flatMap((t) => t.batches.map((b) => new RecordBatch(schema, b.data)));
  return tableToIPC(batches.length === 0 ? new Table(schema) : new Table(schema, batches), 'file');
}

/** A values page row (`checkpoint_record_diff_values@1`): what each exported change is made from. */
export type ValuesRow = Row<'checkpoints.diff', 'checkpoint_record_diff_values@1'>;

/** The ids and fingerprints of an exported change: after its content. */
export const EXPORT_ID_COLUMNS = ['scope', 'record_uuid', 'record_identity_fingerprint', 'from_record_fingerprint', 'to_record_fingerprint'] as const;

/** The families an export walks (those with a changed record) and the columns of its rows. */
export interface ExportPlan {
  readonly families: readonly DiffStatFamily[];
  /** Display fields of every exported family, first seen first. */
  readonly display: readonly string[];
  /** Fields changed in some modified record of an exported family, first seen first. */
  readonly changed: readonly string[];
  /** Every column, content first: change, family, display fields, changed fields, before/after per changed field, then ids. */
  readonly columns: readonly string[];
}

const unique = (xs: readonly string[]): string[] => [...new Set(xs)];

/** The export plan of a diff's statistics (`checkpoints.diff_stat`). */
export function exportPlan(families: readonly DiffStatFamily[]): ExportPlan {
  const walked = families.filter((f) => f.added + f.removed + f.modified > 0);
  const display = unique(walked.flatMap((f) => f.display_fields));
  const changed = unique(walked.flatMap((f) => f.changed_cells.map((c) => c.field)));
  const columns = ['change_kind', 'record_family_id', ...display, 'changed_fields', ...changed.flatMap((f) => [`${f} before`, `${f} after`]), ...EXPORT_ID_COLUMNS];
  return { families: walked, display, changed, columns };
}

/** One exported change as CSV cells (column → text), content first. */
export function exportCells(plan: ExportPlan, r: ValuesRow): Record<string, string | null> {
  const display = parseDisplay(r.display);
  const changed = changedFieldList(r.changed_fields);
  const before = r.before === null ? {} : parseDisplay(r.before);
  const after = r.after === null ? {} : parseDisplay(r.after);
  const out: Record<string, string | null> = { change_kind: r.change_kind, record_family_id: r.record_family_id };
  for (const f of plan.display) out[f] = display[f] ?? null;
  out['changed_fields'] = changed.join(' ');
  // A modified record fills its changed fields; an added record every field after, a removed one every field before.
  const whole = r.change_kind !== 'modified';
  for (const f of plan.changed) {
    out[`${f} before`] = changed.includes(f) || whole ? (before[f] ?? null) : null;
    out[`${f} after`] = changed.includes(f) || whole ? (after[f] ?? null) : null;
  }
  for (const c of EXPORT_ID_COLUMNS) out[c] = r[c];
  return out;
}

/**
 * One exported change as a JSON object, content first: a modified record's
 * changed fields before and after; an added record's every field in `after`,
 * a removed record's in `before` (the other side null).
 */
export function exportObject(r: ValuesRow): object {
  return {
    change_kind: r.change_kind,
    record_family_id: r.record_family_id,
    display: parseDisplay(r.display),
    changed_fields: changedFieldList(r.changed_fields),
    before: r.before === null ? null : parseDisplay(r.before),
    after: r.after === null ? null : parseDisplay(r.after),
    ...Object.fromEntries(EXPORT_ID_COLUMNS.map((c) => [c, r[c]])),
  };
}

/** Column order of an Arrow export: the values page's columns, content first. */
const ARROW_ORDER = ['change_kind', 'record_family_id', 'display', 'changed_fields', 'before', 'after', ...EXPORT_ID_COLUMNS, 'from_checkpoint_uuid', 'to_checkpoint_uuid'] as const;

/** Values pages as one Arrow file, content columns first (no page tokens or page numbers in the file). */
export function contentFirstArrow(pages: readonly Uint8Array[]): Uint8Array {
  const all = tableFromIPC(concatArrow(pages));
  if (all.schema.fields.length === 0) return concatArrow(pages);
  const picked = all.selectAt(ARROW_ORDER.map((n) => all.schema.fields.findIndex((f) => f.name === n)));
  const schema = new Schema(picked.schema.fields);
  return tableToIPC(new Table(schema, picked.batches.map((b) => new RecordBatch(schema, b.data))), 'file');
}

interface Running {
  readonly id: string;
  readonly format: ExportFormat;
  readonly rows: number;
  readonly pages: number;
}

/** What to export: a compared pair, its scope, and optionally one record family of it. */
export interface ExportTarget {
  readonly project: string;
  readonly from: string;
  readonly to: string;
  readonly scope: DiffScope;
  /** Only this record family (the engine diffs that family alone); null = every family of the scope. */
  readonly family: string | null;
}

/** Export buttons for the whole record diff of `target`, with progress and Cancel while it runs. */
export function ExportAllRecords({ target, label, testId }: { target: ExportTarget; label: string; testId: string }) {
  const [running, setRunning] = useState<Running | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const run = useRef(0);
  const current = useRef<string | null>(null);
  // Leaving the screen stops an export still running.
  useEffect(
    () => () => {
      run.current++;
      if (current.current !== null) void invoke('operation.cancel', { operation_id: current.current }).catch(() => undefined);
    },
    [],
  );
  const formats = EXPORT_FORMATS;
  const base = `diff-records-${target.family ?? target.scope}`;

  const start = async (format: ExportFormat) => {
    const id = crypto.randomUUID();
    const mine = ++run.current;
    current.current = id;
    setNotice(null);
    setError(null);
    setRunning({ id, format, rows: 0, pages: 0 });
    const arrowPages: Uint8Array[] = [];
    const parts: string[] = [];
    let rows = 0;
    let pages = 0;
    try {
      // The families with changes and their changed fields (exact, from the engine): the file's columns.
      const stat = await invoke('checkpoints.diff_stat', {
        project: target.project,
        from: target.from,
        to: target.to,
        scope: target.scope,
        ...(target.family === null ? {} : { record_family_id: target.family }),
        operation_id: id,
      });
      if (mine !== run.current) return;
      const plan = exportPlan(stat.families);
      for (const family of plan.families) {
        let after: string | null = null;
        do {
          const page: ArrowResult = await invoke('checkpoints.diff', {
            project: target.project,
            from: target.from,
            to: target.to,
            // Record pages of a "summary" comparison are those of every scope.
            scope: target.scope === 'summary' ? 'all' : target.scope,
            detail: 'records',
            limit: EXPORT_PAGE,
            after,
            record_family_id: family.record_family_id,
            capability_id: family.capability_id,
            display: true,
            changed_values: true,
            operation_id: id,
          });
          if (mine !== run.current) return;
          pages++;
          if (format === 'arrow') {
            arrowPages.push(page.bytes);
            rows += tableFromIPC(page.bytes).numRows;
          } else {
            const kept = decodeArrow(page.bytes, 'checkpoints.diff', 'checkpoint_record_diff_values@1').rows;
            if (format === 'csv') parts.push(csvLines(plan.columns, kept.map((r) => exportCells(plan, r))));
            else if (kept.length > 0) parts.push(`${rows === 0 ? '' : ','}\n${kept.map((r) => JSON.stringify(exportObject(r))).join(',\n')}`);
            rows += kept.length;
          }
          setRunning({ id, format, rows, pages });
          after = page.next_page_token;
        } while (after !== null);
      }
      if (format === 'arrow') download(`${base}.arrow`, 'application/vnd.apache.arrow.file', contentFirstArrow(arrowPages) as Uint8Array<ArrayBuffer>);
      else if (format === 'csv') download(`${base}.csv`, 'text/csv', [csvHeader(plan.columns), ...parts]);
      else {
        const head = JSON.stringify({ from: target.from, to: target.to, scope: target.scope, family: target.family, display_fields: plan.display, changed_fields: plan.changed }).slice(0, -1);
        download(`${base}.json`, 'application/json', [`${head},"rows":[`, ...parts, '\n]}\n']);
      }
      setNotice(`Exported ${rows.toLocaleString('en-US')} record changes.`);
    } catch (e) {
      if (mine !== run.current) return;
      const shown = showError(e);
      if (shown.code === 'GF_CANCELLED') setNotice('Export cancelled. No file was written.');
      else setError(shown);
    } finally {
      if (mine === run.current) {
        current.current = null;
        setRunning(null);
      }
    }
  };

  const cancel = () => {
    const id = current.current;
    if (id === null) return;
    run.current++;
    current.current = null;
    setRunning(null);
    setNotice('Export cancelled. No file was written.');
    void invoke('operation.cancel', { operation_id: id }).catch(() => undefined);
  };

  return (
    <div className="stack" data-testid={testId}>
      <div className="actions" role="group" aria-label={label}>
        <span className="muted">{label}:</span>
        {formats.map((f) => (
          <button key={f} type="button" onClick={() => void start(f)} disabled={running !== null} data-testid={`${testId}-${f}`}>
            {f === 'arrow' ? 'Arrow' : f.toUpperCase()}
          </button>
        ))}
      </div>
      {running !== null && (
        <div className="progress" role="status" data-testid="export-progress">
          <progress aria-label="Export in progress" />
          <span>
            Exporting record changes ({running.format}): <span data-testid="export-rows">{running.rows.toLocaleString('en-US')}</span> so far, page {running.pages + 1}…
          </span>
          <button type="button" onClick={cancel} data-testid="export-cancel">Cancel</button>
        </div>
      )}
      {notice !== null && <p className="notice" role="status" data-testid="export-notice">{notice}</p>}
      {error !== null && <ErrorBox error={error} testId="export-error" />}
    </div>
  );
}
