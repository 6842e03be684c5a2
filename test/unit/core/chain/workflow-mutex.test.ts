import { describe, expect, it } from 'vitest';
import { WorkflowMutex } from '../../../../core/chain/workflow-mutex';

/** A promise with its resolver, to hold a critical section open until the test says so. */
function gate(): { readonly promise: Promise<void>; readonly open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}

describe('WorkflowMutex', () => {
  it('run and runInternal serialise one key in call order and let other keys through', async () => {
    const m = new WorkflowMutex();
    const log: string[] = [];
    const g = gate();
    const a = m.run('k', async () => {
      log.push('a:start');
      await g.promise;
      log.push('a:end');
    });
    const b = m.runInternal('k', async () => {
      log.push('b');
    });
    const c = m.runInternal('other', async () => {
      log.push('c');
    });
    await c;
    expect(log).toEqual(['a:start', 'c']);
    g.open();
    await Promise.all([a, b]);
    expect(log).toEqual(['a:start', 'c', 'a:end', 'b']);
  });

  it('runInternal does not mark its context as holding the key; run does, and is re-entrant', async () => {
    const m = new WorkflowMutex();
    expect(await m.runInternal('k', async () => m.holds('k'))).toBe(false);
    const inner = await m.run('k', async () => {
      expect(m.holds('k')).toBe(true);
      // Re-entrant: inside run, both forms run at once instead of waiting for themselves.
      return Promise.all([m.run('k', async () => 'run'), m.runInternal('k', async () => 'internal')]);
    });
    expect(inner).toEqual(['run', 'internal']);
  });

  it('a failing holder releases the key', async () => {
    const m = new WorkflowMutex();
    await expect(m.runInternal('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await m.runInternal('k', async () => 'next')).toBe('next');
  });
});
