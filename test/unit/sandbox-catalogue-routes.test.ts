import { CATALOGUE, catalogueEntries } from "@telecom-etl/platform/catalogue.js";
import { SCAFFOLDED_RESOURCE_NAMES } from "@telecom-etl/platform/scaffolded-resources.js";
import { ParamError } from "@telecom-etl/sandbox/http/http-kit.js";
import { optionalWindow, rejectReversed, requiredWindow } from "@telecom-etl/sandbox/http/list-window.js";
import { catalogueHandlers } from "@telecom-etl/sandbox/routes/catalogue-routes.js";
import { listShapeOf } from "@telecom-etl/sandbox/routes/page-body.js";
import { PLATFORM_HANDLERS } from "@telecom-etl/sandbox/routes/platform-handlers.js";
import type { RouteContext } from "@telecom-etl/sandbox/routes/route-types.js";
import { SANDBOX_LISTS, type SandboxListName, TRUTH_LISTS } from "@telecom-etl/sandbox/sandbox-lists.js";
import { TRUTH_STREAMS } from "@telecom-etl/sandbox/truth.js";
import { describe, expect, it } from "vitest";
import { STREAMS } from "../../src/streams/registry.js";

const DAY = 86_400_000;
const ms = (day: string) => Date.parse(`${day}T00:00:00Z`);

describe("sandbox routes from the catalogue", () => {
  it("registers one GET per distinct path of the two revisions, ids by position with each revision's name", async () => {
    const seen: unknown[] = [];
    const handlers = catalogueHandlers(CATALOGUE.available_numbers, (_context, ids) => {
      seen.push(ids);
      return { status: 200, body: "" };
    });
    // Paths as platform-facts.md "API revision 2026" names them.
    expect(handlers.map((h) => `${h.method} ${h.path}`)).toEqual([
      "GET /v1/buy/countries/{country}/cities/{city}/dids",
      "GET /v1/buy/countries/{country_id}/cities/{city_id}/dids",
    ]);
    await handlers[1]!.handle({ params: { country_id: "1", city_id: "101" } } as unknown as RouteContext);
    expect(seen).toEqual([
      [
        { name: "country_id", value: "1" },
        { name: "city_id", value: "101" },
      ],
    ]);
    expect(catalogueHandlers(CATALOGUE.messages, () => ({ status: 200, body: "" }))).toHaveLength(1);
  });

  it("wraps pages as the envelope says, and refuses extra members the catalogue does not declare", () => {
    expect(listShapeOf(CATALOGUE.invoices, "invoices")).toEqual({
      stream: "invoices",
      field: "invoices",
      isEmptyField: true,
      nullWhenEmpty: false,
    });
    expect(listShapeOf(CATALOGUE.sip_trunks, null)).toMatchObject({
      field: "sip_trunks",
      nullWhenEmpty: true,
    });
    expect(listShapeOf(CATALOGUE.numbers, null, { extra: { doc_types: [] } }).trailer).toBe('"doc_types":[]');
    expect(() => listShapeOf(CATALOGUE.numbers, null)).toThrow(/the catalogue declares \[doc_types\]/);
    expect(() => listShapeOf(CATALOGUE.cdrs, "cdrs", { extra: { invalid: {} } })).toThrow(/extra members/);
    expect(() => listShapeOf(CATALOGUE.call_webhooks, null)).toThrow(/not a paged list/);
  });

  it("reads a window under the resource's names: `to` the last day, or the day after", () => {
    const query = (text: string) => new URLSearchParams(text);
    expect(requiredWindow(query("from=2026-08-02&to=2026-08-03"), CATALOGUE.cdrs.window)).toEqual({
      fromMs: ms("2026-08-02"),
      untilMs: ms("2026-08-03") + DAY,
    });
    expect(
      optionalWindow(query("sent_after=2026-08-02&sent_before=2026-08-03"), CATALOGUE.messages.window),
    ).toEqual({ fromMs: ms("2026-08-02"), untilMs: ms("2026-08-03") });
    expect(optionalWindow(query("to_date=2026-08-03"), CATALOGUE.recordings.window)).toEqual({
      fromMs: null,
      untilMs: ms("2026-08-04"),
    });
    // The day a `last_day` window names is in it; a `day_after` window naming its start day is empty.
    expect(() =>
      rejectReversed(
        requiredWindow(query("from=2026-08-02&to=2026-08-02"), CATALOGUE.cdrs.window),
        CATALOGUE.cdrs.window,
      ),
    ).not.toThrow();
    const empty = optionalWindow(
      query("sent_after=2026-08-02&sent_before=2026-08-02"),
      CATALOGUE.messages.window,
    );
    expect(() => rejectReversed(empty, CATALOGUE.messages.window)).toThrow(ParamError);
    expect(() => requiredWindow(query("from=2026-08-02"), CATALOGUE.cdrs.window)).toThrow(ParamError);
  });
});

describe("the sandbox's lists: one declaration each", () => {
  it("every date-windowed resource of the catalogue is a sandbox list; a generic one is routed on each revision's path; every list with truth is in the truth export", () => {
    const windowed = catalogueEntries()
      .filter(({ resource }) => resource.kind === "windowed_list")
      .map(({ name }) => name);
    expect(Object.keys(SANDBOX_LISTS)).toEqual(expect.arrayContaining(windowed));
    const routed = new Set(PLATFORM_HANDLERS.map((h) => `${h.method} ${h.path}`));
    const generic = (Object.keys(SANDBOX_LISTS) as SandboxListName[]).filter(
      (name) => SANDBOX_LISTS[name].route === "generic",
    );
    // Every list `npm run scaffold:stream` added is served by the generic route.
    expect(generic).toEqual([
      "short_link_metrics",
      "transactions",
      "sub_account_transactions",
      ...SCAFFOLDED_RESOURCE_NAMES,
    ]);
    for (const name of generic) {
      for (const path of Object.values(CATALOGUE[name].paths)) expect(routed).toContain(`GET ${path}`);
    }
    for (const name of TRUTH_LISTS) expect(TRUTH_STREAMS).toContain(name);
    // Every loader stream reading a date-windowed list is in the truth export under its own name.
    const windowedStreams = Object.values(STREAMS)
      .filter((stream) => stream.resource?.kind === "windowed_list")
      .map((stream) => stream.name);
    expect(windowedStreams.length).toBeGreaterThan(3);
    for (const name of windowedStreams) expect(TRUTH_STREAMS).toContain(name);
  });
});
