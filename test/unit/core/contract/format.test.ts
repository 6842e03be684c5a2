// Times people read (core/contract/format.ts): local time in the viewer's zone,
// a relative form, and the exact UTC microsecond value for hover and exports.
import { describe, expect, it } from 'vitest';
import { exactUtc, formatCount, readableMicros, readableTime, relativeTime } from '../../../../core/contract/format';

const NOW = new Date(Date.UTC(2024, 0, 1, 17, 0, 0));
const UTC = { locale: 'en-US', timeZone: 'UTC' } as const;

describe('readableTime', () => {
  it('an engine timestamp: local time, "3 hours ago", and the exact microseconds kept', () => {
    expect(readableTime('2024-01-01T14:00:00.000123Z', NOW, UTC)).toEqual({ local: 'Jan 1, 2024, 2:00:00 PM', relative: '3 hours ago', exact: '2024-01-01T14:00:00.000123Z' });
    // Another zone moves the local text only.
    expect(readableTime('2024-01-01T14:00:00.000123Z', NOW, { locale: 'en-US', timeZone: 'Europe/Berlin' })?.local).toBe('Jan 1, 2024, 3:00:00 PM');
  });

  it("LangGraph's millisecond text and offsets become exact UTC microseconds; other text is not a time", () => {
    expect(exactUtc('2024-01-01T14:00:00.123Z')).toBe('2024-01-01T14:00:00.123000Z');
    expect(exactUtc('2024-01-01T16:00:00.5+02:00')).toBe('2024-01-01T14:00:00.500000Z');
    expect(exactUtc('2024-01-01T14:00:00.1234567Z')).toBe('2024-01-01T14:00:00.123456Z');
    expect(exactUtc('yesterday')).toBeNull();
    expect(readableTime('2024-13-45T99:00:00Z', NOW)).toBeNull();
  });

  it('relative forms either way, "just now" under 45 seconds', () => {
    const at = (s: number) => relativeTime(NOW.getTime() + s * 1000, NOW.getTime());
    expect(at(-10)).toBe('just now');
    expect(at(-90)).toBe('2 minutes ago');
    expect(at(-86_400)).toBe('yesterday');
    expect(at(-3 * 86_400)).toBe('3 days ago');
    expect(at(120)).toBe('in 2 minutes');
    expect(at(-400 * 86_400)).toBe('last year');
  });

  it('receipts carry integer microseconds', () => {
    expect(readableMicros(1_704_117_600_000_001, NOW, UTC)).toEqual({ local: 'Jan 1, 2024, 2:00:00 PM', relative: '3 hours ago', exact: '2024-01-01T14:00:00.000001Z' });
  });

  it('counts carry thousands separators', () => {
    expect(formatCount(120000)).toBe('120,000');
    expect(formatCount(4003n)).toBe('4,003');
  });
});
