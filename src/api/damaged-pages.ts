/**
 * Which pages of a page-number list look damaged, so that only they are fetched again instead of
 * the whole list: a page with fewer rows than its place in the list calls for (rows dropped from
 * its end), and a page that repeats a row of another page (rows shifted under the reader: it starts
 * with the previous page's last row and skips one). Pure.
 */

/** What page 1 said about the list. */
export interface ListShape {
  readonly total: number;
  readonly perPage: number;
}

/**
 * The numbers of the pages in `rowsByPage` that look damaged, ascending. `identity` gives a row's
 * key. Of two pages sharing a row, the later one is taken for damaged (a shifted page repeats the
 * previous page's last row); a page missing from `rowsByPage` is not reported (it was never read).
 */
export function damagedPages(
  rowsByPage: ReadonlyMap<number, readonly unknown[]>,
  shape: ListShape,
  identity: (row: unknown) => string,
): number[] {
  const damaged = new Set<number>();
  if (shape.perPage <= 0) return [];
  const lastPage = Math.ceil(shape.total / shape.perPage);
  const firstPageOf = new Map<string, number>();
  for (const page of [...rowsByPage.keys()].sort((a, b) => a - b)) {
    const rows = rowsByPage.get(page) ?? [];
    const expected =
      page < lastPage ? shape.perPage : page === lastPage ? shape.total - (lastPage - 1) * shape.perPage : 0;
    if (rows.length < expected) damaged.add(page);
    for (const row of rows) {
      const key = identity(row);
      const earlier = firstPageOf.get(key);
      if (earlier === undefined) firstPageOf.set(key, page);
      else if (earlier !== page) damaged.add(page);
    }
  }
  return [...damaged].sort((a, b) => a - b);
}
