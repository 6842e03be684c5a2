// Numbers and times as people read them, declared once for the renderer and
// the CLI: thousands separators, singular or plural by count, and every
// timestamp as local time with a relative form ("3 hours ago") beside the
// exact UTC microsecond value (shown on hover and written in exports).
// Browser-safe.
import { microsIso } from './time';

const COUNT = new Intl.NumberFormat('en-US');

/** A count with thousands separators ("12,345"). */
export function formatCount(n: number | bigint): string {
  return COUNT.format(n);
}

/** `one` for a count of 1, `many` otherwise ("1 generation", "2 generations"). */
export function plural(n: number | bigint, one: string, many: string): string {
  return n === 1 || n === 1n ? one : many;
}

/** Count and word together ("1 generation", "1,024 generations"). */
export function countOf(n: number | bigint, one: string, many: string): string {
  return `${formatCount(n)} ${plural(n, one, many)}`;
}

/** A timestamp three ways: local, relative to now, and the exact UTC value (microseconds). */
export interface ReadableTime {
  /** Local date and time ("Jan 1, 2024, 3:00:00 PM"), in the viewer's time zone and locale. */
  readonly local: string;
  /** Relative to now ("3 hours ago", "in 2 minutes", "just now"). */
  readonly relative: string;
  /** ISO-8601 UTC with exactly six fractional digits: what hover text and exports carry. */
  readonly exact: string;
}

/** How a surface renders times (tests pin the zone and locale; the app uses the viewer's). */
export interface TimeStyle {
  readonly locale?: string;
  readonly timeZone?: string;
}

const ISO_UTC = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The exact UTC microsecond text of an ISO-8601 timestamp (any offset, 0–9
 * fractional digits; digits past the sixth are dropped), or null when the
 * text is not one.
 */
export function exactUtc(iso: string): string | null {
  const m = ISO_UTC.exec(iso);
  if (m === null) return null;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(ms)) return null;
  const micros = BigInt(ms) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0').slice(0, 6));
  return microsIso(micros);
}

const UNITS: readonly (readonly [Intl.RelativeTimeFormatUnit, number])[] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];

/** "3 hours ago" / "in 2 minutes" / "just now" (under 45 seconds either way). */
export function relativeTime(thenMs: number, nowMs: number, locale = 'en-US'): string {
  const seconds = (thenMs - nowMs) / 1000;
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, size] of UNITS) {
    if (abs >= size * (unit === 'minute' ? 0.75 : 1)) return rtf.format(Math.sign(seconds) * Math.round(abs / size), unit);
  }
  return rtf.format(Math.sign(seconds) * Math.round(abs), 'second');
}

/**
 * A timestamp as people read it, from ISO-8601 text (the engine's microsecond
 * UTC form, or LangGraph's millisecond one); null when it is not a timestamp.
 */
export function readableTime(iso: string, now: Date, style: TimeStyle = {}): ReadableTime | null {
  const exact = exactUtc(iso);
  if (exact === null) return null;
  const ms = Date.parse(exact.slice(0, 23) + 'Z');
  const local = new Intl.DateTimeFormat(style.locale, { dateStyle: 'medium', timeStyle: 'medium', ...(style.timeZone === undefined ? {} : { timeZone: style.timeZone }) }).format(ms);
  return { local, relative: relativeTime(ms, now.getTime(), style.locale), exact };
}

/** The same, from integer UTC microseconds (receipts carry `committed_at` so). */
export function readableMicros(us: number | bigint, now: Date, style: TimeStyle = {}): ReadableTime {
  const t = readableTime(microsIso(BigInt(us)), now, style);
  if (t === null) throw new Error('invariant violated: microsIso is ISO-8601');
  return t;
}
