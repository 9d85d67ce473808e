import { describe, expect, it } from "vitest";
import { fetchAllPages } from "../../src/api/fetch-all-pages.js";
import { type Page, PaginationError } from "../../src/api/page-paginator.js";

/** A list of `total` rows `{id}`, `perPage` per page, served from memory. */
function list(total: number, perPage: number) {
  return (n: number): Page => {
    const rows = [];
    for (let id = (n - 1) * perPage + 1; id <= Math.min(total, n * perPage); id++) rows.push({ id });
    return {
      rows,
      pagination: { current_page: n, per_page: perPage, total, total_pages: Math.ceil(total / perPage) },
    };
  };
}

/** Resolves fetches in the order the test chooses, to prove results do not depend on arrival order. */
function controlledFetcher(serve: (n: number) => Page) {
  const waiting = new Map<number, () => void>();
  const requested: number[] = [];
  let inFlight = 0;
  let peak = 0;
  const fetchPage = (n: number) =>
    new Promise<Page>((resolve) => {
      requested.push(n);
      inFlight++;
      peak = Math.max(peak, inFlight);
      waiting.set(n, () => {
        inFlight--;
        resolve(serve(n));
      });
    });
  const release = async (n: number) => {
    for (let i = 0; i < 20 && !waiting.has(n); i++) await new Promise((r) => setImmediate(r));
    const done = waiting.get(n);
    if (done === undefined) throw new Error(`page ${n} was never requested`);
    waiting.delete(n);
    done();
  };
  return { fetchPage, release, requested, peak: () => peak };
}

describe("fetchAllPages", () => {
  it("fetches page 1 first, then the rest concurrently, and returns rows in page order", async () => {
    const fetcher = controlledFetcher(list(450, 100));
    const result = fetchAllPages({ fetchPage: fetcher.fetchPage, concurrency: 4 });
    await fetcher.release(1);
    // Pages 2..5 are all in flight at once; answer them backwards.
    for (const n of [5, 4, 3, 2]) await fetcher.release(n);
    const { rows, reportedTotal, pages, anomalies } = await result;
    expect(fetcher.requested[0]).toBe(1);
    expect(fetcher.requested.slice(1).sort()).toEqual([2, 3, 4, 5]);
    expect(fetcher.peak()).toBe(4);
    expect(rows.map((row) => (row as { id: number }).id)).toEqual(
      Array.from({ length: 450 }, (_, i) => i + 1),
    );
    expect({ reportedTotal, pages, anomalies }).toEqual({ reportedTotal: 450, pages: 5, anomalies: [] });
  });

  it("keeps at most `concurrency` pages in flight", async () => {
    const fetcher = controlledFetcher(list(1000, 100));
    const result = fetchAllPages({ fetchPage: fetcher.fetchPage, concurrency: 2 });
    // Page 10 is full, so page 11 is asked for: an empty page ends the list.
    for (let n = 1; n <= 11; n++) await fetcher.release(n);
    expect((await result).rows).toHaveLength(1000);
    expect(fetcher.peak()).toBe(2);
    expect(fetcher.requested.at(-1)).toBe(11);
  });

  it("reads on past an under-reported total, one page at a time, to the short page that ends the list", async () => {
    const actual = list(228, 100);
    const requested: number[] = [];
    const result = await fetchAllPages({
      fetchPage: async (n) => {
        requested.push(n);
        const served = actual(n);
        return { rows: served.rows, pagination: { ...served.pagination, total: 100, total_pages: 1 } };
      },
    });
    expect(requested).toEqual([1, 2, 3]);
    expect(result.rows).toHaveLength(228);
    expect(result.reportedTotal).toBe(100);
  });

  it("fails when the pages past the reported total never end", async () => {
    const error = await fetchAllPages({
      fetchPage: async (n) => ({
        rows: Array.from({ length: 10 }, (_, i) => ({ id: n * 10 + i })),
        pagination: { current_page: n, per_page: 10, total: 10, total_pages: 1 },
      }),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationError);
    expect((error as Error).message).toMatch(/the platform contradicts itself$/);
  });

  it("asks for pages lazily and stops at the first empty one: 10 million pages reported, 5 requests", async () => {
    const requested: number[] = [];
    const before = process.memoryUsage().heapUsed;
    const result = await fetchAllPages({
      concurrency: 4,
      fetchPage: async (n) => {
        requested.push(n);
        return {
          rows: n === 1 ? list(100, 100)(1).rows : [],
          pagination: { current_page: n, per_page: 100, total: 1_000_000_000, total_pages: 10_000_000 },
        };
      },
    });
    // Page 1, then pages 2..5 in flight together; page 2 is empty, so nothing after them is asked.
    expect(requested).toEqual([1, 2, 3, 4, 5]);
    expect(result).toMatchObject({ reportedTotal: 1_000_000_000, pages: 5, endedOnPageBoundary: true });
    expect(result.rows).toHaveLength(100);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(50 * 1024 * 1024);
  });

  it("makes one request for an empty list", async () => {
    let calls = 0;
    const result = await fetchAllPages({
      fetchPage: async (n) => {
        calls++;
        return list(0, 100)(n);
      },
    });
    expect(result).toMatchObject({ rows: [], reportedTotal: 0, pages: 1, anomalies: [], perPage: 100 });
    expect([...result.rowsByPage.keys()]).toEqual([1]);
    expect(calls).toBe(1);
  });

  it("fails on a loop, tells the other pages to stop, and carries the context", async () => {
    const serve = list(500, 100);
    const aborted: number[] = [];
    const error = await fetchAllPages({
      context: { account: "acme", stream: "cdrs" },
      concurrency: 4,
      fetchPage: async (n, signal) => {
        if (n === 1) return serve(1);
        if (n === 3) return serve(1); // the server ignored `page`
        await new Promise((r) => setImmediate(r));
        if (signal.aborted) aborted.push(n);
        return serve(n);
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationError);
    expect((error as PaginationError).message).toContain("account acme, stream cdrs: loop detected");
    expect((error as PaginationError).context.page).toBe(3);
    expect(aborted.length).toBeGreaterThan(0);
  });

  it("rethrows the first error of a page fetch", async () => {
    const serve = list(300, 100);
    const failure = fetchAllPages({
      fetchPage: async (n) => {
        if (n === 2) throw new Error("boom on page 2");
        return serve(n);
      },
    });
    await expect(failure).rejects.toThrow("boom on page 2");
  });

  it("stops before the first request when the caller's signal is already aborted", async () => {
    let calls = 0;
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    const failure = fetchAllPages({
      signal: controller.signal,
      fetchPage: async (n) => {
        calls++;
        return list(10, 5)(n);
      },
    });
    await expect(failure).rejects.toThrow("cancelled");
    expect(calls).toBe(0);
  });
});
