import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../../../core/canonical/bounded-cache';

describe('BoundedCache', () => {
  it('holds at most max entries and forgets the oldest inserted first', () => {
    const c = new BoundedCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('a', 10); // an update keeps its place
    c.set('c', 3);
    expect(c.size).toBe(2);
    expect(c.has('a')).toBe(false);
    expect([c.get('b'), c.get('c')]).toEqual([2, 3]);
  });

  it('setNewest moves an entry to the end of the eviction order (least recently used out first)', () => {
    const c = new BoundedCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    c.setNewest('a', 1);
    c.set('c', 3);
    expect(c.has('a')).toBe(true);
    expect(c.has('b')).toBe(false);
    expect(c.size).toBe(2);
  });

  it('refuses a bound under one entry', () => {
    expect(() => new BoundedCache(0)).toThrow(RangeError);
  });
});
