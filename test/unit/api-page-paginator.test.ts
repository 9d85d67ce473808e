import { describe, expect, it } from "vitest";
import { fingerprintRows, type Page, PagePaginator, PaginationError } from "../../src/api/page-paginator.js";
import { SliceError } from "../../src/errors.js";

/** Page `n` of a list of `total` rows `{id}` (ids 1..total), `perPage` per page. */
function page(n: number, total: number, perPage: number, overrides: Partial<Page["pagination"]> = {}): Page {
  const rows = [];
  for (let id = (n - 1) * perPage + 1; id <= Math.min(total, n * perPage); id++) rows.push({ id });
  const pagination = { current_page: n, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
  return { rows, pagination: { ...pagination, ...overrides } };
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
  it("asks for page 1 first, then every other page, accepted in any order", () => {
    const paginator = new PagePaginator();
    expect(paginator.pendingPages()).toEqual([1]);
    paginator.accept(1, page(1, 250, 100));
    expect(paginator.pendingPages()).toEqual([2, 3]);
    expect(paginator.done).toBe(false);
    paginator.accept(3, page(3, 250, 100));
    expect(paginator.pendingPages()).toEqual([2]);
    paginator.accept(2, page(2, 250, 100));
    expect(paginator.done).toBe(true);
    expect(paginator.pendingPages()).toEqual([]);
    expect(paginator.summary()).toEqual({
      reportedTotal: 250,
      totalPages: 3,
      pagesFetched: 3,
      rowCount: 250,
      anomalies: [],
    });
  });

  it("finishes after page 1 when the list is empty (total_pages 0 or 1)", () => {
    for (const totalPages of [0, 1]) {
      const paginator = new PagePaginator();
      paginator.accept(1, {
        rows: [],
        pagination: { current_page: 1, per_page: 100, total: 0, total_pages: totalPages },
      });
      expect(paginator.done).toBe(true);
      expect(paginator.pendingPages()).toEqual([]);
      expect(paginator.summary().rowCount).toBe(0);
    }
  });

  it("finishes after page 1 when everything fits on it", () => {
    const paginator = new PagePaginator();
    paginator.accept(1, page(1, 7, 100));
    expect(paginator.done).toBe(true);
    expect(paginator.summary().anomalies).toEqual([]);
  });
});

describe("PagePaginator: loops", () => {
  it("refuses a page whose current_page is not the page asked for", () => {
    const paginator = new PagePaginator({ account: "acme", stream: "cdrs", window: "2025-03-01" });
    paginator.accept(1, page(1, 300, 100));
    const error = failure(() => paginator.accept(3, page(1, 300, 100)));
    expect(error).toBeInstanceOf(SliceError);
    expect(error.message).toBe(
      "account acme, stream cdrs, window 2025-03-01: loop detected: asked for page 3, the platform answered current_page 1",
    );
    expect(error.context).toEqual({ account: "acme", stream: "cdrs", window: "2025-03-01", page: 3 });
  });

  it("refuses the same rows served as two different pages (server ignores `page` but echoes it)", () => {
    const paginator = new PagePaginator();
    paginator.accept(1, page(1, 300, 100));
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
    paginator.accept(1, empty(1));
    paginator.accept(2, empty(2));
    paginator.accept(3, empty(3));
    expect(paginator.done).toBe(true);
  });

  it("fingerprints rows by content and order", () => {
    expect(fingerprintRows([{ id: 1 }, { id: 2 }])).toBe(fingerprintRows([{ id: 1 }, { id: 2 }]));
    expect(fingerprintRows([{ id: 1 }, { id: 2 }])).not.toBe(fingerprintRows([{ id: 2 }, { id: 1 }]));
  });
});

describe("PagePaginator: overruns", () => {
  it("refuses more rows in all than the reported total", () => {
    const paginator = new PagePaginator();
    paginator.accept(1, page(1, 150, 100));
    const extra = {
      rows: Array.from({ length: 60 }, (_, i) => ({ id: 1000 + i })),
      pagination: page(2, 150, 100).pagination,
    };
    expect(failure(() => paginator.accept(2, extra)).message).toBe(
      "overrun: 160 rows after page 2, more than the reported total 150",
    );
  });

  it("refuses a page with more rows than per_page", () => {
    const paginator = new PagePaginator();
    const big = {
      rows: Array.from({ length: 11 }, (_, i) => ({ id: i })),
      pagination: page(1, 50, 10).pagination,
    };
    expect(failure(() => paginator.accept(1, big)).message).toBe("page 1 has 11 rows, more than per_page 10");
  });

  it("refuses a page count too small for the total", () => {
    const paginator = new PagePaginator();
    expect(failure(() => paginator.accept(1, page(1, 250, 100, { total_pages: 2 }))).message).toBe(
      "inconsistent pagination: 250 rows of 100 per page need 3 pages, the platform reports 2",
    );
  });

  it("refuses an absurd page count instead of issuing the requests", () => {
    const paginator = new PagePaginator();
    expect(() => paginator.accept(1, page(1, 5, 100, { total_pages: 1_000_000 }))).toThrow(PaginationError);
  });

  it("refuses malformed pagination", () => {
    const paginator = new PagePaginator();
    expect(failure(() => paginator.accept(1, page(1, 5, 100, { per_page: 0 }))).message).toMatch(
      /^malformed pagination/,
    );
    expect(() => paginator.accept(1, page(1, 5, 100, { total: -1 }))).toThrow(PaginationError);
    expect(() => paginator.accept(1, page(1, 5, 100, { total: 2.5 }))).toThrow(PaginationError);
  });

  it("never asks for pages past total_pages and refuses to accept them", () => {
    const paginator = new PagePaginator();
    paginator.accept(1, page(1, 200, 100));
    expect(paginator.pendingPages()).toEqual([2]);
    expect(() => paginator.accept(3, page(3, 200, 100))).toThrow(/outside 2..2/);
  });
});

describe("PagePaginator: short pages and moving totals", () => {
  it("records a short page before the last one as an anomaly, not an error", () => {
    const paginator = new PagePaginator();
    paginator.accept(1, page(1, 250, 100));
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
    paginator.accept(1, page(1, 250, 100));
    paginator.accept(2, page(2, 250, 100));
    paginator.accept(3, {
      rows: page(3, 250, 100).rows.slice(0, 10),
      pagination: page(3, 250, 100).pagination,
    });
    expect(paginator.summary().anomalies).toEqual(["page 3 has 10 rows, 50 expected"]);
  });

  it("records a total that grows while paging and allows the extra rows", () => {
    const paginator = new PagePaginator();
    paginator.accept(1, page(1, 200, 100));
    const grown = page(2, 210, 100, { total_pages: 3 });
    paginator.accept(2, grown);
    expect(paginator.summary().anomalies).toEqual([
      "page 2 reports total 210 in 3 pages; page 1 said 200 in 2",
    ]);
    expect(paginator.summary().reportedTotal).toBe(200);
    expect(paginator.done).toBe(true);
  });

  it("requires page 1 first and each page once", () => {
    const paginator = new PagePaginator();
    expect(() => paginator.accept(2, page(2, 300, 100))).toThrow(/page 1 must be accepted first/);
    paginator.accept(1, page(1, 300, 100));
    paginator.accept(2, page(2, 300, 100));
    expect(() => paginator.accept(2, page(2, 300, 100))).toThrow(/already accepted/);
  });
});
