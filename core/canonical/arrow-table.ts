import { createHash, hash as oneShotHash } from 'node:crypto';
import type { Data, Schema, Table } from 'apache-arrow';
import { GfError, isGfError } from '../errors';
import { checkLimit, resolveLimits } from './arrow-limits';
import type { CanonicalLimits, CanonicalOptions } from './arrow-limits';
import { writeSchema } from './arrow-schema';
import { compileField } from './arrow-values';
import type { FieldEncoder, RowWriter } from './arrow-values';
import { ByteWriter } from './arrow-writer';
import { fingerprintHeader } from './fingerprint';
import type { DomainTag } from './fingerprint';
import { toHex } from './hash';

const GFT1 = Uint8Array.of(0x47, 0x46, 0x54, 0x31);

/**
 * Adds where it happened to a canonical error: the row for errors raised while
 * writing a row, the batch for errors raised while preparing a batch (UTF-8
 * validation, dictionary encoding), whose own `index` is chunk-relative.
 */
function located(e: unknown, where: Readonly<Record<string, number>>, options: CanonicalOptions | undefined): never {
  if (isGfError(e)) {
    const extra: Record<string, string | number> = { ...where };
    if (options?.domain !== undefined) extra.domain = options.domain;
    throw new GfError(e.code, e.message.slice(e.code.length + 2), { ...e.details, ...extra });
  }
  throw e;
}

/** Canonical schema bytes of `schema` (used as the constant table prefix); errors name the domain. */
function schemaBytes(schema: Schema, limits: CanonicalLimits, options: CanonicalOptions | undefined): Uint8Array {
  try {
    const w = new ByteWriter(limits.maxPayloadBytes, 256);
    writeSchema(w, schema, limits);
    return w.toBytes();
  } catch (e) {
    return located(e, {}, options);
  }
}

/**
 * Iterates the rows of a table as bound per-column writers, batch by batch.
 *
 * `visit(rowWriter, globalRow)` is called once per row; the caller writes the
 * row by calling `rowWriter(localIndex, w)` via the provided `writeRow`.
 */
function forEachRow(
  table: Table,
  limits: CanonicalLimits,
  options: CanonicalOptions | undefined,
  onRow: (writeRow: (w: ByteWriter) => void, row: number) => void,
): void {
  const fields = table.schema.fields;
  let encoders: FieldEncoder[];
  try {
    encoders = fields.map((f) => compileField(f, f.name, 1, limits));
  } catch (e) {
    located(e, {}, options);
  }
  let row = 0;
  let batchIndex = 0;
  for (const batch of table.batches) {
    const cols = batch.data.children as Data[];
    let writers: RowWriter[];
    try {
      writers = encoders.map((e, k) => e.bind(cols[k] as Data));
    } catch (e) {
      located(e, { batch: batchIndex }, options);
    }
    const n = writers.length;
    const len = batch.numRows;
    let local = 0;
    const writeRow = (w: ByteWriter): void => {
      for (let k = 0; k < n; k++) (writers[k] as RowWriter)(local, w);
    };
    try {
      for (local = 0; local < len; local++, row++) onRow(writeRow, row);
    } catch (e) {
      located(e, { row }, options);
    }
    batchIndex++;
  }
}

/**
 * Canonical table bytes (`GFT1`, schema, row count, rows in order).
 *
 * Batch boundaries, dictionary encoding, offset widths and buffer layout
 * never change the result; row order always does.
 */
export function canonicalTableBytes(table: Table, options?: CanonicalOptions): Uint8Array {
  const limits = resolveLimits(options);
  checkLimit('rows', table.numRows, limits.maxRows, 'table');
  const schema = schemaBytes(table.schema, limits, options);
  const w = new ByteWriter(limits.maxPayloadBytes, 64 * 1024);
  w.bytes(GFT1);
  w.u64(schema.length);
  w.bytes(schema);
  w.u64(table.numRows);
  forEachRow(table, limits, options, (writeRow) => writeRow(w));
  return w.toBytes();
}

/** Fingerprint of a whole table under `domain` (32 bytes). */
export function tableFingerprint(table: Table, domain: DomainTag, options?: CanonicalOptions): Uint8Array {
  const payload = canonicalTableBytes(table, { ...options, domain });
  const h = createHash('sha256');
  h.update(fingerprintHeader(domain, payload.length));
  h.update(payload);
  const d = h.digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

/** The per-row canonical value bytes of a table: row `r` is `bytes[offsets[r], offsets[r + 1])`. */
export interface RowBytes {
  readonly bytes: Uint8Array;
  readonly offsets: Float64Array;
}

/**
 * The canonical value bytes of every row (the table body, split by row).
 *
 * Concatenated they are exactly the part of `canonicalTableBytes` after the
 * row count.
 */
export function rowCanonicalBytes(table: Table, options?: CanonicalOptions): RowBytes {
  const limits = resolveLimits(options);
  checkLimit('rows', table.numRows, limits.maxRows, 'table');
  const w = new ByteWriter(limits.maxPayloadBytes, 64 * 1024);
  const offsets = new Float64Array(table.numRows + 1);
  forEachRow(table, limits, options, (writeRow, row) => {
    writeRow(w);
    offsets[row + 1] = w.pos;
  });
  return { bytes: w.buf.subarray(0, w.pos), offsets };
}

/**
 * Record fingerprints: for each row, the `domain` envelope over the canonical
 * table bytes of the one-row table holding that row (same schema).
 *
 * Returns `rowCount × 32` bytes. One scratch buffer holds the constant
 * prefix (envelope header, `GFT1`, schema, row count 1); each row is encoded
 * after it, its payload length patched in, and the contiguous preimage hashed
 * once — no per-row copy of the prefix, no per-cell allocation.
 */
export function recordFingerprints(table: Table, domain: DomainTag, options?: CanonicalOptions): Uint8Array {
  const limits = resolveLimits(options);
  checkLimit('rows', table.numRows, limits.maxRows, 'table');
  const schema = schemaBytes(table.schema, limits, { ...options, domain });
  const header = fingerprintHeader(domain, 0);
  const lengthAt = header.length - 8;
  const payloadPrefix = 4 + 8 + schema.length + 8;
  const w = new ByteWriter(limits.maxPayloadBytes + header.length, 64 * 1024);
  w.bytes(header);
  w.bytes(GFT1);
  w.u64(schema.length);
  w.bytes(schema);
  w.u64(1);
  const prefixEnd = w.pos;
  const out = new Uint8Array(table.numRows * 32);
  const maxPayload = limits.maxPayloadBytes;
  forEachRow(table, limits, { ...options, domain }, (writeRow, row) => {
    w.pos = prefixEnd;
    writeRow(w);
    const payloadLength = payloadPrefix + (w.pos - prefixEnd);
    if (payloadLength > maxPayload) checkLimit('payload_bytes', payloadLength, maxPayload, 'payload');
    w.patchU64(lengthAt, payloadLength);
    out.set(oneShotHash('sha256', w.buf.subarray(0, w.pos), 'buffer'), row * 32);
  });
  return out;
}

/** `recordFingerprints` as 64-hex strings (convenience for small tables and tests). */
export function recordFingerprintsHex(table: Table, domain: DomainTag, options?: CanonicalOptions): readonly string[] {
  const all = recordFingerprints(table, domain, options);
  const out: string[] = [];
  for (let r = 0; r < table.numRows; r++) out.push(toHex(all.subarray(r * 32, r * 32 + 32)));
  return out;
}
