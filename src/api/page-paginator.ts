/**
 * Page-number pagination as a state machine without I/O: it says which page to ask for next, is
 * told what came back, and refuses answers that cannot be right (the same rows twice, a wrong
 * `current_page`, more rows than `per_page`, a `total_pages` that contradicts `total`): cf.
 * meltano singer_sdk pagination "Loop detected". Softer oddities (short pages, a total that
 * moves) are recorded as anomalies for the caller's completeness check.
 *
 * Pages are planned lazily, one {@link PagePaginator.claim} at a time, never as a list of
 * `total_pages` entries: a platform reporting 10 million pages used to make the loader build 10
 * million pending requests after one answer (heap exhausted). The pages it may ask for are bounded
 * by page 1's `total` / `per_page` (a `total_pages` beyond that by more than
 * {@link MAX_EXTRA_PAGES} is a damaged answer), plus at most {@link MAX_PAGES_PAST_TOTAL} past the
 * last reported page.
 *
 * The platform's `total` is not trusted to end the list either: a list ends on the first empty
 * page, or on a short page (fewer rows than `per_page`) at or past the last reported page. When
 * the last reported page is full, the pages after it are read one at a time; a platform still
 * serving full pages {@link MAX_PAGES_PAST_TOTAL} pages later contradicts its own total beyond
 * repair, and the list fails (a total lowered from 228 to 100 used to end the list after one full
 * page, 128 rows lost).
 */
import { createHash } from "node:crypto";
import type { Pagination } from "@telecom-etl/platform/common.js";
import { type ErrorContext, SliceError } from "../core/errors.js";

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
  /** `pagination.per_page` of page 1. */
  readonly perPage: number;
  readonly pagesFetched: number;
  readonly rowCount: number;
  /**
   * The list ended on an empty page right after a full one: its rows are an exact multiple of
   * `per_page`, so nothing in its pages tells a true end from a platform that stopped serving at
   * a page boundary (the caller asks again with another `per_page`).
   */
  readonly endedOnPageBoundary: boolean;
  /** Human-readable oddities that did not stop paging (short pages, a moving total). */
  readonly anomalies: readonly string[];
}

/** A page count far beyond what total/per_page allows is garbage, not a reason to issue requests. */
export const MAX_EXTRA_PAGES = 10;

/**
 * Pages read past the last page the platform reported, while each comes back full, before the
 * list is failed: an under-reported total of up to this many pages of rows is read to its end.
 */
export const MAX_PAGES_PAST_TOTAL = 10;

/** What the paginator can say about the next request: a page to ask for, wait for answers in flight, or the end. */
type Next = number | "wait" | "end";

/** State machine of one page-number pagination: page 1, then pages 2, 3, … claimed in order, accepted in any order. */
export class PagePaginator {
  readonly #context: ErrorContext;
  readonly #label: string;
  #first: Pagination | undefined;
  /** Pages 1..#claimed were handed out by {@link claim}. */
  #claimed = 0;
  /** Rows of each accepted page (bounded by the pages actually read, never by `total_pages`). */
  readonly #rowsOf = new Map<number, number>();
  /** Fingerprint of a non-empty page's rows → the page it came on. */
  readonly #fingerprints = new Map<string, number>();
  readonly #anomalies: string[] = [];
  #rowCount = 0;
  /** The lowest page that ended the list (empty, or short at or past the last reported page). */
  #end: number | undefined;

  /** `context` (account, stream, window) goes on every PaginationError; `label` prefixes its message. */
  constructor(context: ErrorContext = {}, label?: string) {
    this.#context = context;
    this.#label = label ?? defaultLabel(context);
  }

  /** True once the list has ended and every page handed out was accepted. */
  get done(): boolean {
    return this.#next() === "end";
  }

