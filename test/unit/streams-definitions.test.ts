import { cdrSchema, shortLinkMetricSchema } from "@telecom-etl/platform";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { lastDayOf, parseSliceLabel, sliceLabel } from "../../src/core/slices.js";
import { addDays } from "../../src/core/utc-days.js";
import { cdrsStream } from "../../src/streams/cdrs.js";
import { invoicesStream } from "../../src/streams/invoices.js";
import { toLoadRow } from "../../src/streams/load-row.js";
import { getStream, STREAM_NAMES as KNOWN_STREAMS, STREAMS } from "../../src/streams/registry.js";
import { rowIdentityOf } from "../../src/streams/row-identity.js";
import { shortLinkMetricsStream } from "../../src/streams/short-link-metrics.js";
import type { RequestContext } from "../../src/streams/stream-definition.js";
import { primaryKeyOf } from "../../src/warehouse/connection/landing-table.js";

const cdrRaw = {
  date: "2026-08-01T10:00:00Z",
  from: "1555",
  to: "1666",
  disposition: "answered",
  duration: 5,
  destination: null,
  per_minute: "0.01",
  charge: "0.02",
  sip_trunk: null,
  uuid: "u1",
  parent_uuid: null,
  answered_by: null,
};

describe("window dates and slice labels", () => {
  it("adds days across months, years and leap days", () => {
    expect(addDays("2026-01-31", 1)).toBe("2026-02-01");
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(addDays("2026-01-01", -1)).toBe("2025-12-31");
    expect(lastDayOf({ start: "2026-03-01", end: "2026-03-08" })).toBe("2026-03-07");
    expect(() => addDays("2026-1-1", 1)).toThrow(/YYYY-MM-DD/);
  });

  it("round-trips slice labels and rejects anything else", () => {
    const window = { kind: "window", window: { start: "2026-08-01", end: "2026-08-02" } } as const;
    expect(sliceLabel(window)).toBe("2026-08-01..2026-08-02");
    expect(parseSliceLabel("2026-08-01..2026-08-02")).toEqual(window);
    expect(parseSliceLabel(sliceLabel({ kind: "full" }))).toEqual({ kind: "full" });
    expect(() => parseSliceLabel("2026-08-02..2026-08-01")).toThrow(/not a slice label/);
    expect(() => parseSliceLabel("yesterday")).toThrow(/not a slice label/);
  });
});

/** A request context of API revision `revision` with nothing configured. */
function onRevision(revision: "2024" | "2026"): RequestContext {
  const sources = {
    subAccounts: [],
    brandIds: undefined,
    validationTokens: [],
    numberCatalog: { countries: [], textEnabledOnly: false },
  };
  return { account: "acme", revision, sources, today: "2026-08-02", discovered: [] };
}
const on2024 = onRevision("2024");

describe("stream requests", () => {
  it("asks for CDRs of exactly the window's days, once per direction, every disposition", () => {
    const oneDay = cdrsStream.requests(
      { kind: "window", window: { start: "2026-08-01", end: "2026-08-02" } },
      on2024,
    );
    expect(oneDay).toEqual([
      {
        path: "/v1/cdr",
        query: { from: "2026-08-01", to: "2026-08-01", type: "placed", disposition: "all" },
        implied: { direction: "placed" },
      },
      {
        path: "/v1/cdr",
        query: { from: "2026-08-01", to: "2026-08-01", type: "received", disposition: "all" },
        implied: { direction: "received" },
      },
    ]);
    const week = cdrsStream.requests(
      { kind: "window", window: { start: "2026-08-01", end: "2026-08-08" } },
      on2024,
    );
    expect(week.map((r) => [r.query.from, r.query.to])).toEqual([
      ["2026-08-01", "2026-08-07"],
      ["2026-08-01", "2026-08-07"],
    ]);
    expect(() => cdrsStream.requests({ kind: "full" }, on2024)).toThrow(/by date window/);
    const on2026 = cdrsStream.requests(
      { kind: "window", window: { start: "2026-08-01", end: "2026-08-02" } },
      onRevision("2026"),
    );
    expect(on2026.map((r) => r.path)).toEqual(["/v1/cdrs", "/v1/cdrs"]);
    expect(on2026.map((r) => r.query)).toEqual(oneDay.map((r) => r.query));
  });

  it("asks for short-link metrics by window and invoices in full", () => {
    expect(
      shortLinkMetricsStream.requests(
        { kind: "window", window: { start: "2026-08-01", end: "2026-08-02" } },
        on2024,
      ),
    ).toEqual([
      { path: "/v1/short-links/metrics", query: { from: "2026-08-01", to: "2026-08-01" }, implied: {} },
    ]);
    expect(invoicesStream.requests({ kind: "full" }, on2024)).toEqual([
      { path: "/v1/billing/invoices", query: {}, implied: {} },
    ]);
    // An empty invoice list may carry neither the list nor its pagination; a full one must carry both.
    const answer = invoicesStream.answer;
    if (answer.kind !== "pages") throw new Error("invoices are paged");
    const empty = answer.envelope.parse({ is_empty: true });
    expect([answer.rows(empty), answer.pagination(empty)]).toEqual([[], null]);
    const pagination = { current_page: 1, per_page: 100, total: 1, total_pages: 1 };
    const full = answer.envelope.parse({ is_empty: false, invoices: [{ id: 1 }], pagination });
    expect([answer.rows(full), answer.pagination(full)]).toEqual([[{ id: 1 }], pagination]);
    expect(answer.envelope.safeParse({ is_empty: false, invoices: [] }).success).toBe(false);
  });
});

