import { describe, expect, it } from 'vitest';
import { perSecond, summarize } from '../../../bench/harness';

describe('bench harness', () => {
  it('summarizes runs as median, min and max', () => {
    expect(summarize('x', 'rows/s', [5, 1, 3])).toEqual({ id: 'x', unit: 'rows/s', median: 3, min: 1, max: 5, runs: 3 });
    expect(summarize('x', 'ms', [4, 1, 3, 2]).median).toBe(2.5);
  });

  it('converts counts and milliseconds to a rate', () => {
    expect(perSecond(500, 250)).toBe(2000);
  });
});
