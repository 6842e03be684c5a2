import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { FixedSizeBinary, Float64, RecordBatchFileWriter, TimeUnit, Timestamp, Utf8, makeData } from 'apache-arrow';
import type { Data, Schema } from 'apache-arrow';
import { tableOfColumns } from '../participants/columns';

/** Rows produced per window while a column's bytes are written. */
export const STREAM_WINDOW_ROWS = 65_536;

/**
 * One column of a streamed participant, read twice from a deterministic source: once for sizes and nulls, once for its bytes.
 *
 * `uuid` copies 16 (or `width`) bytes per present row; `utf8`, `float64` and
 * `timestamp` give one cell per row (null for an absent cell).
 */
export type StreamColumn =
  | {
      readonly kind: 'uuid';
      /** Bytes a row: 16 (a UUID, the default) or 32 (a digest). */
      readonly width?: 16 | 32;
      /** True for a null row (its bytes stay zero, as `buildColumn` leaves them); absent: no nulls. */
      readonly isNull?: (row: number) => boolean;
      readonly fill: (row: number, out: Uint8Array, at: number) => void;
    }
  | { readonly kind: 'utf8'; readonly get: (row: number) => string | null }
  | { readonly kind: 'float64'; readonly get: (row: number) => number | null }
  | { readonly kind: 'timestamp'; readonly get: (row: number) => bigint | null };

/** What was written: the file's SHA-256 (hex) and length. */
export interface WrittenFile {
  readonly sha256: string;
  readonly byteLength: number;
}

/** Writes bytes to an fd through a fixed buffer, hashing them on the way. */
class HashingSink {
  readonly #fd: number;
  readonly #hash = createHash('sha256');
  readonly #buf = Buffer.allocUnsafe(1 << 20);
  #used = 0;
  written = 0;

  constructor(fd: number) {
    this.#fd = fd;
  }

