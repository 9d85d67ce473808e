import { describe, expect, it } from "vitest";
import {
  fingerprintRows,
  MAX_PAGES_PAST_TOTAL,
  type Page,
  PagePaginator,
  PaginationError,
} from "../../src/api/page-paginator.js";
import { SliceError } from "../../src/core/errors.js";

/** Page `n` of a list of `total` rows `{id}` (ids 1..total), `perPage` per page. */
function page(n: number, total: number, perPage: number, overrides: Partial<Page["pagination"]> = {}): Page {
  const rows = [];
  for (let id = (n - 1) * perPage + 1; id <= Math.min(total, n * perPage); id++) rows.push({ id });
  const pagination = { current_page: n, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
  return { rows, pagination: { ...pagination, ...overrides } };
}

/** Every page the paginator hands out now (until it says to wait or that the list ended). */
function claimAll(paginator: PagePaginator): number[] {
  const claimed: number[] = [];
  for (let n = paginator.claim(); n !== null; n = paginator.claim()) claimed.push(n);
  return claimed;
}

function failure(fn: () => void): PaginationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PaginationError) return error;
    throw error;
  }
  throw new Error("expected a PaginationError");
}

describe("PagePaginator: normal runs", () => {
  it("hands out page 1 alone, then every other page in order, accepted in any order", () => {
    const paginator = new PagePaginator();
    expect(claimAll(paginator)).toEqual([1]);
    paginator.accept(1, page(1, 250, 100));
    expect(claimAll(paginator)).toEqual([2, 3]);
    expect(paginator.done).toBe(false);
    paginator.accept(3, page(3, 250, 100));
    expect(claimAll(paginator)).toEqual([]);
    paginator.accept(2, page(2, 250, 100));
    expect(paginator.done).toBe(true);
    expect(claimAll(paginator)).toEqual([]);
    expect(paginator.summary()).toEqual({
      reportedTotal: 250,
      totalPages: 3,
      perPage: 100,
      pagesFetched: 3,
      rowCount: 250,
      endedOnPageBoundary: false,
      anomalies: [],
    });
  });

  it("finishes after page 1 when the list is empty (total_pages 0 or 1)", () => {
    for (const totalPages of [0, 1]) {
      const paginator = new PagePaginator();
      claimAll(paginator);
      paginator.accept(1, {
        rows: [],
        pagination: { current_page: 1, per_page: 100, total: 0, total_pages: totalPages },
      });
      expect(paginator.done).toBe(true);
      expect(claimAll(paginator)).toEqual([]);
      expect(paginator.summary().rowCount).toBe(0);
    }
  });

  it("finishes after page 1 when everything fits on it", () => {
    const paginator = new PagePaginator();
    claimAll(paginator);
    paginator.accept(1, page(1, 7, 100));
    expect(paginator.done).toBe(true);
    expect(paginator.summary().anomalies).toEqual([]);
  });
});

