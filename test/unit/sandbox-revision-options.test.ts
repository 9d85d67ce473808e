import { API_REVISIONS } from "@telecom-etl/platform/api-revision.js";
import { PLATFORM_ROUTES, routesOf } from "@telecom-etl/platform/permissions.js";
import { Router } from "@telecom-etl/sandbox/http/router.js";
import { PLATFORM_HANDLERS } from "@telecom-etl/sandbox/routes/platform-handlers.js";
import { resolveSandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import { describe, expect, it } from "vitest";

describe("sandbox API revision options", () => {
  it("serves revision 2024 with every field by default", () => {
    expect(resolveSandboxOptions()).toMatchObject({ apiRevision: "2024", dropDeprecated: false });
    expect(resolveSandboxOptions({ apiRevision: "2026", dropDeprecated: true })).toMatchObject({
      apiRevision: "2026",
      dropDeprecated: true,
    });
  });

  it.each([
    [{ apiRevision: "2025" as "2024" }, /^apiRevision must be 2024 or 2026, got 2025$/],
    [{ dropDeprecated: true }, /^dropDeprecated needs API revision 2026$/],
    [{ apiRevision: "2024" as const, dropDeprecated: true }, /^dropDeprecated needs API revision 2026$/],
  ])("refuses %j with a message that starts with the option's name", (options, message) => {
    expect(() => resolveSandboxOptions(options)).toThrow(message);
  });
});

describe("sandbox clock skew option", () => {
  it("defaults to 0 and takes any integer, negative included", () => {
    expect(resolveSandboxOptions().clockSkewMs).toBe(0);
    expect(resolveSandboxOptions({ clockSkewMs: -90_000 }).clockSkewMs).toBe(-90_000);
    expect(() => resolveSandboxOptions({ clockSkewMs: 1.5 })).toThrow(/^clockSkewMs must be an integer/);
    expect(() => resolveSandboxOptions({ clockSkewMs: Number.NaN })).toThrow(
      /^clockSkewMs must be an integer/,
    );
  });
});

describe("PLATFORM_ROUTES per revision", () => {
  it("names at least one revision for every route and no route twice in a revision", () => {
    for (const route of PLATFORM_ROUTES) expect(route.revisions.length).toBeGreaterThan(0);
    for (const revision of API_REVISIONS) {
      const keys = routesOf(revision).map((r) => `${r.method} ${r.path.replace(/\{[a-z_]+\}/g, "{}")}`);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it("routes a request only to the routes of the router's revision", () => {
    const r2024 = new Router(PLATFORM_HANDLERS, "2024");
    const r2026 = new Router(PLATFORM_HANDLERS, "2026");
    const found = (router: Router, method: string, path: string) => {
      const match = router.match(method, path);
      return match.kind === "found" ? `${match.handler.method} ${match.handler.path}` : match.kind;
    };
    expect(found(r2024, "GET", "/v1/cdr")).toBe("GET /v1/cdr");
    expect(found(r2024, "GET", "/v1/cdrs")).toBe("not-found");
    expect(found(r2026, "GET", "/v1/cdrs")).toBe("GET /v1/cdrs");
    expect(found(r2026, "GET", "/v1/cdr")).toBe("not-found");
    expect(found(r2026, "GET", "/v1/cdr/abc")).toBe("not-found");
    expect(found(r2026, "PUT", "/v1/mydids/5")).toBe("not-found");
    expect(found(r2026, "PUT", "/v1/numbers/5")).toBe("PUT /v1/numbers/{id}");
    expect(found(r2024, "PUT", "/v1/numbers/5")).toBe("not-found");
    // Same URL in both revisions, under the parameter names of each.
    expect(found(r2024, "GET", "/v1/buy/countries/1/cities")).toBe("GET /v1/buy/countries/{country}/cities");
    expect(found(r2026, "GET", "/v1/buy/countries/1/cities")).toBe(
      "GET /v1/buy/countries/{country_id}/cities",
    );
    expect(found(r2026, "GET", "/v1/cdrs/abc/transcriptions")).toBe("GET /v1/cdrs/{call_id}/transcriptions");
    // One call's recording exists in both revisions (platform-facts.md), under each one's parameter name.
    expect(found(r2024, "GET", "/v1/recordings/abc")).toBe("GET /v1/recordings/{call_uuid}");
    expect(found(r2026, "GET", "/v1/recordings/abc")).toBe("GET /v1/recordings/{call_id}");
    expect(found(r2024, "GET", "/v1/recordings")).toBe("GET /v1/recordings");
    expect(found(r2026, "GET", "/v1/recordings")).toBe("GET /v1/recordings");
    expect(found(r2026, "GET", "/v1/cdrs/abc/retranscribe")).toBe("method-not-allowed");
  });

  it("refuses a revision route without a handler and a handler outside PLATFORM_ROUTES", () => {
    const withoutRecordings = PLATFORM_HANDLERS.filter((h) => h.path !== "/v1/recordings/{call_id}");
    expect(() => new Router(withoutRecordings, "2024")).not.toThrow();
    expect(() => new Router(withoutRecordings, "2026")).toThrow(
      /GET \/v1\/recordings\/\{call_id\} has no handler/,
    );
    const stray = [...PLATFORM_HANDLERS, { ...PLATFORM_HANDLERS[0]!, path: "/v9/nowhere" }];
    expect(() => new Router(stray, "2024")).toThrow(/not in PLATFORM_ROUTES/);
  });
});
