import { hash as oneShotHash } from 'node:crypto';
import { Schema } from 'apache-arrow';
import type { Data, Field } from 'apache-arrow';
import { fingerprintHeader, resolveLimits } from '../canonical/index';
import type { DomainTag } from '../canonical/index';
import { checkLimit } from '../canonical/arrow-limits';
import { writeSchema } from '../canonical/arrow-schema';
import { compileField } from '../canonical/arrow-values';
import type { FieldEncoder, RowWriter } from '../canonical/arrow-values';
import { ByteWriter } from '../canonical/arrow-writer';

const GFT1 = Uint8Array.of(0x47, 0x46, 0x54, 0x31);

/**
 * Record fingerprints of chosen rows of one batch, byte-identical to
 * `recordFingerprints` of the canonical module for those rows.
 *
 * The diff hashes only rows that changed, so it cannot afford the
 * whole-table function; this one builds the constant preimage prefix
 * (envelope header, `GFT1`, schema bytes, row count 1) once and encodes
 * each requested row after it. A unit test pins it to `recordFingerprints`.
 */
export class RowFingerprinter {
  readonly #w: ByteWriter;
  readonly #prefixEnd: number;
  readonly #lengthAt: number;
  readonly #payloadPrefix: number;
  readonly #maxPayload: number;
  readonly #encoders: readonly FieldEncoder[];
  readonly #columns: readonly Data[];
  readonly #window: number;
  readonly #bound = new Map<number, readonly RowWriter[]>();

  /**
   * @param fields the fingerprinted fields (a whole schema, or an identity projection of it)
   * @param metadata the schema metadata of the fingerprinted schema
   * @param columns one `Data` chunk per field, same order, one batch
   * @param window rows per lazily bound window: binding validates a window's
   *   cells (e.g. UTF-8) once, so a page that hashes a few rows of a large
   *   participant never walks the whole column
   */
  constructor(fields: readonly Field[], metadata: ReadonlyMap<string, string>, columns: readonly Data[], domain: DomainTag, window = 4096) {
    const limits = resolveLimits();
    const schema = new Schema([...fields], new Map(metadata));
    const sw = new ByteWriter(limits.maxPayloadBytes, 256);
    writeSchema(sw, schema, limits);
    const schemaBytes = sw.toBytes();
    const header = fingerprintHeader(domain, 0);
    this.#lengthAt = header.length - 8;
    this.#payloadPrefix = 4 + 8 + schemaBytes.length + 8;
    this.#maxPayload = limits.maxPayloadBytes;
    const w = new ByteWriter(limits.maxPayloadBytes + header.length, 4096);
    w.bytes(header);
    w.bytes(GFT1);
    w.u64(schemaBytes.length);
    w.bytes(schemaBytes);
    w.u64(1);
    this.#prefixEnd = w.pos;
    this.#w = w;
    this.#encoders = fields.map((f) => compileField(f, f.name, 1, limits));
    this.#columns = columns;
    this.#window = window;
  }

  /** The writers of the window holding `row`, bound on first use. */
  #writersFor(win: number): readonly RowWriter[] {
    let ws = this.#bound.get(win);
    if (ws === undefined) {
      const start = win * this.#window;
      ws = this.#encoders.map((e, k) => {
        const col = this.#columns[k] as Data;
        const n = Math.min(this.#window, col.length - start);
        return e.bind(start === 0 && n === col.length ? col : col.slice(start, n));
      });
      this.#bound.set(win, ws);
    }
    return ws;
  }

  /** The fingerprint of row `row` written into `out` at `at` (32 bytes). */
  into(row: number, out: Uint8Array, at: number): void {
    const w = this.#w;
    w.pos = this.#prefixEnd;
    const win = Math.floor(row / this.#window);
    const local = row - win * this.#window;
    for (const write of this.#writersFor(win)) write(local, w);
    const payloadLength = this.#payloadPrefix + (w.pos - this.#prefixEnd);
    if (payloadLength > this.#maxPayload) checkLimit('payload_bytes', payloadLength, this.#maxPayload, 'payload');
    w.patchU64(this.#lengthAt, payloadLength);
    out.set(oneShotHash('sha256', w.buf.subarray(0, w.pos), 'buffer'), at);
  }

  /** The fingerprint of row `row` (32 fresh bytes). */
  of(row: number): Uint8Array {
    const out = new Uint8Array(32);
    this.into(row, out, 0);
    return out;
  }
}