describe("PagePaginator: loops", () => {
  it("refuses a page whose current_page is not the page asked for", () => {
    const paginator = new PagePaginator({ account: "acme", stream: "cdrs", window: "2025-03-01" });
    claimAll(paginator);
    paginator.accept(1, page(1, 300, 100));
    expect(claimAll(paginator)).toEqual([2, 3]);
    const error = failure(() => paginator.accept(3, page(1, 300, 100)));
    expect(error).toBeInstanceOf(SliceError);
    expect(error.message).toBe(
      "account acme, stream cdrs, window 2025-03-01: loop detected: asked for page 3, the platform answered current_page 1",
    );
    expect(error.context).toEqual({ account: "acme", stream: "cdrs", window: "2025-03-01", page: 3 });
  });

  it("refuses the same rows served as two different pages (server ignores `page` but echoes it)", () => {
    const paginator = new PagePaginator();
    claimAll(paginator);
    paginator.accept(1, page(1, 300, 100));
    claimAll(paginator);
    const repeated = { ...page(1, 300, 100), pagination: page(2, 300, 100).pagination };
    expect(failure(() => paginator.accept(2, repeated)).message).toBe(
      "loop detected: page 2 has the same rows as page 1",
    );
  });

  it("does not treat two empty pages as a loop", () => {
    const paginator = new PagePaginator();
    const empty = (n: number): Page => ({
      rows: [],
      pagination: { current_page: n, per_page: 10, total: 0, total_pages: 3 },
    });
    paginator.claim();
    paginator.accept(1, empty(1));
    expect(paginator.done).toBe(true);
    const twice = new PagePaginator();
    twice.claim();
    twice.accept(1, page(1, 25, 10));
    expect(claimAll(twice)).toEqual([2, 3]);
    twice.accept(2, { rows: [], pagination: page(2, 25, 10).pagination });
    twice.accept(3, { rows: [], pagination: page(3, 25, 10).pagination });
    expect(twice.done).toBe(true);
  });

  it("fingerprints rows by content and order", () => {
    expect(fingerprintRows([{ id: 1 }, { id: 2 }])).toBe(fingerprintRows([{ id: 1 }, { id: 2 }]));
    expect(fingerprintRows([{ id: 1 }, { id: 2 }])).not.toBe(fingerprintRows([{ id: 2 }, { id: 1 }]));
    // A slice of the list one row further on, or one row longer, is another page.
    const list = Array.from({ length: 101 }, (_, id) => ({ id }));
    expect(fingerprintRows(list.slice(0, 100))).not.toBe(fingerprintRows(list.slice(1, 101)));
    expect(fingerprintRows(list.slice(0, 100))).not.toBe(fingerprintRows(list.slice(0, 101)));
    expect(fingerprintRows([{ id: 1, to: "a" }])).not.toBe(fingerprintRows([{ id: 1, to: "b" }]));
  });
});

/** Page `n` of a list of `actual` rows whose pagination reports `reported` rows instead. */
function underReported(n: number, actual: number, reported: number, perPage: number): Page {
  const served = page(n, actual, perPage);
  const pagination = { ...served.pagination, total: reported, total_pages: Math.ceil(reported / perPage) };
  return { rows: served.rows, pagination };
}

/** Claims the next page, checks it is `n`, and accepts `served`. */
function readNext(paginator: PagePaginator, n: number, served: Page): void {
  expect(paginator.claim()).toBe(n);
  paginator.accept(n, served);
}

