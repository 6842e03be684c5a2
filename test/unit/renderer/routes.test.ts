import { describe, expect, it } from 'vitest';
import { formatRoute, parseRoute, withParams } from '../../../renderer/routes';

describe('hash routes (deep links)', () => {
  it('a diff link keeps its endpoints and family through format → parse', () => {
    const route = { screen: 'diff', params: { from: 'Before curation', to: 'CURRENT', family: 'graph/nodes' } } as const;
    const hash = formatRoute(route);
    expect(hash).toBe('#/diff?from=Before+curation&to=CURRENT&family=graph%2Fnodes');
    expect(parseRoute(hash)).toEqual(route);
  });

  it('unknown screens and foreign hashes are not routes; unknown and empty parameters are dropped', () => {
    expect(parseRoute('')).toBeNull();
    expect(parseRoute('#token=abc')).toBeNull();
    expect(parseRoute('#/settings')).toBeNull();
    expect(parseRoute('#/ledgers?workflow=w-1&token=abc&x=')).toEqual({ screen: 'ledgers', params: { workflow: 'w-1' } });
    expect(formatRoute({ screen: 'history', params: { q: '', kind: 'revert', evil: '1' } })).toBe('#/history?kind=revert');
  });

  it('withParams changes and removes parameters without touching the others', () => {
    const r = withParams({ screen: 'checkpoint', params: { name: 'a', family: 'x/y' } }, { family: null, name: 'b' });
    expect(r).toEqual({ screen: 'checkpoint', params: { name: 'b' } });
  });
});