  /**
   * The next page to ask for, or null when none may be asked for now (the list ended, or the next
   * step depends on answers still in flight). Pages up to the last reported one are handed out in
   * order, as fast as the caller asks; past it, one at a time after a full page. Throws a
   * PaginationError when {@link MAX_PAGES_PAST_TOTAL} full pages past the reported last page did
   * not end the list.
   */
  claim(): number | null {
    const next = this.#next();
    if (typeof next !== "number") return null;
    if (next > this.#lastReported() + MAX_PAGES_PAST_TOTAL) {
      const first = this.#first!;
      const highest = next - 1;
      throw this.#error(
        `the platform reported total ${first.total} in ${first.total_pages} page(s) of ${first.per_page}, ` +
          `but pages 1..${highest} are all full (${this.#rowCount} rows) and the list does not end; ` +
          `read up to ${MAX_PAGES_PAST_TOTAL} pages past its total, the platform contradicts itself`,
        highest,
      );
    }
    this.#claimed = next;
    return next;
  }

  /** Takes the answer to a request for `requestedPage` (claimed before); throws PaginationError when it cannot be right. */
  accept(requestedPage: number, page: Page): void {
    if (requestedPage < 1 || requestedPage > this.#claimed) {
      throw new Error(`page ${requestedPage} was not asked for (pages 1..${this.#claimed} were)`);
    }
    if (this.#rowsOf.has(requestedPage)) throw new Error(`page ${requestedPage} was already accepted`);
    if (this.#first === undefined && requestedPage !== 1) {
      throw new Error(`page 1 must be accepted first, got page ${requestedPage}`);
    }
    const p = page.pagination;
    this.#checkShape(requestedPage, p);
    this.#checkPageCount(requestedPage, p);
    if (this.#first === undefined) {
      this.#first = p;
    } else if (p.total !== this.#first.total || p.total_pages !== this.#first.total_pages) {
      this.#anomalies.push(
        `page ${requestedPage} reports total ${p.total} in ${p.total_pages} pages; page 1 said ${this.#first.total} in ${this.#first.total_pages}`,
      );
    }
    this.#checkRows(requestedPage, page.rows, p.per_page);
    this.#rowCount += page.rows.length;
    this.#noteOddities(requestedPage, page.rows.length);
    this.#rowsOf.set(requestedPage, page.rows.length);
    if (
      this.#ends(requestedPage, page.rows.length) &&
      (this.#end === undefined || requestedPage < this.#end)
    ) {
      this.#end = requestedPage;
    }
  }

  /** Totals and anomalies so far. */
  summary(): PaginationSummary {
    const end = this.#end;
    const perPage = this.#first?.per_page ?? 0;
    return {
      reportedTotal: this.#first?.total ?? 0,
      totalPages: this.#first?.total_pages ?? 0,
      perPage,
      pagesFetched: this.#rowsOf.size,
      rowCount: this.#rowCount,
      endedOnPageBoundary:
        end !== undefined && end >= 2 && this.#rowsOf.get(end) === 0 && this.#rowsOf.get(end - 1) === perPage,
      anomalies: [...this.#anomalies],
    };
  }

  #next(): Next {
    const first = this.#first;
    const inFlight = this.#claimed - this.#rowsOf.size;
    if (first === undefined) return this.#claimed === 0 ? 1 : "wait";
    if (this.#end !== undefined) return inFlight > 0 ? "wait" : "end";
    const candidate = this.#claimed + 1;
    if (candidate <= this.#lastReported()) return candidate;
    // Past the reported pages: only after every page before is in, the last of them full (a short
    // or empty one would have ended the list).
    return inFlight > 0 ? "wait" : candidate;
  }

  /** The last page the platform's page 1 reported (1 for an empty list). */
  #lastReported(): number {
    return Math.max(1, this.#first?.total_pages ?? 1);
  }

  /**
   * Whether a page of `rows` rows ends the list: an empty page anywhere (the platform has nothing
   * after it), a short one at or past the last reported page. A short page before it does not:
   * it is a damaged page (rows dropped from its end) with more pages after it.
   */
  #ends(page: number, rows: number): boolean {
    return rows === 0 || (page >= this.#lastReported() && rows < this.#first!.per_page);
  }

  #checkShape(requestedPage: number, p: Pagination): void {
    const fields = [p.current_page, p.per_page, p.total, p.total_pages];
    if (!fields.every((value) => Number.isInteger(value) && value >= 0) || p.per_page < 1) {
      throw this.#error(`malformed pagination on page ${requestedPage}: ${JSON.stringify(p)}`, requestedPage);
    }
    if (p.current_page !== requestedPage) {
      throw this.#error(
        `loop detected: asked for page ${requestedPage}, the platform answered current_page ${p.current_page}`,
        requestedPage,
      );
    }
  }

  /** A `total_pages` that `total` / `per_page` cannot give is a damaged answer, on any page. */
  #checkPageCount(requestedPage: number, p: Pagination): void {
    const needed = Math.ceil(p.total / p.per_page);
    if (p.total_pages < needed) {
      throw this.#error(
        `inconsistent pagination: ${p.total} rows of ${p.per_page} per page need ${needed} pages, the platform reports ${p.total_pages}`,
        requestedPage,
      );
    }
    if (p.total_pages > needed + MAX_EXTRA_PAGES) {
      throw this.#error(
        `inconsistent pagination: ${p.total_pages} pages reported for ${p.total} rows of ${p.per_page} per page`,
        requestedPage,
      );
    }
    if (requestedPage === 1 && p.total_pages > Math.max(1, needed)) {
      this.#anomalies.push(`${p.total_pages} pages reported where ${needed} suffice for ${p.total} rows`);
    }
  }

  #checkRows(requestedPage: number, rows: readonly unknown[], perPage: number): void {
    if (rows.length > perPage) {
      throw this.#error(
        `page ${requestedPage} has ${rows.length} rows, more than per_page ${perPage}`,
        requestedPage,
      );
    }
    if (rows.length === 0) return;
    const fingerprint = fingerprintRows(rows);
    const seenOn = this.#fingerprints.get(fingerprint);
    if (seenOn !== undefined) {
      throw this.#error(
        `loop detected: page ${requestedPage} has the same rows as page ${seenOn}`,
        requestedPage,
      );
    }
    this.#fingerprints.set(fingerprint, requestedPage);
  }

  /**
   * Rows past the reported last page or after the page that ended the list, a page short of
   * per_page before the last one, or a last page of the wrong size: rows moved while paging.
   */
  #noteOddities(requestedPage: number, rows: number): void {
    const reference = this.#first!;
    if (requestedPage > this.#lastReported() && rows > 0) {
      this.#anomalies.push(
        `page ${requestedPage}, past the last reported page ${this.#lastReported()}, has ${rows} rows`,
      );
    }
    if (this.#end !== undefined && requestedPage > this.#end && rows > 0) {
      this.#anomalies.push(`page ${requestedPage} has ${rows} rows after page ${this.#end} ended the list`);
    }
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