describe("rows", () => {
  it("maps a CDR to typed columns with its implied direction, unknown fields to extra", () => {
    const parsed = cdrSchema.parse({ ...cdrRaw, forward_fee: "0.5", codec: "opus", legs: [1, 2] });
    const row = toLoadRow(cdrsStream, parsed, { direction: "received" });
    expect(row.columns).toMatchObject({
      direction: "received",
      uuid: "u1",
      from_number: "1555",
      to_number: "1666",
      forward_fee: "0.5",
    });
    expect(Object.keys(row.columns).sort()).toEqual(cdrsStream.columns.map((c) => c.name).sort());
    expect(row.extra).toEqual({ codec: "opus", legs: [1, 2] });
    expect(toLoadRow(cdrsStream, cdrSchema.parse(cdrRaw), { direction: "placed" })).toMatchObject({
      columns: { forward_fee: null },
      extra: null,
    });
    expect(() => toLoadRow(cdrsStream, cdrSchema.parse(cdrRaw), {})).toThrow(/direction/);
  });

  it("places a short-link click in the UTC day of created_at", () => {
    const raw = {
      latitude: 1.5,
      longitude: -2,
      operating_system: "iOS",
      browser: "Safari",
      language: "en-US",
      phone: "1202",
      utm_campaign: "c",
      created_at: "2023-07-19 23:59:59.999Z",
      link_hash: "h",
      user_id: 3,
    };
    const row = toLoadRow(shortLinkMetricsStream, shortLinkMetricSchema.parse(raw), {});
    expect(row.columns).toMatchObject({ created_date: "2023-07-19", created_at: "2023-07-19 23:59:59.999Z" });
    expect(Object.keys(row.columns).sort()).toEqual(shortLinkMetricsStream.columns.map((c) => c.name).sort());
  });

  it("identifies raw rows by their key columns for merge streams and by content for rows without an id", () => {
    const invoiceId = rowIdentityOf(invoicesStream);
    const invoice = (id: number, amount: string) => ({
      id,
      from_date: "2026-07-01",
      to_date: "2026-07-31",
      amount,
    });
    expect(invoiceId(invoice(1, "1.00"), {})).toBe(invoiceId(invoice(1, "1.50"), {}));
    expect(invoiceId(invoice(1, "1.00"), {})).not.toBe(invoiceId(invoice(2, "1.00"), {}));
    const cdrId = rowIdentityOf(cdrsStream);
    const placed = { direction: "placed" };
    // One call is one row whether the platform names it uuid (2024) or call_id (2026), per direction.
    expect(cdrId({ ...cdrRaw, call_id: "u1" }, placed)).toBe(cdrId(cdrRaw, placed));
    const { uuid: _uuid, ...withoutUuid } = cdrRaw;
    expect(cdrId({ ...withoutUuid, call_id: "u1" }, placed)).toBe(cdrId(cdrRaw, placed));
    expect(cdrId(cdrRaw, placed)).not.toBe(cdrId(cdrRaw, { direction: "received" }));
    // A row whose key cannot be read (malformed) is told apart by its content.
    expect(cdrId(withoutUuid, placed)).toMatch(/^r:/);
    const clickId = rowIdentityOf(shortLinkMetricsStream);
    const click = (browser: string) => ({ created_at: "2026-08-01 10:00:00.000Z", browser });
    expect(clickId(click("a"), {})).toBe(clickId(click("a"), {}));
    expect(clickId(click("a"), {})).not.toBe(clickId(click("b"), {}));
  });
});

describe("registry", () => {
  it("holds exactly the streams the config knows, each keyed by account", () => {
    expect(Object.keys(STREAMS).sort()).toEqual([...KNOWN_STREAMS].sort());
    for (const [name, stream] of Object.entries(STREAMS)) {
      expect(stream.name).toBe(name);
      expect(primaryKeyOf(stream.table)[0]).toBe("_account");
      expect(stream.table.name).toMatch(/^platform\.[a-z_]+$/);
      expect(stream.table.columns).toBe(stream.columns);
      if (stream.table.writeMode === "replace_window") expect(stream.table.key).toBeNull();
    }
    expect(getStream("cdrs")).toBe(cdrsStream);
    expect(() => getStream("toString")).toThrow(UsageError);
    expect(() => getStream("calls")).toThrow(`unknown stream "calls"; known: ${KNOWN_STREAMS.join(", ")}`);
  });
});