describe("PagePaginator: a list ends with a short or empty page, not on its total", () => {
  it("reads on past an under-reported total (228 rows said to be 100) to the short page that ends the list", () => {
    const paginator = new PagePaginator();
    readNext(paginator, 1, underReported(1, 228, 100, 100));
    expect(paginator.done).toBe(false);
    readNext(paginator, 2, underReported(2, 228, 100, 100));
    readNext(paginator, 3, underReported(3, 228, 100, 100));
    expect(paginator.claim()).toBeNull();
    expect(paginator.done).toBe(true);
    expect(paginator.summary()).toMatchObject({ reportedTotal: 100, pagesFetched: 3, rowCount: 228 });
    expect(paginator.summary().anomalies).toEqual([
      "page 2, past the last reported page 1, has 100 rows",
      "page 3, past the last reported page 1, has 28 rows",
    ]);
  });

  it("asks for the page after a full last page only once every page is in, and ends on an empty one", () => {
    const paginator = new PagePaginator();
    readNext(paginator, 1, page(1, 200, 100));
    expect(paginator.claim()).toBe(2);
    expect(paginator.claim()).toBeNull(); // page 2 is still to come
    paginator.accept(2, page(2, 200, 100));
    readNext(paginator, 3, page(3, 200, 100));
    expect(paginator.done).toBe(true);
    expect(paginator.summary()).toMatchObject({ rowCount: 200, endedOnPageBoundary: true, anomalies: [] });
  });

  it("ends after a short last page without asking for more", () => {
    const paginator = new PagePaginator();
    readNext(paginator, 1, page(1, 150, 100));
    readNext(paginator, 2, page(2, 150, 100));
    expect(paginator.claim()).toBeNull();
    expect(paginator.done).toBe(true);
    expect(paginator.summary().endedOnPageBoundary).toBe(false);
  });

  it("ends on the first empty page, asking for no page after it (10 million pages reported)", () => {
    // A total and page count inflated together (consistent): the rows end on page 1.
    const inflated = (n: number): Page => ({
      rows: n === 1 ? page(1, 100, 100).rows : [],
      pagination: { current_page: n, per_page: 100, total: 1_000_000_000, total_pages: 10_000_000 },
    });
    const paginator = new PagePaginator();
    readNext(paginator, 1, inflated(1));
    // Handed out lazily: as many as the caller asks for, never the 10 million at once.
    expect([paginator.claim(), paginator.claim(), paginator.claim()]).toEqual([2, 3, 4]);
    paginator.accept(3, inflated(3));
    expect(paginator.claim()).toBeNull();
    expect(paginator.done).toBe(false);
    paginator.accept(2, inflated(2));
    paginator.accept(4, inflated(4));
    expect(paginator.claim()).toBeNull();
    expect(paginator.done).toBe(true);
    expect(paginator.summary()).toMatchObject({
      pagesFetched: 4,
      rowCount: 100,
      reportedTotal: 1_000_000_000,
    });
  });

  it("keeps rows served after the empty page that ended the list, as an anomaly", () => {
    const paginator = new PagePaginator();
    readNext(paginator, 1, page(1, 300, 100));
    expect(claimAll(paginator)).toEqual([2, 3]);
    paginator.accept(2, { rows: [], pagination: page(2, 300, 100).pagination });
    paginator.accept(3, page(3, 300, 100));
    expect(paginator.done).toBe(true);
    expect(paginator.summary()).toMatchObject({ rowCount: 200, endedOnPageBoundary: true });
    expect(paginator.summary().anomalies).toContain("page 3 has 100 rows after page 2 ended the list");
  });

  it("does not end the list on a short page before the last reported one (a damaged page)", () => {
    const paginator = new PagePaginator();
    readNext(paginator, 1, page(1, 250, 100));
    expect(paginator.claim()).toBe(2);
    paginator.accept(2, {
      rows: page(2, 250, 100).rows.slice(0, 40),
      pagination: page(2, 250, 100).pagination,
    });
    readNext(paginator, 3, page(3, 250, 100));
    expect(paginator.done).toBe(true);
  });

  it(`fails loudly when ${MAX_PAGES_PAST_TOTAL} full pages past the reported last one do not end the list`, () => {
    const paginator = new PagePaginator({
      account: "acme",
      stream: "cdrs",
      window: "2026-08-01..2026-08-02",
    });
    const actual = 100 * (MAX_PAGES_PAST_TOTAL + 5);
    for (let n = 1; n <= MAX_PAGES_PAST_TOTAL + 1; n++)
      readNext(paginator, n, underReported(n, actual, 100, 100));
    const error = failure(() => paginator.claim());
    expect(error).toBeInstanceOf(SliceError);
    expect(error.message).toBe(
      `account acme, stream cdrs, window 2026-08-01..2026-08-02: the platform reported total 100 in 1 page(s) of 100, ` +
        `but pages 1..${MAX_PAGES_PAST_TOTAL + 1} are all full (${100 * (MAX_PAGES_PAST_TOTAL + 1)} rows) and the list does not end; ` +
        `read up to ${MAX_PAGES_PAST_TOTAL} pages past its total, the platform contradicts itself`,
    );
    expect(error.context.page).toBe(MAX_PAGES_PAST_TOTAL + 1);
  });

  it("refuses a page that was not asked for", () => {
    const paginator = new PagePaginator();
    readNext(paginator, 1, underReported(1, 300, 100, 100));
    expect(() => paginator.accept(3, underReported(3, 300, 100, 100))).toThrow(/page 3 was not asked for/);
    readNext(paginator, 2, { rows: [{ id: 101 }], pagination: underReported(2, 300, 100, 100).pagination });
    expect(paginator.claim()).toBeNull();
    expect(() => paginator.accept(3, underReported(3, 300, 100, 100))).toThrow(/page 3 was not asked for/);
  });
});

