/**
 * Fetches every page of a page-number list: page 1 first (it tells how many there are), then the
 * pages after it as the paginator hands them out, at most `concurrency` in flight, until the list
 * ends (its first empty page, or a short page at or past the last reported one; past an
 * under-reported total, one page at a time: see PagePaginator). Pages are asked for lazily: a
 * platform reporting millions of pages costs the requests up to its first empty page, and never a
 * list of its page numbers. Each request still goes through the key's rate budget inside the
 * client; `concurrency` only bounds how many pages of this one list are in flight, so one big list
 * does not queue ahead of every other stream. Rows come back raw, in page order; nothing here
 * relies on the order rows are served in (dedup and completeness are the caller's, by key).
 */
import type { ErrorContext } from "../core/errors.js";
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
  /** The list ended on an empty page right after a full one (see PaginationSummary.endedOnPageBoundary). */
  readonly endedOnPageBoundary: boolean;
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
    const rowsByPage = await readPages(paginator, options, controller);
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
      perPage: summary.perPage,
      endedOnPageBoundary: summary.endedOnPageBoundary,
      anomalies: summary.anomalies,
    };
  } finally {
    options.signal?.removeEventListener("abort", onOuterAbort);
  }
}

/**
 * Asks for the pages the paginator hands out, keeping up to `concurrency` in flight, until it has
 * none left and none is in flight. On the first failure the others are told to stop (the
 * controller aborts), their answers are awaited and ignored, and the failure is thrown.
 */
async function readPages(
  paginator: PagePaginator,
  options: FetchAllPagesOptions,
  controller: AbortController,
): Promise<Map<number, readonly unknown[]>> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
  const rowsByPage = new Map<number, readonly unknown[]>();
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown) => {
    if (failure !== undefined) return;
    failure = { error };
    controller.abort(error);
  };
  const read = async (pageNumber: number) => {
    try {
      const page = await options.fetchPage(pageNumber, controller.signal);
      if (failure !== undefined) return;
      paginator.accept(pageNumber, page);
      rowsByPage.set(pageNumber, page.rows);
    } catch (error) {
      fail(error);
    }
  };
  for (;;) {
    while (failure === undefined && inFlight.size < concurrency) {
      let pageNumber: number | null;
      try {
        pageNumber = paginator.claim();
      } catch (error) {
        fail(error);
        break;
      }
      if (pageNumber === null) break;
      const request = read(pageNumber).finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    if (inFlight.size === 0) break;
    await Promise.race(inFlight);
  }
  if (failure !== undefined) throw failure.error;
  return rowsByPage;
}
