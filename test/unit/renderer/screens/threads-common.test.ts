import { describe, expect, it } from 'vitest';
import { formatRoute, parseRoute } from '../../../../renderer/routes';
import { ageText, jsonLine, sourceKey, sourceOfParam, threadError } from '../../../../renderer/screens/threads-common';

describe('Agent threads screen helpers', () => {
  it('a threads link keeps its source (a SQLite path or the launch Postgres), thread and checkpoints through format → parse', () => {
    const route = { screen: 'threads', params: { source: '/data/agents/langgraph.sqlite', thread: 'review-09', checkpoint: '1f0c-a', from: '1f0c-a', to: 'HEAD' } } as const;
    const hash = formatRoute(route);
    expect(hash).toBe('#/threads?source=%2Fdata%2Fagents%2Flanggraph.sqlite&thread=review-09&checkpoint=1f0c-a&from=1f0c-a&to=HEAD');
    expect(parseRoute(hash)).toEqual(route);
    expect(sourceOfParam(parseRoute(hash)?.params['source'])).toEqual({ kind: 'sqlite', path: '/data/agents/langgraph.sqlite' });
    // The launch Postgres is named, never given by URL: a link cannot carry a connection string.
    expect(sourceOfParam('postgres')).toEqual({ kind: 'postgres' });
    expect(sourceOfParam(undefined)).toBeNull();
    expect(sourceKey({ kind: 'postgres' })).not.toBe(sourceKey({ kind: 'sqlite', path: 'postgres' }));
  });

  it('the last write age reads "never" before a write, then in words with plurals', () => {
    expect(ageText(null)).toBe('never');
    expect(ageText(0.2)).toBe('just now');
    expect(ageText(1)).toBe('1 second ago');
    expect(ageText(45)).toBe('45 seconds ago');
    expect(ageText(600)).toBe('10 minutes ago');
    expect(ageText(3 * 86_400)).toBe('3 days ago');
  });

  it('long JSON values are cut to one line; thread errors keep code and message and get a thread-specific next step', () => {
    expect(jsonLine({ a: 'x'.repeat(200) }, 20)).toHaveLength(20);
    expect(jsonLine([1, 2])).toBe('[1,2]');
    const shown = threadError({ code: 'GF_SCHEMA_MISMATCH', message: 'no LangGraph tables', action: 'generic' });
    expect(shown.code).toBe('GF_SCHEMA_MISMATCH');
    expect(shown.message).toBe('no LangGraph tables');
    expect(shown.action).toMatch(/LangGraph checkpoint tables/);
    expect(threadError({ code: 'GF_UNKNOWN_X', message: 'm', action: 'generic' }).action).toBe('generic');
  });
});
