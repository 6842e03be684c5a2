// A hook for engine-paged results (Arrow, or JSON `{ rows, next_page_token }`): the pages fetched so far, the
// next-page token, and a `more()` that fetches exactly one more page.
//
// Rows are appended into one array per `key` (never copied per page), so the
// work per page is proportional to the page, not to every row loaded. The
// array's identity changes only on a restart; `count` changes on every page.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ArrowOperation, ArrowResult, SchemasOf } from '../core/contract/operations';
import { decodeArrow, type ScreenRow } from './arrow-rows';
import { showError, type ShownError } from './errors-text';
import { withOperation } from './hooks';
import type { PageLike } from './pages';

/** State of a paged result. */
export interface Paged<R> {
  readonly columns: readonly string[];
  /**
   * Every row loaded so far (append-only for the current key).
   *
   * The same array grows page by page; a new array means the result restarted.
   */
  readonly rows: readonly R[];
  /** Rows loaded so far (changes with every page, unlike `rows`' identity). */
  readonly count: number;
  readonly hasMore: boolean;
  readonly loading: boolean;
  readonly error: ShownError | null;
  readonly pages: number;
  /** True after `cancel()` stopped a page: nothing is shown until `retry()`. */
  readonly cancelled: boolean;
  more(): void;
  /**
   * Stops the page being fetched: its answer is dropped, every row shown so
   * far is cleared (no half result), and `operation.cancel` is sent for its
   * operation id so an engine call that takes one stops too.
   */
  cancel(): void;
  /** Starts over from the first page (after a cancel or an error). */
  retry(): void;
}

type PagedState = Omit<Paged<unknown>, 'more' | 'rows' | 'cancel' | 'retry'>;

/** Keeps the column list's identity across pages (column memos downstream stay valid). */
const sameColumns = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((c, i) => c === b[i]);

const IDLE: PagedState = { columns: [], count: 0, hasMore: false, loading: false, error: null, pages: 0, cancelled: false };

/**
 * Pages through `fetchPage(after, operationId)` (rows typed by `op`'s result schema); restarts whenever `key`
 * changes (null = idle). Each page gets a fresh operation id (a cancellable
 * operation passes it on). A stale response (for an older key, or one
 * cancelled) is dropped, never shown.
 */
export function usePaged<N extends ArrowOperation, S extends SchemasOf<N> = SchemasOf<N>>(
  op: N,
  key: string | null,
  fetchPage: (after: string | null, operationId: string) => Promise<ArrowResult>,
  schema?: S,
): Paged<ScreenRow<N, S>> {
  return usePagedRows<ArrowResult, ScreenRow<N, S>>(key, fetchPage, (page) => decodeArrow(page.bytes, op, schema));
}

/** A page as {@link usePagedRows} reads it: its next-page token, rows and columns. */
export interface PageRows<R> {
  readonly columns: readonly string[];
  readonly rows: readonly R[];
}

/** State of a paged result with its last page (JSON-paged operations carry a summary on every page). */
export interface PagedWithLast<P, R> extends Paged<R> {
  /** The newest page received for the current key (null before the first). */
  readonly last: P | null;
}

/**
 * The paging engine of {@link usePaged}, for any paged operation: Arrow pages
 * (decoded by `rowsOf`) or JSON pages (`{ rows, next_page_token }`, e.g.
 * `threads.list`, `threads.diff`). Same cancellation, staleness and append-only rows.
 */
export function usePagedRows<P extends PageLike, R>(
  key: string | null,
  fetchPage: (after: string | null, operationId: string) => Promise<P>,
  rowsOf: (page: P) => PageRows<R>,
): PagedWithLast<P, R> {
  const [state, setState] = useState<PagedState & { readonly last: P | null }>({ ...IDLE, last: null });
  const rows = useRef<R[]>([]);
  const token = useRef<string | null>(null);
  // The cancellation idiom of every renderer hook: one AbortController per
  // result (aborted by a new key, cancel(), retry() or unmount); an aborted
  // page's answer is dropped and its operation is told to stop (withOperation).
  const controller = useRef<AbortController | null>(null);
  const inFlight = useRef(false);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;
  const rowsOfRef = useRef(rowsOf);
  rowsOfRef.current = rowsOf;

  const stop = useCallback(() => {
    controller.current?.abort();
    controller.current = null;
    inFlight.current = false;
    rows.current = [];
  }, []);

  const load = useCallback((reset: boolean) => {
    if (inFlight.current && !reset) return;
    if (reset) stop();
    const c = controller.current ?? new AbortController();
    controller.current = c;
    inFlight.current = true;
    setState((s) => (reset ? { ...IDLE, loading: true, last: null } : { ...s, loading: true }));
    const after = reset ? null : token.current;
    withOperation(c.signal, (id) => fetchRef.current(after, id)).then(
      (page) => {
        if (c.signal.aborted) return;
        inFlight.current = false;
        token.current = page.next_page_token;
        const decoded = rowsOfRef.current(page);
        const target = rows.current;
        for (const r of decoded.rows) target.push(r);
        const count = target.length;
        setState((s) => ({ columns: sameColumns(s.columns, decoded.columns) ? s.columns : decoded.columns, count, hasMore: page.next_page_token !== null, loading: false, error: null, pages: s.pages + 1, cancelled: false, last: page }));
      },
      (e: unknown) => {
        if (c.signal.aborted) return;
        inFlight.current = false;
        setState((s) => ({ ...s, loading: false, hasMore: false, error: showError(e) }));
      },
    );
  }, [stop]);

  useEffect(() => {
    if (key === null) {
      stop();
      setState({ ...IDLE, last: null });
      return undefined;
    }
    load(true);
    return stop;
  }, [key, load, stop]);

  const more = useCallback(() => load(false), [load]);
  const cancel = useCallback(() => {
    if (!inFlight.current) return;
    stop();
    setState({ ...IDLE, cancelled: true, last: null });
  }, [stop]);
  const retry = useCallback(() => load(true), [load]);
  // Only the first `count` rows are published: a page appended after this
  // render's state (not yet committed) stays out of sight until its render.
  const all = rows.current;
  return { ...state, rows: all.length === state.count ? all : all.slice(0, state.count), more, cancel, retry };
}
