/**
 * Page-number pagination as a state machine without I/O: it is told which page was asked for and
 * what came back, says which pages are still to fetch, and refuses answers that cannot be right
 * (the same rows twice, a wrong `current_page`, more rows than `per_page`): cf. meltano singer_sdk
 * pagination "Loop detected". Softer oddities (short pages, a total that moves) are recorded as
 * anomalies for the caller's completeness check.
 *
 * The platform's `total` is not trusted to end the list: a list ends only when the last page read
 * is short (fewer rows than `per_page`) or empty. When the last reported page is full, the pages
 * after it are read one at a time ({@link PagePaginator.nextPage}), at most
 * {@link MAX_PAGES_PAST_TOTAL} of them; a platform still serving full pages then contradicts its
 * own total beyond repair, and the list fails (a total lowered from 228 to 100 used to end the
 * list after one full page, 128 rows lost).
 */
import { createHash } from "node:crypto";
import { type ErrorContext, SliceError } from "../errors.js";
import type { Pagination } from "../platform/common.js";

/** One page as the stream extracted it from a response body. */
export interface Page {
  readonly rows: readonly unknown[];
  readonly pagination: Pagination;
}

/** The platform's pages cannot be trusted for this slice (loop, overrun, malformed pagination). */
export class PaginationError extends SliceError {}

/** What a finished (or abandoned) pagination saw. */
export interface PaginationSummary {
  /** `pagination.total` of page 1. */
  readonly reportedTotal: number;
  /** `pagination.total_pages` of page 1. */
  readonly totalPages: number;
  readonly pagesFetched: number;
  readonly rowCount: number;
  /** Human-readable oddities that did not stop paging (short pages, a moving total). */
  readonly anomalies: readonly string[];
}

/** A page count far beyond what total/per_page allows is garbage, not a reason to issue requests. */
const MAX_EXTRA_PAGES = 10;

/**
 * Pages read past the last page the platform reported, while each comes back full, before the
 * list is failed: an under-reported total of up to this many pages of rows is read to its end.
 */
export const MAX_PAGES_PAST_TOTAL = 10;

/** State machine of one page-number pagination: accept page 1, then pages 2..total_pages in any order. */
export class PagePaginator {
  readonly #context: ErrorContext;
  readonly #label: string;
  #first: Pagination | undefined;
  readonly #accepted = new Set<number>();
  /** Fingerprint of a non-empty page's rows → the page it came on. */
  readonly #fingerprints = new Map<string, number>();
  readonly #anomalies: string[] = [];
  #rowCount = 0;
  /** Rows of the highest page accepted so far, and its number. */
  #highest = { page: 0, rows: 0 };

  /** `context` (account, stream, window) goes on every PaginationError; `label` prefixes its message. */
  constructor(context: ErrorContext = {}, label?: string) {
    this.#context = context;
    this.#label = label ?? defaultLabel(context);
  }

  /** True once page 1 and every page up to `total_pages` were accepted and the last of them was short or empty. */
  get done(): boolean {
    return this.pendingPages().length === 0 && this.#continuation() === null;
  }

  /**
   * Once every reported page is in: the page to read next because the last page read was full
   * (the list may go on past the reported total), or null when the list has ended (its last page
   * short or empty). Throws a PaginationError when {@link MAX_PAGES_PAST_TOTAL} full pages past
   * the reported last page did not end it.
   */
  nextPage(): number | null {
    if (this.pendingPages().length > 0) return null;
    const next = this.#continuation();
    if (next === null || next <= this.#lastReported() + MAX_PAGES_PAST_TOTAL) return next;
    const first = this.#first!;
    throw this.#error(
      `the platform reported total ${first.total} in ${first.total_pages} page(s) of ${first.per_page}, ` +
        `but pages 1..${this.#highest.page} are all full (${this.#rowCount} rows) and the list does not end; ` +
        `read up to ${MAX_PAGES_PAST_TOTAL} pages past its total, the platform contradicts itself`,
      this.#highest.page,
    );
  }

