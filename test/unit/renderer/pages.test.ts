import { describe, expect, it } from 'vitest';
import { PagesAborted, fetchAllPages } from '../../../renderer/pages';

/** A paged source of `total` items, `size` per page, tokens `p<offset>`. */
function source(total: number, size: number) {
  const asked: (string | null)[] = [];
  const fetchPage = async (after: string | null) => {
    asked.push(after);
    const start = after === null ? 0 : Number(after.slice(1));
    const items = Array.from({ length: Math.min(size, total - start) }, (_, i) => start + i);
    const next = start + size < total ? `p${start + size}` : null;
    return { items, next_page_token: next };
  };
  return { asked, fetchPage };
}

describe('fetchAllPages', () => {
  it('follows the tokens to the last page, in order', async () => {
    const s = source(7, 3);
    const pages = await fetchAllPages(s.fetchPage, { maxPages: 10 });
    expect(pages.flatMap((p) => p.items)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(s.asked).toEqual([null, 'p3', 'p6']);
  });

  it('stops at maxPages', async () => {
    const s = source(100, 1);
    expect(await fetchAllPages(s.fetchPage, { maxPages: 4 })).toHaveLength(4);
  });

  it('an abort stops before the next page and returns nothing partial', async () => {
    const s = source(10, 2);
    const c = new AbortController();
    const seen: number[] = [];
    const run = fetchAllPages(s.fetchPage, { maxPages: 10, signal: c.signal, onPage: (_p, i) => (seen.push(i), i === 1 ? c.abort() : undefined) });
    await expect(run).rejects.toBeInstanceOf(PagesAborted);
    expect(seen).toEqual([0, 1]);
    expect(s.asked).toEqual([null, 'p2']);
  });
});
