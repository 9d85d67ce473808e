/**
 * Fetches every page of a page-number list: page 1 first (it tells how many there are), then pages
 * 2..total_pages concurrently, then, while the last page read is full, the pages after it one at a
 * time (the platform's total may be under-reported; see PagePaginator.nextPage). Each request still goes through the key's rate budget inside the
 * client; `concurrency` only bounds how many pages of this one list are in flight, so one big list
 * does not queue ahead of every other stream. Rows come back raw, in page order; nothing here relies
 * on the order rows are served in (dedup and completeness are the caller's, by key).
 */
import pLimit from "p-limit";
import type { ErrorContext } from "../errors.js";
import { type Page, PagePaginator } from "./page-paginator.js";

/** Inputs of {@link fetchAllPages}. */
export interface FetchAllPagesOptions {
  /** Fetches one page; `signal` aborts when another page failed. */
  readonly fetchPage: (page: number, signal: AbortSignal) => Promise<Page>;
  /** Pages of this list in flight at once; pass the budget's `concurrency`. Default 4. */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  /** Account, stream, window: put on pagination errors. */
  readonly context?: ErrorContext;
}

/** Every row of every page, with what the platform said about them. */
export interface FetchAllPagesResult {
  /** Rows as served, page 1 first. */
  readonly rows: unknown[];
  /**
   * `pagination.total` of page 1: the caller compares it with the distinct keys it got (fewer: rows
   * were missed; more: the platform under-reported its total, and the pages past it were read).
   */
  readonly reportedTotal: number;
  /** Pages fetched. */
  readonly pages: number;
  /** The rows of each page, by page number (to tell which pages to fetch again). */
  readonly rowsByPage: ReadonlyMap<number, readonly unknown[]>;
  /** `pagination.per_page` of page 1. */
  readonly perPage: number;
  /** Oddities that did not stop paging (short pages, a total that moved while paging). */
  readonly anomalies: readonly string[];
}

/** Fetches all pages; throws the first failure (PaginationError, or whatever `fetchPage` threw) after the rest stop. */
export async function fetchAllPages(options: FetchAllPagesOptions): Promise<FetchAllPagesResult> {
  const paginator = new PagePaginator(options.context ?? {});
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  try {
    options.signal?.throwIfAborted();
    const first = await options.fetchPage(1, controller.signal);
    paginator.accept(1, first);
    const rowsByPage = new Map<number, readonly unknown[]>([[1, first.rows]]);
    const pending = paginator.pendingPages();
    const limit = pLimit(Math.max(1, Math.floor(options.concurrency ?? 4)));
    let failure: { error: unknown } | undefined;
    await Promise.all(
      pending.map((pageNumber) =>
        limit(async () => {
          if (failure !== undefined) return;
          try {
            const page = await options.fetchPage(pageNumber, controller.signal);
            if (failure !== undefined) return;
            paginator.accept(pageNumber, page);
            rowsByPage.set(pageNumber, page.rows);
          } catch (error) {
            if (failure === undefined) {
              failure = { error };
              controller.abort(error);
            }
          }
        }),
      ),
    );
    if (failure !== undefined) throw failure.error;
    // A list ends with a short or empty page, whatever its total said.
    for (let next = paginator.nextPage(); next !== null; next = paginator.nextPage()) {
      const page = await options.fetchPage(next, controller.signal);
      paginator.accept(next, page);
      rowsByPage.set(next, page.rows);
    }
    const rows: unknown[] = [];
    for (const pageNumber of [...rowsByPage.keys()].sort((a, b) => a - b)) {
      for (const row of rowsByPage.get(pageNumber) ?? []) rows.push(row);
    }
    const summary = paginator.summary();
    return {
      rows,
      reportedTotal: summary.reportedTotal,
      pages: summary.pagesFetched,
      rowsByPage,
      perPage: first.pagination.per_page,
      anomalies: summary.anomalies,
    };
  } finally {
    options.signal?.removeEventListener("abort", onOuterAbort);
  }
}
