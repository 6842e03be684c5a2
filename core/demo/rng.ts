import { formatUuid, sha256, uuidV8 } from '../canonical/index';

/**
 * Deterministic randomness and time for the demo workspace.
 *
 * Every byte of the demo is a pure function of (seed, step id, size): a
 * seeded PRNG per step (so adding a step never shifts earlier ones), UUIDs
 * derived from the seed, and a scripted clock instead of the wall clock.
 */
export interface Rng {
  /** Uniform integer in [0, 2^32). */
  u32(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Uniform float in [0, 1). */
  float(): number;
  /** A UUIDv8 from 16 PRNG bytes (version and variant bits set). */
  uuid(): string;
  /** The bytes `uuid()` would render, written into `out` at `offset` (the same four draws). */
  uuidInto(out: Uint8Array, offset: number): void;
}

/**
 * A UUIDv8 from four 32-bit words (`word(0)` … `word(3)`, each written big-endian), version and variant bits set, written into `out` at `at`.
 *
 * Why: the PRNG's UUIDs and the demo's computed node UUIDs lay out their bits the same way.
 */
export function uuidV8Into(out: Uint8Array, at: number, word: (i: number) => number): void {
  for (let i = 0; i < 4; i++) {
    const x = word(i);
    out[at + 4 * i] = x >>> 24;
    out[at + 4 * i + 1] = (x >>> 16) & 0xff;
    out[at + 4 * i + 2] = (x >>> 8) & 0xff;
    out[at + 4 * i + 3] = x & 0xff;
  }
  out[at + 6] = ((out[at + 6] as number) & 0x0f) | 0x80;
  out[at + 8] = ((out[at + 8] as number) & 0x3f) | 0x80;
}

/** A splitmix32-seeded xoshiro128** generator keyed by (seed, label). */
export function rngFor(seed: number, label: string): Rng {
  const d = sha256(new TextEncoder().encode(`checkpoint-studio-demo-rng/1|${seed}|${label}`));
  const v = new DataView(d.buffer, d.byteOffset, d.byteLength);
  let a = v.getUint32(0) | 1;
  let b = v.getUint32(4);
  let c = v.getUint32(8);
  let e = v.getUint32(12);
  const u32 = (): number => {
    const r = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    e ^= b;
    b ^= c;
    a ^= e;
    c ^= t;
    e = rotl(e, 11);
    return r;
  };
  const uuidInto = (out: Uint8Array, offset: number): void => uuidV8Into(out, offset, () => u32());
  const bytes = new Uint8Array(16);
  return {
    u32,
    int: (n) => Math.floor((u32() / 0x1_0000_0000) * n),
    float: () => u32() / 0x1_0000_0000,
    uuidInto,
    uuid: () => {
      uuidInto(bytes, 0);
      return formatUuid(bytes);
    },
  };
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** A UUID derived from the seed and a label: uuid_v8(SHA-256("checkpoint-studio-demo/1|seed|label")). */
export function demoUuid(seed: number, label: string): string {
  return uuidV8(sha256(new TextEncoder().encode(`checkpoint-studio-demo/1|${seed}|${label}`)));
}

/** The scripted clock: microseconds since the epoch, advanced only by the script. */
export interface DemoClock {
  /** The current instant (µs since the epoch). */
  now(): bigint;
  /** Moves time forward by `seconds`. */
  advance(seconds: number): void;
}

/** 2024-01-01T00:00:00Z, the demo's first instant. */
export const DEMO_EPOCH_US = 1_704_067_200_000_000n;

/** A clock that starts at `DEMO_EPOCH_US`. */
export function demoClock(): DemoClock {
  let t = DEMO_EPOCH_US;
  return {
    now: () => t,
    advance: (s) => {
      t += BigInt(Math.round(s)) * 1_000_000n;
    },
  };
}
