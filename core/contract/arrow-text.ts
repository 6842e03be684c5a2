// How Arrow cells read as text on every surface (the CLI's formats and the
// renderer's rows): UUIDs canonical lowercase, digests lowercase hex,
// timestamps exact UTC microseconds. Browser-safe (apache-arrow only).
import { TimeUnit } from 'apache-arrow';

/** Two lowercase hex digits per byte value. */
export const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lowercase hex of `b[from..to)`. */
export function hexRange(b: Uint8Array, from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += HEX_BYTE[b[i]!];
  return s;
}

/** Lowercase hex of all bytes. */
export function hexText(b: Uint8Array): string {
  return hexRange(b, 0, b.length);
}

/** Lowercase canonical UUID text of 16 bytes. */
export function uuidText(b: Uint8Array): string {
  return `${hexRange(b, 0, 4)}-${hexRange(b, 4, 6)}-${hexRange(b, 6, 8)}-${hexRange(b, 8, 10)}-${hexRange(b, 10, 16)}`;
}

/** A fixed-size binary cell as text: UUID form for 16 bytes, hex otherwise. */
export function fixedBinaryText(b: Uint8Array, byteWidth: number): string {
  return byteWidth === 16 ? uuidText(b) : hexText(b);
}

/** A raw 64-bit Arrow timestamp in integer microseconds (exact for s, ms and µs; ns truncates toward zero). */
export function timestampMicros(raw: bigint, unit: TimeUnit): bigint {
  switch (unit) {
    case TimeUnit.SECOND:
      return raw * 1_000_000n;
    case TimeUnit.MILLISECOND:
      return raw * 1000n;
    case TimeUnit.MICROSECOND:
      return raw;
    default:
      return raw / 1000n;
  }
}
