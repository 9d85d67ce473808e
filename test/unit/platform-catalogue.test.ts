import {
  answerSchema,
  CATALOGUE,
  catalogueEntries,
  PLATFORM_ROUTES,
  type PlatformResource,
  publishedSchema,
  resourcePath,
  routesOf,
  rowsOf,
  windowQuery,
} from "@telecom-etl/platform";
import { describe, expect, it } from "vitest";
import { STREAMS } from "../../src/streams/registry.js";
import type { RequestContext } from "../../src/streams/stream-definition.js";

/**
 * The resource catalogue against platform-facts.md, written out here by hand from the facts file
 * (not from the catalogue): each list's path per revision, permission, items key and window
 * parameters; then what derives from it (routes, streams, envelopes).
 */
const FROM_THE_FACTS = [
  {
    name: "cdrs",
    paths: ["/v1/cdr", "/v1/cdrs"],
    permission: "calls:read",
    items: "items",
    window: ["from", "to", "2026-08-07"],
  },
  {
    name: "messages",
    paths: ["/v3/messages", "/v3/messages"],
    permission: "messages:read",
    items: "items",
    window: ["sent_after", "sent_before", "2026-08-08"],
  },
  {
    name: "recordings",
    paths: ["/v1/recordings", "/v1/recordings"],
    permission: "recordings:read",
    items: "recordings",
    window: ["from_date", "to_date", "2026-08-07"],
  },
  {
    name: "message_opt_outs",
    paths: ["/v3/messages/opt-outs", "/v3/messages/opt-outs"],
    permission: "messages:read",
    items: "items",
    window: ["created_after", "created_before", "2026-08-07"],
  },
  {
    name: "transactions",
    paths: ["/v1/billing/transactions", "/v1/billing/transactions"],
    permission: "billing:read",
    items: "transactions",
    window: ["from_date", "to_date", "2026-08-07"],
  },
  {
    name: "numbers",
    paths: ["/v1/mydids", "/v1/numbers"],
    permission: "numbers:read",
    items: "items",
    window: null,
  },
  {
    name: "sip_trunks",
    paths: ["/v1/trunks", "/v1/trunks"],
    permission: "trunks:read",
    items: "sip_trunks",
    window: null,
  },
  {
    name: "invoices",
    paths: ["/v1/billing/invoices", "/v1/billing/invoices"],
    permission: "billing:read",
    items: "invoices",
    window: null,
  },
  {
    name: "call_transcription",
    paths: ["/v1/cdr/{uuid}/transcription", "/v1/cdrs/{call_id}/transcription"],
    permission: "calls:read",
    items: null,
    window: null,
  },
] as const;

const WEEK = { start: "2026-08-01", lastDay: "2026-08-07", end: "2026-08-08" };