/**
 * Stable fingerprint of a page's rows: its length and its first, middle and last rows (order
 * included: the same rows reshuffled are a different page). A page is a slice of one ordered list,
 * so two pages alike in these hold the same rows; hashing every row's JSON cost the loader 3% of
 * its CPU (issue 33).
 */
export function fingerprintRows(rows: readonly unknown[]): string {
  const sample = [rows.length, rows[0], rows[rows.length >> 1], rows[rows.length - 1]];
  return createHash("sha1").update(JSON.stringify(sample)).digest("hex");
}

/**
 * The `per_page` a list that ended on a page boundary is asked again with (see
 * {@link PaginationSummary.endedOnPageBoundary}): one less, so the boundaries fall elsewhere (a
 * list of k full pages of `perPage`, k < perPage - 1, then ends on a short page), and never more
 * than the configured page size, which some lists cap (at most 100).
 */
export function boundaryCheckPerPage(perPage: number): number {
  return perPage > 1 ? perPage - 1 : 2;
}

function defaultLabel(context: ErrorContext): string {
  const parts = [
    context.account === undefined ? undefined : `account ${context.account}`,
    context.stream === undefined ? undefined : `stream ${context.stream}`,
    context.window === undefined ? undefined : `window ${context.window}`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? "" : `${parts.join(", ")}: `;
}
