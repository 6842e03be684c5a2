// Arrow results as every surface carries them: IPC stream bytes, with the
// next-page token also inside the schema metadata (so `--arrow` bytes alone
// are complete).
import { RecordBatch, Schema, Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { NEXT_PAGE_TOKEN_KEY, type ArrowResult } from '../contract/operations';

/**
 * The stream bytes of a result table and its next-page token.
 *
 * Without a next page the bytes are exactly `tableToIPC(table, 'stream')`;
 * with one, the schema metadata also carries `gf.next_page_token`.
 */
export function arrowResult(table: Table, next: string | null): ArrowResult {
  if (next === null) return { kind: 'arrow', bytes: tableToIPC(table, 'stream'), next_page_token: null };
  const metadata = new Map(table.schema.metadata);
  metadata.set(NEXT_PAGE_TOKEN_KEY, next);
  const schema = new Schema(table.schema.fields, metadata, table.schema.dictionaries);
  const batches = table.batches.map((b) => new RecordBatch(schema, b.data));
  const withToken = batches.length === 0 ? new Table(schema) : new Table(schema, batches);
  return { kind: 'arrow', bytes: tableToIPC(withToken, 'stream'), next_page_token: next };
}

/** Same, from IPC stream bytes a module already produced. */
export function arrowResultFromBytes(bytes: Uint8Array, next: string | null): ArrowResult {
  if (next === null) return { kind: 'arrow', bytes, next_page_token: null };
  return arrowResult(tableFromIPC(bytes), next);
}

/** The next-page token carried in Arrow bytes' schema metadata (null when none). */
export function nextPageTokenOf(bytes: Uint8Array): string | null {
  return tableFromIPC(bytes).schema.metadata.get(NEXT_PAGE_TOKEN_KEY) ?? null;
}