describe("the resource catalogue", () => {
  it.for(FROM_THE_FACTS)(
    "$name: paths, permission, envelope and window as platform-facts.md says",
    (fact) => {
      const resource: PlatformResource = CATALOGUE[fact.name];
      expect([resource.paths["2024"], resource.paths["2026"]]).toEqual(fact.paths);
      expect(resource.permission).toBe(fact.permission);
      const envelope = resource.envelope;
      expect(envelope.shape === "paged" ? envelope.items : null).toBe(fact.items);
      if (fact.window === null) {
        expect(resource.window).toBeUndefined();
      } else {
        const [from, to, toValue] = fact.window;
        expect(windowQuery(resource, WEEK)).toEqual({ [from]: "2026-08-01", [to]: toValue });
      }
    },
  );

  it("fills a path's segments in order, encoded, and refuses a wrong number of ids", () => {
    expect(resourcePath(CATALOGUE.call_transcription, "2026", ["a b"])).toBe("/v1/cdrs/a%20b/transcription");
    expect(resourcePath(CATALOGUE.available_numbers, "2024", ["1", "101"])).toBe(
      "/v1/buy/countries/1/cities/101/dids",
    );
    expect(() => resourcePath(CATALOGUE.call_transcription, "2024")).toThrow(/no value/);
    expect(() => resourcePath(CATALOGUE.cdrs, "2024", ["x"])).toThrow(/1 ids for 0 segments/);
  });

  it("derives one read route per resource and revision, with the resource's permission, and no route twice", () => {
    for (const { resource } of catalogueEntries()) {
      for (const revision of ["2024", "2026"] as const) {
        const route = routesOf(revision).find(
          (r) => r.method === "GET" && r.path === resource.paths[revision],
        );
        expect(route?.permission, `${revision} ${resource.paths[revision]}`).toBe(resource.permission);
      }
    }
    const keys = PLATFORM_ROUTES.flatMap((r) => r.revisions.map((v) => `${v} ${r.method} ${r.path}`));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("reads an envelope as the loader does: rows unchecked, null and is_empty lists as no rows, extras optional", () => {
    const page = { current_page: 1, per_page: 100, total: 0, total_pages: 0 };
    const trunks = answerSchema(CATALOGUE.sip_trunks).parse({ sip_trunks: null, pagination: page });
    expect(rowsOf(CATALOGUE.sip_trunks, trunks)).toEqual([]);
    const numbers = answerSchema(CATALOGUE.numbers).parse({
      items: [{ id: "not checked here" }],
      pagination: page,
    });
    expect(rowsOf(CATALOGUE.numbers, numbers)).toEqual([{ id: "not checked here" }]);
    const ledger = answerSchema(CATALOGUE.transactions).parse({ is_empty: true });
    expect(rowsOf(CATALOGUE.transactions, ledger)).toEqual([]);
    expect(answerSchema(CATALOGUE.transactions).safeParse({ is_empty: false }).success).toBe(false);
    expect(answerSchema(CATALOGUE.cdrs).safeParse({ items: [] }).success).toBe(false);
    // The published shape is stricter: typed rows and every member of the envelope.
    expect(publishedSchema(CATALOGUE.numbers).safeParse({ items: [], pagination: page }).success).toBe(false);
    expect(
      publishedSchema(CATALOGUE.numbers).safeParse({ items: [], doc_types: [], pagination: page }).success,
    ).toBe(true);
    expect(publishedSchema(CATALOGUE.cdrs).safeParse({ items: [{}], pagination: page }).success).toBe(false);
  });
});

describe("streams derive from the catalogue", () => {
  const context = (revision: "2024" | "2026"): RequestContext => ({
    account: "acme",
    revision,
    today: "2026-08-08",
    discovered: [],
    sources: {
      subAccounts: [7],
      brandIds: ["B1"],
      validationTokens: [],
      numberCatalog: { countries: [], textEnabledOnly: false },
    },
  });

  it("every stream reads a catalogue resource with its permission, and asks only catalogue paths", () => {
    const resources = new Set<PlatformResource>(Object.values(CATALOGUE));
    const templates = Object.values(CATALOGUE).flatMap((r) => Object.values(r.paths));
    const matches = (path: string) =>
      templates.some((t) => new RegExp(`^${t.replace(/\{[a-z_]+\}/g, "[^/]+")}$`).test(path));
    for (const stream of Object.values(STREAMS)) {
      expect(resources.has(stream.resource), stream.name).toBe(true);
      expect(stream.permission).toBe(stream.resource.permission);
      const slice =
        stream.slicing === "date_window"
          ? ({ kind: "window", window: { start: "2026-08-01", end: "2026-08-02" } } as const)
          : stream.slicing === "lookup"
            ? ({ kind: "ids", items: [{ id: "id-1", implied: {} }] } as const)
            : ({ kind: "full" } as const);
      for (const revision of ["2024", "2026"] as const) {
        for (const request of stream.requests(slice, context(revision))) {
          expect(matches(request.path), `${stream.name} ${revision} ${request.path}`).toBe(true);
        }
      }
    }
  });

  it("a plain windowed list needs no requests of its own: recordings ask their window by the catalogue's names", () => {
    const slice = { kind: "window", window: { start: "2026-08-01", end: "2026-08-03" } } as const;
    expect(STREAMS.recordings.requests(slice, context("2026"))).toEqual([
      { path: "/v1/recordings", query: { from_date: "2026-08-01", to_date: "2026-08-02" }, implied: {} },
    ]);
    expect(STREAMS.recordings.slicing).toBe("date_window");
    // An `auto` account probes the revision only for streams whose URLs differ, not their segment names.
    expect(
      Object.values(STREAMS)
        .filter((stream) => stream.revisionDependent)
        .map((stream) => stream.name)
        .sort(),
    ).toEqual(["cdrs", "numbers", "transcriptions"]);
    expect(STREAMS.sip_trunks.answer.kind).toBe("pages");
  });
});