  /** Pages still to fetch: `[1]` before page 1, then the pages of 2..total_pages not accepted yet. */
  pendingPages(): number[] {
    if (this.#first === undefined) return [1];
    const pending: number[] = [];
    for (let page = 2; page <= this.#first.total_pages; page++) {
      if (!this.#accepted.has(page)) pending.push(page);
    }
    return pending;
  }

  /** Takes the answer to a request for `requestedPage`; throws PaginationError when it cannot be right. */
  accept(requestedPage: number, page: Page): void {
    const p = page.pagination;
    this.#checkShape(requestedPage, p);
    if (this.#first === undefined) {
      if (requestedPage !== 1) throw new Error(`page 1 must be accepted first, got page ${requestedPage}`);
      this.#checkFirst(p);
      this.#first = p;
    } else {
      const continues = requestedPage > this.#lastReported() && requestedPage === this.#continuation();
      if (requestedPage < 2 || (requestedPage > this.#first.total_pages && !continues)) {
        throw new Error(`page ${requestedPage} is outside 2..${this.#first.total_pages}`);
      }
      if (this.#accepted.has(requestedPage)) throw new Error(`page ${requestedPage} was already accepted`);
      if (p.total !== this.#first.total || p.total_pages !== this.#first.total_pages) {
        this.#anomalies.push(
          `page ${requestedPage} reports total ${p.total} in ${p.total_pages} pages; page 1 said ${this.#first.total} in ${this.#first.total_pages}`,
        );
      }
    }
    if (p.current_page !== requestedPage) {
      throw this.#error(
        `loop detected: asked for page ${requestedPage}, the platform answered current_page ${p.current_page}`,
        requestedPage,
      );
    }
    if (page.rows.length > p.per_page) {
      throw this.#error(
        `page ${requestedPage} has ${page.rows.length} rows, more than per_page ${p.per_page}`,
        requestedPage,
      );
    }
    if (page.rows.length > 0) {
      const fingerprint = fingerprintRows(page.rows);
      const seenOn = this.#fingerprints.get(fingerprint);
      if (seenOn !== undefined) {
        throw this.#error(
          `loop detected: page ${requestedPage} has the same rows as page ${seenOn}`,
          requestedPage,
        );
      }
      this.#fingerprints.set(fingerprint, requestedPage);
    }
    this.#rowCount += page.rows.length;
    if (requestedPage > this.#lastReported() && page.rows.length > 0) {
      this.#anomalies.push(
        `page ${requestedPage}, past the last reported page ${this.#lastReported()}, has ${page.rows.length} rows`,
      );
    }
    this.#noteShortPage(requestedPage, page.rows.length);
    this.#accepted.add(requestedPage);
    if (requestedPage > this.#highest.page) this.#highest = { page: requestedPage, rows: page.rows.length };
  }

  /** Totals and anomalies so far. */
  summary(): PaginationSummary {
    return {
      reportedTotal: this.#first?.total ?? 0,
      totalPages: this.#first?.total_pages ?? 0,
      pagesFetched: this.#accepted.size,
      rowCount: this.#rowCount,
      anomalies: [...this.#anomalies],
    };
  }

  /** The last page the platform's page 1 reported (1 for an empty list). */
  #lastReported(): number {
    return Math.max(1, this.#first?.total_pages ?? 1);
  }

  /** The page after the highest one read when that one was full (the list may go on), else null. */
  #continuation(): number | null {
    const first = this.#first;
    if (first === undefined || this.#highest.page < this.#lastReported()) return null;
    return this.#highest.rows >= first.per_page ? this.#highest.page + 1 : null;
  }

  #checkShape(requestedPage: number, p: Pagination): void {
    const fields = [p.current_page, p.per_page, p.total, p.total_pages];
    if (!fields.every((value) => Number.isInteger(value) && value >= 0) || p.per_page < 1) {
      throw this.#error(`malformed pagination on page ${requestedPage}: ${JSON.stringify(p)}`, requestedPage);
    }
  }

  #checkFirst(p: Pagination): void {
    const needed = Math.ceil(p.total / p.per_page);
    if (p.total_pages < needed) {
      throw this.#error(
        `inconsistent pagination: ${p.total} rows of ${p.per_page} per page need ${needed} pages, the platform reports ${p.total_pages}`,
        1,
      );
    }
    if (p.total_pages > needed + MAX_EXTRA_PAGES) {
      throw this.#error(
        `inconsistent pagination: ${p.total_pages} pages reported for ${p.total} rows of ${p.per_page} per page`,
        1,
      );
    }
    if (p.total_pages > Math.max(1, needed)) {
      this.#anomalies.push(`${p.total_pages} pages reported where ${needed} suffice for ${p.total} rows`);
    }
  }

  /** A page short of per_page before the last one, or a last page of the wrong size, means rows moved. */
  #noteShortPage(requestedPage: number, rows: number): void {
    const reference = this.#first;
    if (reference === undefined) return;
    const lastNeeded = Math.ceil(reference.total / reference.per_page);
    const expected =
      requestedPage < lastNeeded
        ? reference.per_page
        : requestedPage === lastNeeded
          ? reference.total - (lastNeeded - 1) * reference.per_page
          : 0;
    if (rows < expected) {
      this.#anomalies.push(`page ${requestedPage} has ${rows} rows, ${expected} expected`);
    }
  }

  #error(message: string, page: number): PaginationError {
    return new PaginationError(`${this.#label}${message}`, { ...this.#context, page });
  }
}

/** Stable fingerprint of a page's rows (order included: the same rows reshuffled are a different page). */
export function fingerprintRows(rows: readonly unknown[]): string {
  return createHash("sha1").update(JSON.stringify(rows)).digest("hex");
}

function defaultLabel(context: ErrorContext): string {
  const parts = [
    context.account === undefined ? undefined : `account ${context.account}`,
    context.stream === undefined ? undefined : `stream ${context.stream}`,
    context.window === undefined ? undefined : `window ${context.window}`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? "" : `${parts.join(", ")}: `;
}
