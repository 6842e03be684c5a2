// The renderer's one way to do async work: a query (cancellable, stale answers
// dropped), an action (one run at a time, its error kept), `fetchAllPages`
// (the one "fetch every page" loop) and one cancellation idiom — an
// `AbortSignal` — shared with `usePaged` (renderer/paged.ts).
//
// Every async effect in a screen goes through these: a key change or an
// unmount aborts the work in flight, an aborted answer is never shown, and an
// engine operation that takes an operation id is told to stop as well.
import { useCallback, useEffect, useRef, useState } from 'react';
import { showError, type ShownError } from './errors-text';
import { invoke } from './invoke';

export { PagesAborted, fetchAllPages, type AllPagesOptions, type PageLike } from './pages';

/**
 * Runs `call` with a fresh operation id; when `signal` aborts first, sends
 * `operation.cancel` for that id so a cancellable engine call stops too.
 *
 * The one bridge between the renderer's cancellation idiom (an AbortSignal)
 * and the engine's (an operation id).
 */
export function withOperation<T>(signal: AbortSignal, call: (operationId: string) => Promise<T>): Promise<T> {
  const operationId = crypto.randomUUID();
  const onAbort = (): void => {
    void invoke('operation.cancel', { operation_id: operationId }).catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return call(operationId).finally(() => signal.removeEventListener('abort', onAbort));
}

/** State of a query. */
export interface Query<T> {
  /** The last answer for the current key (kept while `reload()` runs; cleared when the key changes). */
  readonly data: T | null;
  readonly error: ShownError | null;
  readonly loading: boolean;
  /** Fetches the current key again (the previous run is aborted; its answer dropped). */
  reload(): void;
  /** Aborts the run in flight (its answer is dropped; `data` stays). */
  cancel(): void;
}

interface QueryState<T> {
  readonly key: string | null;
  readonly data: T | null;
  readonly error: ShownError | null;
  readonly loading: boolean;
}

/**
 * Fetches `run(signal)` whenever `key` changes (null: idle, nothing fetched).
 *
 * A new key, `reload()`, `cancel()` or an unmount aborts the run in flight:
 * its answer — success or failure — is dropped, never shown, so a slow answer
 * for an old key can never overwrite a newer one.
 */
export function useQuery<T>(key: string | null, run: (signal: AbortSignal) => Promise<T>): Query<T> {
  const [state, setState] = useState<QueryState<T>>({ key: null, data: null, error: null, loading: false });
  const runRef = useRef(run);
  runRef.current = run;
  const controller = useRef<AbortController | null>(null);

  const start = useCallback((k: string, keepData: boolean) => {
    controller.current?.abort();
    const c = new AbortController();
    controller.current = c;
    setState((s) => ({ key: k, data: keepData && s.key === k ? s.data : null, error: null, loading: true }));
    runRef.current(c.signal).then(
      (data) => {
        if (c.signal.aborted) return;
        controller.current = null;
        setState({ key: k, data, error: null, loading: false });
      },
      (e: unknown) => {
        if (c.signal.aborted) return;
        controller.current = null;
        setState((s) => ({ key: k, data: s.key === k ? s.data : null, error: showError(e), loading: false }));
      },
    );
  }, []);

  const keyRef = useRef(key);
  keyRef.current = key;
  useEffect(() => {
    if (key === null) {
      setState({ key: null, data: null, error: null, loading: false });
      return undefined;
    }
    start(key, false);
    return () => {
      controller.current?.abort();
      controller.current = null;
    };
  }, [key, start]);

  const reload = useCallback(() => {
    if (keyRef.current !== null) start(keyRef.current, true);
  }, [start]);
  const cancel = useCallback(() => {
    controller.current?.abort();
    controller.current = null;
    setState((s) => ({ ...s, loading: false }));
  }, []);
  // Between a key change and its effect, the previous key's data is not shown.
  const current = state.key === key;
  return { data: current ? state.data : null, error: current ? state.error : null, loading: key !== null && (!current || state.loading), reload, cancel };
}

/** State of an action. */
export interface Action<A extends readonly unknown[], R> {
  /**
   * Runs the action unless a run is in flight (then returns undefined without
   * calling it: a double click runs it once). Resolves to its result, or to
   * undefined when it failed (the error is in `error`).
   */
  run(...args: A): Promise<R | undefined>;
  readonly busy: boolean;
  readonly error: ShownError | null;
  /** Clears the error. */
  clearError(): void;
}

/**
 * An action (a write, a verify…) with an in-flight lock and its error.
 *
 * The lock is taken synchronously, before any render, so two clicks in the
 * same frame still call `fn` once. After unmount nothing is set.
 */
export function useAction<A extends readonly unknown[], R>(fn: (...args: A) => Promise<R>): Action<A, R> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const locked = useRef(false);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(async (...args: A): Promise<R | undefined> => {
    if (locked.current) return undefined;
    locked.current = true;
    setBusy(true);
    setError(null);
    try {
      return await fnRef.current(...args);
    } catch (e) {
      if (mounted.current) setError(showError(e));
      return undefined;
    } finally {
      locked.current = false;
      if (mounted.current) setBusy(false);
    }
  }, []);
  const clearError = useCallback(() => setError(null), []);
  return { run, busy, error, clearError };
}