  write(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(bytes.length - at, this.#buf.length - this.#used);
      this.#buf.set(bytes.subarray(at, at + n), this.#used);
      this.#used += n;
      at += n;
      if (this.#used === this.#buf.length) this.flush();
    }
    this.written += bytes.length;
  }

  flush(): void {
    const chunk = this.#buf.subarray(0, this.#used);
    this.#hash.update(chunk);
    let off = 0;
    while (off < chunk.length) off += fs.writeSync(this.#fd, chunk, off, chunk.length - off);
    this.#used = 0;
  }

  digest(): string {
    this.flush();
    return this.#hash.digest('hex');
  }
}

/** Bytes writer of one Arrow body buffer: writes exactly its byte length. */
type BufferProducer = (sink: HashingSink) => void;

const ENCODER = new TextEncoder();

/**
 * Zero-filled room for every placeholder buffer of one file, handed out as views.
 *
 * Why: the placeholders are read only for their lengths (and a string
 * column's last offset). One allocation for all of them is mapped fresh by
 * the allocator and its pages are never touched; separate ones of a few
 * MiB each may reuse freed heap memory, which is cleared page by page and
 * becomes resident (at 10M records, some 50 MB while the edges were written).
 */
class PlaceholderArena {
  readonly #buffer: ArrayBuffer;
  #at = 0;

  constructor(bytes: number) {
    this.#buffer = new ArrayBuffer(bytes);
  }

  /** Bytes a placeholder of `bytes` takes (8-byte aligned, as typed arrays of 8-byte elements need). */
  static size(bytes: number): number {
    return (bytes + 7) & ~7;
  }

  /** A view of `n` elements of `make`'s type over the next free room. */
  take<A>(make: (buffer: ArrayBuffer, byteOffset: number, length: number) => A, n: number, bytesPerElement: number): A {
    const view = make(this.#buffer, this.#at, n);
    this.#at += PlaceholderArena.size(n * bytesPerElement);
    return view;
  }
}

/** The validity bitmap of `n` rows, or undefined without nulls (the same bytes `buildColumn` gives). */
function validityOf(n: number, isNull: (r: number) => boolean): { nullCount: number; bitmap?: Uint8Array } {
  let nullCount = 0;
  let bitmap: Uint8Array | undefined;
  for (let r = 0; r < n; r++) {
    if (!isNull(r)) continue;
    if (bitmap === undefined) {
      bitmap = new Uint8Array(Math.ceil(n / 8)).fill(0xff);
      const tail = n & 7;
      if (tail !== 0) bitmap[bitmap.length - 1] = (1 << tail) - 1;
    }
    bitmap[r >> 3] = (bitmap[r >> 3] as number) & ~(1 << (r & 7));
    nullCount++;
  }
  return bitmap === undefined ? { nullCount } : { nullCount, bitmap };
}

/** Writes `size` bytes produced window by window: `fill(a, b, out)` writes rows [a, b) into `out` (`width` bytes a row). */
function windowed(n: number, width: number, rows: number, fill: (a: number, b: number, out: Uint8Array) => void): BufferProducer {
  return (sink) => {
    const out = new Uint8Array(Math.min(n, rows) * width);
    for (let a = 0; a < n; a += rows) {
      const b = Math.min(n, a + rows);
      const view = out.subarray(0, (b - a) * width);
      view.fill(0);
      fill(a, b, view);
      sink.write(view);
    }
  };
}

/** One column's placeholder `Data` (exact lengths and nulls; `need` bytes of the arena) and the producers of its body buffers, in Arrow's order. */
function plan(col: StreamColumn, n: number, rows: number): { need: number; data: (arena: PlaceholderArena) => Data; producers: BufferProducer[] } {
  const producers: BufferProducer[] = [];
  const validity = (isNull: (r: number) => boolean): { nullCount: number; nullBitmap?: Uint8Array } => {
    const v = validityOf(n, isNull);
    if (v.bitmap === undefined) {
      producers.push(() => undefined);
      return { nullCount: 0 };
    }
    const bitmap = v.bitmap;
    producers.push((sink) => sink.write(bitmap));
    return { nullCount: v.nullCount, nullBitmap: bitmap };
  };
  switch (col.kind) {
    case 'uuid': {
      const width = col.width ?? 16;
      const isNull = col.isNull;
      const valid = validity(isNull ?? (() => false));
      producers.push(
        windowed(n, width, rows, (a, b, out) => {
          for (let r = a; r < b; r++) if (isNull === undefined || !isNull(r)) col.fill(r, out, (r - a) * width);
        }),
      );
      return {
        need: PlaceholderArena.size(n * width),
        data: (arena) => makeData({ type: new FixedSizeBinary(width), data: arena.take((b, o, k) => new Uint8Array(b, o, k), n * width, 1), length: n, ...valid }),
        producers,
      };
    }
    case 'utf8': {
      // One pass for the nulls and the bytes (validity visits every row once, in order).
      let total = 0;
      const valid = validity((r) => {
        const v = col.get(r);
        if (v === null) return true;
        total += Buffer.byteLength(v, 'utf8');
        return false;
      });
      let running = 0;
      producers.push(
        windowed(n + 1, 4, rows, (a, b, out) => {
          const ints = new Int32Array(out.buffer, out.byteOffset, b - a);
          for (let r = a; r < b; r++) {
            if (r > 0) {
              const v = col.get(r - 1);
              if (v !== null) running += Buffer.byteLength(v, 'utf8');
            }
            ints[r - a] = running;
          }
        }),
      );
      producers.push((sink) => {
        for (let a = 0; a < n; a += rows) {
          const b = Math.min(n, a + rows);
          let text = '';
          for (let r = a; r < b; r++) text += col.get(r) ?? '';
          sink.write(ENCODER.encode(text));
        }
      });
      return {
        need: PlaceholderArena.size(4 * (n + 1)) + PlaceholderArena.size(total),
        data: (arena) => {
          const valueOffsets = arena.take((b, o, k) => new Int32Array(b, o, k), n + 1, 4);
          valueOffsets[n] = total;
          return makeData({ type: new Utf8(), data: arena.take((b, o, k) => new Uint8Array(b, o, k), total, 1), valueOffsets, length: n, ...valid });
        },
        producers,
      };
    }
    case 'float64': {
      const valid = validity((r) => col.get(r) === null);
      producers.push(
        windowed(n, 8, rows, (a, b, out) => {
          const f = new Float64Array(out.buffer, out.byteOffset, b - a);
          for (let r = a; r < b; r++) f[r - a] = col.get(r) ?? 0;
        }),
      );
      return {
        need: PlaceholderArena.size(8 * n),
        data: (arena) => makeData({ type: new Float64(), data: arena.take((b, o, k) => new Float64Array(b, o, k), n, 8), length: n, ...valid }),
        producers,
      };
    }
    case 'timestamp': {
      const valid = validity((r) => col.get(r) === null);
      producers.push(
        windowed(n, 8, rows, (a, b, out) => {
          const t = new BigInt64Array(out.buffer, out.byteOffset, b - a);
          for (let r = a; r < b; r++) t[r - a] = col.get(r) ?? 0n;
        }),
      );
      return {
        need: PlaceholderArena.size(8 * n),
        data: (arena) => makeData({ type: new Timestamp(TimeUnit.MICROSECOND, 'UTC'), data: arena.take((b, o, k) => new BigInt64Array(b, o, k), n, 8), length: n, ...valid }),
        producers,
      };
    }
  }
}

/** The writer internals this module drives (apache-arrow is pinned exactly; see package.json). */
interface WriterInternals {
  _started: boolean;
  _position: number;
  _write(chunk: ArrayBufferView): WriterInternals;
  _writeBodyBuffers(buffers: readonly ArrayBufferView[]): WriterInternals;
  _writePadding(n: number): WriterInternals;
  write(table: unknown): void;
  finish(): unknown;
}

/**
 * Writes one participant as a single-record-batch Arrow IPC file at `file`, streaming, and hashes it on the way.
 *
 * The bytes are exactly those of `tableToIPC(table, 'file')` for the same
 * cells: Apache Arrow's own file writer lays out the schema, the record
 * batch metadata and the footer from placeholder columns of the exact
 * lengths and null counts (a first pass over the source), and each body
 * buffer is then produced window by window from the source (a second pass)
 * straight into the file. Why: at 10M records a participant's whole bytes
 * (and the columns they are built from) would set the demo's peak memory.
 */
export function writeParticipantFile(file: string, schema: Schema, columns: readonly StreamColumn[], n: number, windowRows = STREAM_WINDOW_ROWS): WrittenFile {
  const plans = columns.map((c) => plan(c, n, windowRows));
  const producers = plans.flatMap((p) => p.producers);
  const arena = new PlaceholderArena(plans.reduce((sum, p) => sum + p.need, 0));
  const table = tableOfColumns(
    schema,
    plans.map((p) => p.data(arena)),
    n,
  );
  const fd = fs.openSync(file, 'wx');
  try {
    const sink = new HashingSink(fd);
    const writer = new RecordBatchFileWriter() as unknown as WriterInternals;
    writer._write = function (chunk) {
      if (this._started && chunk.byteLength > 0) {
        sink.write(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        this._position += chunk.byteLength;
      }
      return this;
    };
    writer._writeBodyBuffers = function (buffers) {
      if (buffers.length !== producers.length) throw new Error('invariant violated: streamed participant buffer count');
      buffers.forEach((buf, i) => {
        const size = buf.byteLength;
        if (size === 0) return;
        const before = sink.written;
        (producers[i] as BufferProducer)(sink);
        const wrote = sink.written - before;
        if (wrote > size) throw new Error('invariant violated: streamed participant buffer size');
        if (wrote < size) sink.write(new Uint8Array(size - wrote)); // the bitmap's padding to 8 bytes, as Arrow's copy has
        this._position += size;
        const padding = ((size + 7) & ~7) - size;
        if (padding > 0) this._writePadding(padding);
      });
      return this;
    };
    writer.write(table);
    writer.finish();
    const sha256 = sink.digest();
    fs.fsyncSync(fd);
    return { sha256, byteLength: sink.written };
  } finally {
    fs.closeSync(fd);
  }
}
