// Arrow IPC pages → plain display rows. The renderer never holds more than
// the pages it has fetched; each page is decoded once into strings.
import { DataType, tableFromIPC, type Table } from 'apache-arrow';

/** One decoded row: column name → display text (null stays null). */
export type DisplayRow = Readonly<Record<string, string | null>>;

/** A decoded Arrow page: column names, rows and the next-page token. */
export interface DecodedPage {
  readonly columns: readonly string[];
  readonly rows: readonly DisplayRow[];
  readonly schemaName: string | null;
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** Lowercase canonical UUID text of 16 bytes. */
export function uuidText(b: Uint8Array): string {
  const h = hex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function cellText(type: DataType, v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (DataType.isFixedSizeBinary(type) && v instanceof Uint8Array) return type.byteWidth === 16 ? uuidText(v) : hex(v);
  if (DataType.isTimestamp(type)) {
    const ms = typeof v === 'bigint' ? Number(v / 1000n) : Number(v);
    return Number.isFinite(ms) ? new Date(ms).toISOString() : String(v);
  }
  if (v instanceof Uint8Array) return hex(v);
  if (typeof v === 'object') {
    try {
      return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
    } catch {
      return String(v);
    }
  }
  return String(v);
}

/** Decodes a table into display rows (column-wise, no row proxies). */
export function tableRows(table: Table): DecodedPage {
  const fields = table.schema.fields;
  const columns = fields.map((f) => f.name);
  const n = table.numRows;
  const out: Record<string, string | null>[] = Array.from({ length: n }, () => ({}));
  fields.forEach((f, i) => {
    const vec = table.getChildAt(i);
    if (vec === null) return;
    for (let r = 0; r < n; r++) out[r]![f.name] = cellText(f.type, vec.get(r));
  });
  return { columns, rows: out, schemaName: table.schema.metadata.get('graphforge.contract.result_schema') ?? null };
}

/** Decodes Arrow IPC stream bytes into display rows. */
export function decodeArrow(bytes: Uint8Array): DecodedPage {
  return tableRows(tableFromIPC(bytes));
}