describe("PagePaginator: overruns", () => {
  it("refuses a page with more rows than per_page", () => {
    const paginator = new PagePaginator();
    const big = {
      rows: Array.from({ length: 11 }, (_, i) => ({ id: i })),
      pagination: page(1, 50, 10).pagination,
    };
    paginator.claim();
    expect(failure(() => paginator.accept(1, big)).message).toBe("page 1 has 11 rows, more than per_page 10");
  });

  it("refuses a page count too small for the total", () => {
    const paginator = new PagePaginator();
    paginator.claim();
    expect(failure(() => paginator.accept(1, page(1, 250, 100, { total_pages: 2 }))).message).toBe(
      "inconsistent pagination: 250 rows of 100 per page need 3 pages, the platform reports 2",
    );
  });

  it("refuses an absurd page count (10 million pages for 5 rows) instead of issuing the requests", () => {
    const paginator = new PagePaginator();
    paginator.claim();
    expect(failure(() => paginator.accept(1, page(1, 5, 100, { total_pages: 10_000_000 }))).message).toBe(
      "inconsistent pagination: 10000000 pages reported for 5 rows of 100 per page",
    );
  });

  it("refuses a page count that contradicts the total on a later page too", () => {
    const paginator = new PagePaginator();
    readNext(paginator, 1, page(1, 300, 100));
    paginator.claim();
    const error = failure(() => paginator.accept(2, page(2, 300, 100, { total_pages: 10_000_000 })));
    expect(error.message).toBe(
      "inconsistent pagination: 10000000 pages reported for 300 rows of 100 per page",
    );
    expect(error.context.page).toBe(2);
  });

  it("refuses malformed pagination", () => {
    const paginator = new PagePaginator();
    paginator.claim();
    expect(failure(() => paginator.accept(1, page(1, 5, 100, { per_page: 0 }))).message).toMatch(
      /^malformed pagination/,
    );
    expect(() => paginator.accept(1, page(1, 5, 100, { total: -1 }))).toThrow(PaginationError);
    expect(() => paginator.accept(1, page(1, 5, 100, { total: 2.5 }))).toThrow(PaginationError);
  });

  it("never hands out pages past total_pages while the last reported page is still out", () => {
    const paginator = new PagePaginator();
    readNext(paginator, 1, page(1, 200, 100));
    expect(claimAll(paginator)).toEqual([2]);
    expect(() => paginator.accept(3, page(3, 200, 100))).toThrow(/page 3 was not asked for/);
  });
});

describe("PagePaginator: short pages and moving totals", () => {
  it("records a short page before the last one as an anomaly, not an error", () => {
    const paginator = new PagePaginator();
    readNext(paginator, 1, page(1, 250, 100));
    expect(claimAll(paginator)).toEqual([2, 3]);
    paginator.accept(2, {
      rows: page(2, 250, 100).rows.slice(0, 40),
      pagination: page(2, 250, 100).pagination,
    });
    paginator.accept(3, page(3, 250, 100));
    expect(paginator.done).toBe(true);
    expect(paginator.summary()).toMatchObject({
      rowCount: 190,
      reportedTotal: 250,
      anomalies: ["page 2 has 40 rows, 100 expected"],
    });
  });

  it("records a short last page", () => {
    const paginator = new PagePaginator();
    readNext(paginator, 1, page(1, 250, 100));
    readNext(paginator, 2, page(2, 250, 100));
    readNext(paginator, 3, {
      rows: page(3, 250, 100).rows.slice(0, 10),
      pagination: page(3, 250, 100).pagination,
    });
    expect(paginator.summary().anomalies).toEqual(["page 3 has 10 rows, 50 expected"]);
  });

  it("records a total that grows while paging, and reads on to the page that ends the list", () => {
    const paginator = new PagePaginator();
    readNext(paginator, 1, page(1, 200, 100));
    readNext(paginator, 2, page(2, 210, 100, { total_pages: 3 }));
    expect(paginator.summary().anomalies).toEqual([
      "page 2 reports total 210 in 3 pages; page 1 said 200 in 2",
    ]);
    expect(paginator.summary().reportedTotal).toBe(200);
    readNext(paginator, 3, page(3, 210, 100));
    expect(paginator.done).toBe(true);
    expect(paginator.summary().rowCount).toBe(210);
  });

  it("requires page 1 first and each page once", () => {
    const paginator = new PagePaginator();
    paginator.claim();
    expect(() => paginator.accept(2, page(2, 300, 100))).toThrow(/page 2 was not asked for/);
    paginator.accept(1, page(1, 300, 100));
    claimAll(paginator);
    paginator.accept(2, page(2, 300, 100));
    expect(() => paginator.accept(2, page(2, 300, 100))).toThrow(/already accepted/);
  });
});
