// Export of a whole record diff (every page, not only the loaded rows) as
// Arrow, CSV or JSON. On a large workspace this runs for seconds: it shows
// its progress and a Cancel button; Cancel stops the engine's page in flight
// (`operation.cancel` with the export's operation id) and writes no file.
import { useEffect, useRef, useState } from 'react';
import { RecordBatch, Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import type { ArrowResult, DiffScope } from '../../core/contract/operations';
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

const csvCell = (v: string | null | undefined): string => (v === null || v === undefined ? '' : /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** Rows as CSV lines (no header). */
export function csvLines(columns: readonly string[], rows: readonly Readonly<Record<string, string | null>>[]): string {
  let out = '';
  for (const r of rows) out += `${columns.map((c) => csvCell(r[c])).join(',')}\n`;
  return out;
}

/** Rows as CSV text (header first). */
export function toCsv(columns: readonly string[], rows: readonly Readonly<Record<string, string | null>>[]): string {
  return `${columns.join(',')}\n${csvLines(columns, rows)}`;
}

/** Concatenates IPC pages into one Arrow file (one schema, all batches). */
export function concatArrow(pages: readonly Uint8Array[]): Uint8Array {
  const tables = pages.map((p) => tableFromIPC(p));
  const schema = tables[0]?.schema;
  if (schema === undefined) return new Uint8Array();
  const batches = tables.flatMap((t) => t.batches.map((b) => new RecordBatch(schema, b.data)));
  return tableToIPC(batches.length === 0 ? new Table(schema) : new Table(schema, batches), 'file');
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
    let columns: readonly string[] | null = null;
    let rows = 0;
    try {
      let after: string | null = null;
      for (let pages = 1; ; pages++) {
        const page: ArrowResult = await invoke('checkpoints.diff', {
          project: target.project,
          from: target.from,
          to: target.to,
          scope: target.scope,
          detail: 'records',
          limit: EXPORT_PAGE,
          after,
          ...(target.family === null ? {} : { record_family_id: target.family }),
          operation_id: id,
        });
        if (mine !== run.current) return;
        if (format === 'arrow') {
          arrowPages.push(page.bytes);
          rows += tableFromIPC(page.bytes).numRows;
        } else {
          const decoded = decodeArrow(page.bytes, 'checkpoints.diff', 'checkpoint_record_diff@1');
          columns ??= decoded.columns;
          const kept = decoded.rows;
          rows += kept.length;
          if (format === 'csv') parts.push(csvLines(columns, kept));
          else if (kept.length > 0) parts.push(`${rows === kept.length ? '' : ','}\n${kept.map((r) => JSON.stringify(r)).join(',\n')}`);
        }
        setRunning({ id, format, rows, pages });
        after = page.next_page_token;
        if (after === null) break;
      }
      if (format === 'arrow') download(`${base}.arrow`, 'application/vnd.apache.arrow.file', concatArrow(arrowPages) as Uint8Array<ArrayBuffer>);
      else if (format === 'csv') download(`${base}.csv`, 'text/csv', [`${(columns ?? []).join(',')}\n`, ...parts]);
      else {
        const head = JSON.stringify({ from: target.from, to: target.to, scope: target.scope, family: target.family }).slice(0, -1);
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
