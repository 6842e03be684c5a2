// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GfError } from '../../../core/contract/errors';
import { GF_BRIDGE_GLOBAL, okEnvelope, type GfBridgeApi } from '../../../core/contract/wire';
import { useAction, useQuery, withOperation, type Action } from '../../../renderer/hooks';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** A promise settled from the test. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Renders `useHook(props)` in a real React root; `current()` is the last value returned. */
function renderHook<P, R>(useHook: (props: P) => R, initial: P) {
  let last: R | undefined;
  function Probe({ p }: { p: P }) {
    last = useHook(p);
    return null;
  }
  const root: Root = createRoot(document.createElement('div'));
  act(() => root.render(createElement(Probe, { p: initial })));
  return {
    current: (): R => last as R,
    rerender: (p: P) => act(() => root.render(createElement(Probe, { p }))),
    unmount: () => act(() => root.unmount()),
  };
}

/** Operations sent through the transport (the preload door the renderer's `invoke` uses). */
let sent: { op: string; request: unknown }[] = [];
beforeEach(() => {
  sent = [];
  const api: GfBridgeApi = { invoke: (op, request) => (sent.push({ op, request }), Promise.resolve(okEnvelope({ cancelled: true }))) };
  (globalThis as Record<string, unknown>)[GF_BRIDGE_GLOBAL] = api;
});
afterEach(() => {
  delete (globalThis as Record<string, unknown>)[GF_BRIDGE_GLOBAL];
});

describe('useQuery', () => {
  it('drops a stale answer: the old key resolving after the new one never shows', async () => {
    const calls = new Map<string, ReturnType<typeof deferred<string>>>();
    const signals = new Map<string, AbortSignal>();
    const h = renderHook((key: string) => useQuery(key, (signal) => {
      signals.set(key, signal);
      const d = deferred<string>();
      calls.set(key, d);
      return d.promise;
    }), 'a' as string);
    expect(h.current().loading).toBe(true);
    h.rerender('b');
    expect(signals.get('a')?.aborted).toBe(true);
    await act(async () => calls.get('b')?.resolve('answer for b'));
    await act(async () => calls.get('a')?.resolve('answer for a'));
    expect(h.current().data).toBe('answer for b');
    expect(h.current().loading).toBe(false);
    h.unmount();
  });

  it('a stale failure is dropped too; a current one is shown with its code', async () => {
    const calls = new Map<string, ReturnType<typeof deferred<string>>>();
    const h = renderHook((key: string) => useQuery(key, () => {
      const d = deferred<string>();
      calls.set(key, d);
      return d.promise;
    }), 'a' as string);
    h.rerender('b');
    await act(async () => calls.get('a')?.reject(new GfError('GF_IO', 'disk gone', {})));
    expect(h.current().error).toBeNull();
    expect(h.current().loading).toBe(true);
    await act(async () => calls.get('b')?.reject(new GfError('GF_CHECKPOINT_NOT_FOUND', 'no checkpoint "x"', {})));
    expect(h.current().error?.code).toBe('GF_CHECKPOINT_NOT_FOUND');
    h.unmount();
  });

  it('unmount aborts the run in flight; reload keeps the data shown until the new answer', async () => {
    let signal: AbortSignal | null = null;
    let n = 0;
    const pending: ReturnType<typeof deferred<number>>[] = [];
    const h = renderHook((key: string | null) => useQuery(key, (s) => {
      signal = s;
      n++;
      const d = deferred<number>();
      pending.push(d);
      return d.promise;
    }), null as string | null);
    expect(n).toBe(0);
    expect(h.current().loading).toBe(false);
    h.rerender('k');
    await act(async () => pending[0]?.resolve(1));
    expect(h.current().data).toBe(1);
    act(() => h.current().reload());
    expect(h.current().data).toBe(1);
    expect(h.current().loading).toBe(true);
    const inFlight = signal as AbortSignal | null;
    h.unmount();
    expect(inFlight?.aborted).toBe(true);
  });
});

describe('useAction', () => {
  it('a double click runs the action once; the lock is released after it settles', async () => {
    let calls = 0;
    const gate = deferred<string>();
    const h = renderHook(() => useAction(async (x: number) => {
      calls++;
      return `${await gate.promise}:${x}`;
    }), undefined);
    let first: Promise<string | undefined> | undefined;
    let second: Promise<string | undefined> | undefined;
    act(() => {
      const a: Action<[number], string> = h.current();
      first = a.run(1);
      second = a.run(2);
    });
    expect(calls).toBe(1);
    expect(h.current().busy).toBe(true);
    await act(async () => gate.resolve('done'));
    expect(await first).toBe('done:1');
    expect(await second).toBeUndefined();
    expect(h.current().busy).toBe(false);
    let third: string | undefined;
    await act(async () => {
      third = await h.current().run(3);
    });
    expect(third).toBe('done:3');
    expect(calls).toBe(2);
    h.unmount();
  });

  it('keeps the error with its code and clears it on the next run', async () => {
    let fail = true;
    const h = renderHook(() => useAction(async () => {
      if (fail) throw new GfError('GF_WRITER_BUSY', 'another writer holds the workspace', {});
      return 'ok';
    }), undefined);
    await act(async () => {
      await h.current().run();
    });
    expect(h.current().error?.code).toBe('GF_WRITER_BUSY');
    fail = false;
    await act(async () => {
      await h.current().run();
    });
    expect(h.current().error).toBeNull();
    h.unmount();
  });
});

describe('withOperation (the AbortSignal ↔ operation id bridge)', () => {
  it('an abort sends operation.cancel for the id the call was given', async () => {
    const c = new AbortController();
    const gate = deferred<string>();
    let given = '';
    const p = withOperation(c.signal, (id) => {
      given = id;
      return gate.promise;
    });
    c.abort();
    gate.resolve('late');
    await p;
    expect(sent).toEqual([{ op: 'operation.cancel', request: { operation_id: given } }]);
  });

  it('no cancel is sent once the call has settled', async () => {
    const c = new AbortController();
    await withOperation(c.signal, () => Promise.resolve(1));
    c.abort();
    expect(sent).toEqual([]);
  });
});


