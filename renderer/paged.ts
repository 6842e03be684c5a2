// A hook for engine-paged Arrow results: the pages fetched so far, the
// next-page token, and a `more()` that fetches exactly one more page.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ArrowResult } from '../core/api/contract';
import { decodeArrow, type DisplayRow } from './arrow-rows';
import { showError, type ShownError } from './errors-text';

/** State of a paged result. */
export interface Paged {
  readonly columns: readonly string[];
  readonly rows: readonly DisplayRow[];
  readonly hasMore: boolean;
  readonly loading: boolean;
  readonly error: ShownError | null;
  readonly pages: number;
  more(): void;
}

/**
 * Pages through `fetchPage(after)`; restarts whenever `key` changes (null = idle).
 * A stale response (for an older key) is dropped, never shown.
 */
export function usePaged(key: string | null, fetchPage: (after: string | null) => Promise<ArrowResult>, filter?: (r: DisplayRow) => boolean): Paged {
  const [state, setState] = useState<Omit<Paged, 'more'>>({ columns: [], rows: [], hasMore: false, loading: false, error: null, pages: 0 });
  const token = useRef<string | null>(null);
  const generation = useRef(0);
  const inFlight = useRef(false);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;
  const filterRef = useRef(filter);
  filterRef.current = filter;

  const load = useCallback((reset: boolean) => {
    if (inFlight.current && !reset) return;
    const gen = reset ? ++generation.current : generation.current;
    inFlight.current = true;
    setState((s) => (reset ? { columns: [], rows: [], hasMore: false, loading: true, error: null, pages: 0 } : { ...s, loading: true }));
    const after = reset ? null : token.current;
    fetchRef.current(after).then(
      (page) => {
        if (gen !== generation.current) return;
        inFlight.current = false;
        token.current = page.next_page_token;
        const decoded = decodeArrow(page.bytes);
        const f = filterRef.current;
        const rows = f === undefined ? decoded.rows : decoded.rows.filter(f);
        setState((s) => ({ columns: decoded.columns, rows: [...s.rows, ...rows], hasMore: page.next_page_token !== null, loading: false, error: null, pages: s.pages + 1 }));
      },
      (e: unknown) => {
        if (gen !== generation.current) return;
        inFlight.current = false;
        setState((s) => ({ ...s, loading: false, hasMore: false, error: showError(e) }));
      },
    );
  }, []);

  useEffect(() => {
    if (key === null) {
      generation.current++;
      inFlight.current = false;
      setState({ columns: [], rows: [], hasMore: false, loading: false, error: null, pages: 0 });
      return;
    }
    load(true);
  }, [key, load]);

  const more = useCallback(() => load(false), [load]);
  return { ...state, more };
}
