import { describe, expect, it } from "vitest";
import { KNOWN_STREAMS } from "../../src/config.js";
import { UsageError } from "../../src/errors.js";
import { cdrSchema, invoiceSchema, shortLinkMetricSchema } from "../../src/platform/index.js";
import { cdrsStream } from "../../src/streams/cdrs.js";
import { collapseRows } from "../../src/streams/collapse-rows.js";
import { invoicesStream } from "../../src/streams/invoices.js";
import { toLoadRow } from "../../src/streams/load-row.js";
import { getStream, STREAMS } from "../../src/streams/registry.js";
import { shortLinkMetricsStream } from "../../src/streams/short-link-metrics.js";
import { lastDayOf, parseSliceLabel, sliceLabel } from "../../src/streams/slice-label.js";
import { addDays } from "../../src/utc-days.js";

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

describe("stream requests", () => {
  it("asks for CDRs of exactly the window's days, once per direction, every disposition", () => {
    const oneDay = cdrsStream.requests({
      kind: "window",
      window: { start: "2026-08-01", end: "2026-08-02" },
    });
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
    const week = cdrsStream.requests({ kind: "window", window: { start: "2026-08-01", end: "2026-08-08" } });
    expect(week.map((r) => [r.query.from, r.query.to])).toEqual([
      ["2026-08-01", "2026-08-07"],
      ["2026-08-01", "2026-08-07"],
    ]);
    expect(() => cdrsStream.requests({ kind: "full" })).toThrow(/by date window/);
  });

  it("asks for short-link metrics by window and invoices in full", () => {
    expect(
      shortLinkMetricsStream.requests({ kind: "window", window: { start: "2026-08-01", end: "2026-08-02" } }),
    ).toEqual([
      { path: "/v1/short-links/metrics", query: { from: "2026-08-01", to: "2026-08-01" }, implied: {} },
    ]);
    expect(invoicesStream.requests({ kind: "full" })).toEqual([
      { path: "/v1/billing/invoices", query: {}, implied: {} },
    ]);
    expect(invoicesStream.isEmptyAnswer?.({ is_empty: true })).toBe(true);
    expect(invoicesStream.isEmptyAnswer?.({ is_empty: false, invoices: [] })).toBe(false);
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

  it("collapses rows by key for merge streams and by content for replace_window streams", () => {
    const invoice = (id: number, amount: string) =>
      toLoadRow(
        invoicesStream,
        invoiceSchema.parse({ id, from_date: "2026-07-01", to_date: "2026-07-31", amount }),
        {},
      );
    const merged = collapseRows(invoicesStream, [invoice(1, "1.00"), invoice(2, "2.00"), invoice(1, "1.50")]);
    expect(merged.duplicates).toBe(1);
    expect(merged.rows.map((r) => [r.columns.id, r.columns.amount])).toEqual([
      [1, "1.50"],
      [2, "2.00"],
    ]);
    const placed = toLoadRow(cdrsStream, cdrSchema.parse(cdrRaw), { direction: "placed" });
    const received = toLoadRow(cdrsStream, cdrSchema.parse(cdrRaw), { direction: "received" });
    expect(collapseRows(cdrsStream, [placed, received, placed]).rows).toHaveLength(2);
    const click = (browser: string) => ({
      columns: { created_date: "2026-08-01", created_at: "2026-08-01 10:00:00.000Z", browser },
      extra: null,
    });
    const clicks = collapseRows(shortLinkMetricsStream, [click("a"), click("b"), click("a")]);
    expect(clicks).toMatchObject({ duplicates: 1 });
    expect(clicks.rows.map((r) => r.columns.browser)).toEqual(["a", "b"]);
  });
});

describe("registry", () => {
  it("holds exactly the streams the config knows, each keyed by account", () => {
    expect(Object.keys(STREAMS).sort()).toEqual([...KNOWN_STREAMS].sort());
    for (const [name, stream] of Object.entries(STREAMS)) {
      expect(stream.name).toBe(name);
      expect(stream.key[0]).toBe("_account");
      expect(stream.table).toMatch(/^platform\.[a-z_]+$/);
      if (stream.writeMode === "replace_window") expect(stream.key).toContain(stream.windowColumn);
    }
    expect(getStream("cdrs")).toBe(cdrsStream);
    expect(() => getStream("toString")).toThrow(UsageError);
    expect(() => getStream("calls")).toThrow(
      /unknown stream "calls"; known: cdrs, short_link_metrics, invoices/,
    );
  });
});
