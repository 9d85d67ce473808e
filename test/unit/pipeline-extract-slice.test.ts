import { describe, expect, it } from "vitest";
import type { ApiClient, ApiResponse, Query } from "../../src/api/http-client.js";
import { SliceError } from "../../src/core/errors.js";
import { KnownSecrets } from "../../src/core/known-secrets.js";
import { countDistinctKeys, extractSlice } from "../../src/pipeline/extract/extract-slice.js";
import { parseRows } from "../../src/pipeline/extract/parse-rows.js";
import { cdrsStream } from "../../src/streams/cdrs.js";
import { invoicesStream } from "../../src/streams/invoices.js";
import { sipTrunksStream } from "../../src/streams/sip-trunks.js";
import type { Slice, StreamDefinition } from "../../src/streams/stream-definition.js";

const stream = cdrsStream as StreamDefinition;
const slice: Slice = { kind: "window", window: { start: "2026-08-01", end: "2026-08-02" } };

function cdr(uuid: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    date: "2026-08-01T10:00:00Z",
    from: "15550001",
    to: "15550002",
    disposition: "answered",
    duration: 30,
    destination: "United States",
    per_minute: "0.01",
    charge: "0.005",
    sip_trunk: null,
    uuid,
    parent_uuid: null,
    answered_by: null,
    ...extra,
  };
}

/**
 * A platform in memory: `serve(read, type, page, perPage)` returns the rows and total of one page of
 * the `read`-th read of the request (reads counted per type), so tests can make rows move between reads.
 */
function fakeClient(
  serve: (read: number, type: string, page: number, perPage: number) => { rows: unknown[]; total: number },
): { client: ApiClient; calls: string[] } {
  const calls: string[] = [];
  const reads = new Map<string, number>();
  const client: ApiClient = {
    account: "acme",
    async getJson(path: string, query: Query = {}): Promise<ApiResponse> {
      const type = String(query.type ?? "all");
      const page = Number(query.page);
      const perPage = Number(query.per_page);
      if (page === 1) reads.set(type, (reads.get(type) ?? 0) + 1);
      calls.push(`${path} ${type} p${page}`);
      const { rows, total } = serve(reads.get(type)!, type, page, perPage);
      const pagination = {
        current_page: page,
        per_page: perPage,
        total,
        total_pages: Math.ceil(total / perPage),
      };
      return {
        status: 200,
        headers: {},
        body: { items: rows, invoices: rows, is_empty: total === 0, pagination },
      };
    },
    close() {},
  };
  return { client, calls };
}

function pageOf(all: readonly unknown[], page: number, perPage: number): unknown[] {
  return all.slice((page - 1) * perPage, page * perPage);
}

const options = {
  stream,
  slice,
  requestContext: {
    account: "acme",
    revision: "2024" as const,
    today: "2026-08-02",
    sources: {
      subAccounts: [],
      brandIds: undefined,
      validationTokens: [],
      numberCatalog: { countries: [], textEnabledOnly: false },
    },
  },
  perPage: 2,
  concurrency: 2,
  context: { account: "acme", window: "2026-08-01..2026-08-02" },
};

