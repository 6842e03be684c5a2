// The one microsecond timestamp formatter: the engine's results, the CLI and
// the UI all print UTC microseconds through it.

const US_PER_MS = 1000n;
const US_PER_S = 1_000_000n;

/**
 * ISO-8601 UTC with exactly six fractional digits, from integer microseconds.
 *
 * Floors toward negative infinity (−1 µs is `1969-12-31T23:59:59.999999Z`),
 * so the seconds and the fraction always describe the same instant.
 */
export function microsIso(us: bigint): string {
  const floorMs = us >= 0n ? us / US_PER_MS : -((-us + US_PER_MS - 1n) / US_PER_MS);
  const frac = (((us % US_PER_S) + US_PER_S) % US_PER_S).toString().padStart(6, '0');
  return `${new Date(Number(floorMs)).toISOString().slice(0, 19)}.${frac}Z`;
}

/** Same, from decimal microsecond text (how timestamps travel in JSON); null when it is not an integer. */
export function microsTextIso(text: string): string | null {
  if (!/^-?\d{1,19}$/.test(text)) return null;
  return microsIso(BigInt(text));
}
