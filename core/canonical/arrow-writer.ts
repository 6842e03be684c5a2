import { checkLimit } from './arrow-limits';

const TWO_32 = 4294967296;

/**
 * Growable big-endian byte writer for canonical payloads.
 *
 * One allocation per doubling; the payload limit is checked before every
 * growth, so an oversized payload fails before memory is taken.
 */
export class ByteWriter {
  buf: Uint8Array;
  private dv: DataView;
  pos = 0;
  readonly maxBytes: number;

  constructor(maxBytes: number, initialCapacity = 4096) {
    this.maxBytes = maxBytes;
    this.buf = new Uint8Array(Math.min(initialCapacity, Math.max(maxBytes, 16)));
    this.dv = new DataView(this.buf.buffer);
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need > this.buf.length) this.grow(need);
  }

  private grow(need: number): void {
    checkLimit('payload_bytes', need, this.maxBytes, 'payload');
    const cap = Math.min(Math.max(need, this.buf.length * 2), this.maxBytes);
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.dv = new DataView(next.buffer);
  }

  u8(v: number): void {
    if (this.pos + 1 > this.buf.length) this.grow(this.pos + 1);
    this.buf[this.pos++] = v;
  }

  u16(v: number): void {
    this.ensure(2);
    this.dv.setUint16(this.pos, v);
    this.pos += 2;
  }

  u32(v: number): void {
    this.ensure(4);
    this.dv.setUint32(this.pos, v);
    this.pos += 4;
  }

  i32(v: number): void {
    this.ensure(4);
    this.dv.setInt32(this.pos, v);
    this.pos += 4;
  }

  /** Unsigned 64-bit big-endian from a non-negative safe integer. */
  u64(v: number): void {
    this.ensure(8);
    this.dv.setUint32(this.pos, Math.floor(v / TWO_32));
    this.dv.setUint32(this.pos + 4, v >>> 0);
    this.pos += 8;
  }

  /** Signed 64-bit big-endian. */
  i64(v: bigint): void {
    this.ensure(8);
    this.dv.setBigInt64(this.pos, v);
    this.pos += 8;
  }

  /** Overwrites a u64 at `at` (for lengths known only after writing). */
  patchU64(at: number, v: number): void {
    this.dv.setUint32(at, Math.floor(v / TWO_32));
    this.dv.setUint32(at + 4, v >>> 0);
  }

  /** Copies `src[start, end)`. */
  copy(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.ensure(n);
    const buf = this.buf;
    let p = this.pos;
    if (n < 48) {
      for (let k = start; k < end; k++) buf[p++] = src[k] as number;
    } else {
      buf.set(src.subarray(start, end), p);
      p += n;
    }
    this.pos = p;
  }

  /** Copies `width` bytes of `src` from `start` in reverse order (little- to big-endian). */
  copyReversed(src: Uint8Array, start: number, width: number): void {
    this.ensure(width);
    const buf = this.buf;
    const p = this.pos;
    for (let k = 0; k < width; k++) buf[p + k] = src[start + width - 1 - k] as number;
    this.pos = p + width;
  }

  /** Appends raw bytes. */
  bytes(b: Uint8Array): void {
    this.copy(b, 0, b.length);
  }

  /** The written bytes (a copy, safe to keep). */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}
