// The renderer's one "fetch every page" loop. Tiny and dependency-free, so the
// boot chunk can use it as well as the screens.

/** A page of any paged operation: its next-page token. */
export interface PageLike {
  readonly next_page_token: string | null;
}

/** Options of `fetchAllPages`. */
export interface AllPagesOptions<P> {
  /** Upper bound on pages (a runaway token chain stops here). */
  readonly maxPages: number;
  /** Stops before the next page once aborted (the pages so far are dropped: a partial result is never shown). */
  readonly signal?: AbortSignal;
  /** Called with each page as it arrives (progress, incremental export). */
  readonly onPage?: (page: P, index: number) => void;
}

/** Thrown (and only thrown) when `signal` stopped the loop. */
export class PagesAborted extends Error {
  constructor() {
    super('paging stopped');
    this.name = 'PagesAborted';
  }
}

/**
 * Fetches every page of one paged operation, in order.
 *
 * `fetchPage(after)` asks for the page after a token (null: the first page).
 */
export async function fetchAllPages<P extends PageLike>(fetchPage: (after: string | null) => Promise<P>, options: AllPagesOptions<P>): Promise<P[]> {
  const pages: P[] = [];
  const check = (): void => {
    if (options.signal?.aborted === true) throw new PagesAborted();
  };
  let after: string | null = null;
  for (let i = 0; i < options.maxPages; i++) {
    check();
    const page: P = await fetchPage(after);
    check();
    pages.push(page);
    options.onPage?.(page, i);
    after = page.next_page_token;
    if (after === null) break;
  }
  return pages;
}