describe("extractSlice: completeness check", () => {
  it("reads both directions to the end when the distinct keys equal the reported total", async () => {
    const rows = ["a", "b", "c", "d", "e"].map((u) => cdr(u));
    const { client, calls } = fakeClient((_read, _type, page, perPage) => ({
      rows: pageOf(rows, page, perPage),
      total: 5,
    }));
    const result = await extractSlice({ ...options, client });
    expect(result.requests.map((r) => [r.request.implied.direction, r.rows.length, r.attempts])).toEqual([
      ["placed", 5, 1],
      ["received", 5, 1],
    ]);
    expect(result.pageRequests).toBe(6);
    expect(result.rowsFetched).toBe(10);
    expect(calls.filter((c) => c.endsWith("p1"))).toHaveLength(2);
  });

  it("reads past a total under-reported on a page boundary, keeps every row and counts those beyond it", async () => {
    const rows = ["a", "b", "c", "d", "e"].map((u) => cdr(u));
    // The platform says 2 rows (one full page of 2): the list really ends on page 3 (1 row).
    const { client, calls } = fakeClient((_read, _type, page, perPage) => ({
      rows: pageOf(rows, page, perPage),
      total: 2,
    }));
    const result = await extractSlice({ ...options, client });
    expect(result.requests.map((r) => [r.rows.length, r.reportedTotal, r.beyondTotal, r.attempts])).toEqual([
      [5, 2, 3, 1],
      [5, 2, 3, 1],
    ]);
    expect(calls.filter((c) => c.includes("placed"))).toEqual([
      "/v1/cdr placed p1",
      "/v1/cdr placed p2",
      "/v1/cdr placed p3",
    ]);
    expect(result.answerQuality).toEqual({ rows_beyond_reported_total: 6 });
  });

  it("asks a list that ends on a page boundary again with another per_page, and keeps it when both agree", async () => {
    const rows = ["a", "b", "c", "d"].map((u) => cdr(u));
    const { client, calls } = fakeClient((_read, _type, page, perPage) => ({
      rows: pageOf(rows, page, perPage),
      total: 4,
    }));
    const perPages: number[] = [];
    const recording: ApiClient = {
      ...client,
      getJson: (path, query = {}, requestOptions) => {
        if (query.type === "placed") perPages.push(Number(query.per_page));
        return client.getJson(path, query, requestOptions);
      },
    };
    const result = await extractSlice({ ...options, client: recording });
    expect(result.requests.map((r) => [r.rows.length, r.attempts])).toEqual([
      [4, 1],
      [4, 1],
    ]);
    // Pages 1..3 of 2 (page 3 empty), then the same list again 1 a page (pages 1..5, page 5 empty).
    expect(calls.filter((c) => c.includes("placed"))).toHaveLength(8);
    expect(perPages).toEqual([2, 2, 2, 1, 1, 1, 1, 1]);
  });

  it("does not settle a list cut at a page boundary (total = per_page, page 2 empty): read again, then failed", async () => {
    const rows = ["a", "b", "c", "d", "e"].map((u) => cdr(u));
    // Whatever the page size, the platform says the list is one full page and serves nothing after it.
    const { client } = fakeClient((_read, _type, page, perPage) => ({
      rows: page === 1 ? pageOf(rows, 1, perPage) : [],
      total: perPage,
    }));
    const error = await extractSlice({ ...options, client, attempts: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SliceError);
    expect((error as Error).message).toMatch(
      /after 2 reads: .*the list ended on a page boundary \(total 2, 2 distinct rows in 2 pages of 2, the last one empty\), but asked again with per_page 1 the platform reports total 1 and serves 1 distinct rows: its answers depend on the page size/,
    );
  });

  it("reads a list again when its page-boundary end was a lie on the first read only", async () => {
    const rows = ["a", "b", "c", "d", "e"].map((u) => cdr(u));
    const { client } = fakeClient((read, _type, page, perPage) =>
      read === 1
        ? { rows: page === 1 ? pageOf(rows, 1, perPage) : [], total: perPage }
        : { rows: pageOf(rows, page, perPage), total: 5 },
    );
    const result = await extractSlice({ ...options, client });
    expect(result.requests.map((r) => [r.rows.length, r.attempts])).toEqual([
      [5, 2],
      [5, 2],
    ]);
  });

  it("reads a window again when a row was served twice in place of another, and keeps the good read", async () => {
    const rows = ["a", "b", "c", "d"].map((u) => cdr(u));
    const shifted = [rows[0], rows[1], rows[1], rows[3]];
    const { client } = fakeClient((read, type, page, perPage) => ({
      rows: pageOf(read === 1 && type === "placed" ? shifted : rows, page, perPage),
      total: 4,
    }));
    const result = await extractSlice({ ...options, client });
    expect(result.requests[0]?.attempts).toBe(2);
    expect(result.requests[0]?.distinctKeys).toBe(4);
  });

  it("completes from the union of reads when each read skips a different row", async () => {
    const rows = ["a", "b", "c", "d"].map((u) => cdr(u));
    const { client } = fakeClient((read, _type, page, perPage) => {
      const served = rows.filter((_, i) => i !== (read === 1 ? 2 : 1));
      return { rows: pageOf(served, page, perPage), total: 4 };
    });
    const result = await extractSlice({ ...options, client });
    expect(result.requests.map((r) => [r.attempts, r.distinctKeys, r.rows.length])).toEqual([
      [2, 4, 4],
      [2, 4, 4],
    ]);
  });

  it("fails the slice with both numbers when reads keep disagreeing (bounded)", async () => {
    const rows = ["a", "b", "c"].map((u) => cdr(u));
    // Only the placed CDRs keep losing a row; the received ones are complete.
    const { client, calls } = fakeClient((_read, type, page, perPage) => ({
      rows: pageOf(rows, page, perPage).slice(0, page === 2 && type === "placed" ? 0 : 2),
      total: 3,
    }));
    const error = await extractSlice({ ...options, client, attempts: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SliceError);
    expect((error as Error).message).toMatch(/fetched 2 distinct rows but the platform reported total 3/);
    expect((error as Error).message).toMatch(/type=placed.*after 3 reads/);
    expect(calls.filter((c) => c.includes("placed") && c.endsWith("p1"))).toHaveLength(3);
  });

  it("counts malformed rows toward the total (they are rejected later, not lost)", async () => {
    const rows = [cdr("a"), cdr("b", { duration: "long" }), { garbage: true }];
    const { client } = fakeClient((_read, _type, page, perPage) => ({
      rows: pageOf(rows, page, perPage),
      total: 3,
    }));
    const result = await extractSlice({ ...options, client });
    expect(result.requests[0]?.attempts).toBe(1);
    const parsed = parseRows(
      stream,
      result.requests[0]!.rows,
      result.requests[0]!.request.implied,
      new KnownSecrets(),
    );
    expect(parsed.rows).toHaveLength(1);
    expect(parsed.rejects).toHaveLength(2);
    expect(parsed.rejects[0]?.issues[0]?.path).toBe("duration");
  });

  it("retries a window whose pages loop, then gives up with the paginator's message", async () => {
    const rows = ["a", "b", "c", "d"].map((u) => cdr(u));
    const { client } = fakeClient((_read, _type, _page, perPage) => ({
      rows: pageOf(rows, 1, perPage),
      total: 4,
    }));
    const error = await extractSlice({ ...options, client, attempts: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SliceError);
    expect((error as Error).message).toMatch(/after 2 reads: .*loop detected/);
  });

  it("accepts an empty invoice list flagged is_empty", async () => {
    const { client } = fakeClient(() => ({ rows: [], total: 0 }));
    const result = await extractSlice({
      ...options,
      stream: invoicesStream as StreamDefinition,
      slice: { kind: "full" },
      client,
    });
    expect(result.rowsFetched).toBe(0);
    expect(result.requests).toHaveLength(1);
  });
});

/** A trunk list that always answers `sip_trunks` as given, with `total` in its pagination. */
function trunkClient(list: unknown[] | null, total: number): { client: ApiClient; calls: string[] } {
  const calls: string[] = [];
  const client: ApiClient = {
    account: "acme",
    async getJson(path: string, query: Query = {}): Promise<ApiResponse> {
      calls.push(`${path} p${query.page}`);
      const perPage = Number(query.per_page);
      const pagination = {
        current_page: Number(query.page),
        per_page: perPage,
        total,
        total_pages: Math.ceil(total / perPage),
      };
      return { status: 200, headers: {}, body: { sip_trunks: list, pagination } };
    },
    close() {},
  };
  return { client, calls };
}

describe("extractSlice: a trunk list sent as null", () => {
  const trunks = {
    ...options,
    stream: sipTrunksStream as StreamDefinition,
    slice: { kind: "full" } as Slice,
    context: { account: "acme" },
  };

  it("reads `sip_trunks: null` with total 0 as no trunks, and counts the page once under its answer check", async () => {
    const { client, calls } = trunkClient(null, 0);
    const result = await extractSlice({ ...trunks, client });
    expect(result.rowsFetched).toBe(0);
    expect(calls).toEqual(["/v1/trunks p1"]);
    expect(result.answerQuality).toEqual({ null_list_read_as_empty: 1 });
  });

  it("fails the slice when `sip_trunks: null` comes with a total that says there are trunks", async () => {
    const { client } = trunkClient(null, 3);
    const error = await extractSlice({ ...trunks, client, attempts: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SliceError);
    expect((error as Error).message).toMatch(
      /account acme, stream sip_trunks: GET \/v1\/trunks: completeness check failed after 2 reads: fetched 0 distinct rows but the platform reported total 3/,
    );
  });

  it("counts nothing for a list of trunks", async () => {
    const { client } = trunkClient([{ id: 1 }], 1);
    const result = await extractSlice({ ...trunks, client });
    expect(result.rowsFetched).toBe(1);
    expect(result.answerQuality).toEqual({});
  });
});

describe("countDistinctKeys", () => {
  it("identifies CDRs by direction and uuid, and rows without a key by their content", () => {
    const implied = { direction: "placed" };
    expect(countDistinctKeys(stream, [cdr("a"), cdr("a", { duration: 99 }), cdr("b")], implied)).toBe(2);
    expect(countDistinctKeys(stream, [{ x: 1 }, { x: 1 }, { x: 2 }], implied)).toBe(2);
  });
});
