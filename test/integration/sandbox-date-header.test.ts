import { describe, expect } from "vitest";
import { admin, platform, sandboxTest } from "./sandbox-client.js";

/**
 * Every answer of the sandbox (platform routes, errors, faults, admin) carries a `Date` header
 * giving the sandbox clock (not the wall clock), plus `clockSkewMs`, so a client can read the
 * platform's time and notice a skew.
 */

const NOW = "2026-08-04T06:30:15Z";
const test = sandboxTest({
  fixed: { seed: 5, days: 4, callsPerDay: 40, now: NOW },
  skewed: { seed: 5, days: 4, callsPerDay: 40, now: NOW, clockSkewMs: -90_000, apiRevision: "2026" },
  real: { seed: 5, days: 4, callsPerDay: 40, now: "real" },
});

const httpDate = (iso: string) => new Date(iso).toUTCString();

describe("sandbox Date header", () => {
  test("tells the sandbox clock on platform answers, errors, faults and admin answers", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.fixed;
    const key = sandbox.world.accounts[0]!.apiKey;
    const answers = [
      await platform(sandbox, "/v1/cdr?from=2026-08-02&to=2026-08-02&type=placed"),
      await platform(sandbox, "/v1/billing/invoices", { key: null }),
      await platform(sandbox, "/v1/no-such-route"),
      await platform(sandbox, "/v1/cdr?from=2026-08-02&type=placed"),
      await platform(sandbox, "/v1/calls", { method: "POST", body: {} }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 404, 400, 400]);
    for (const answer of answers) expect(answer.headers.get("date")).toBe(httpDate(NOW));
    for (const path of ["/_sandbox/world", "/_sandbox/clock", "/_sandbox/stats", "/_sandbox/nothing"]) {
      expect((await fetch(`${sandbox.url}${path}`)).headers.get("date")).toBe(httpDate(NOW));
    }
    const truth = await fetch(`${sandbox.url}/_sandbox/truth/invoices?account=master`);
    expect(truth.headers.get("date")).toBe(httpDate(NOW));
    // A fault answer is the platform's too.
    await admin(sandbox, "/_sandbox/faults", { requests: { http503: 1 } });
    const failed = await fetch(`${sandbox.url}/v1/billing/invoices`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await admin(sandbox, "/_sandbox/faults", { profile: "none" });
    expect(failed.status).toBe(503);
    expect(failed.headers.get("date")).toBe(httpDate(NOW));
  });

  test("moves with POST /_sandbox/clock, the answer of the move included", async ({ sandboxes }) => {
    const sandbox = sandboxes.fixed;
    const moved = await fetch(`${sandbox.url}/_sandbox/clock`, {
      method: "POST",
      body: JSON.stringify({ advance: "PT6H" }),
    });
    expect(moved.headers.get("date")).toBe(httpDate("2026-08-04T12:30:15Z"));
    const answer = await platform(sandbox, "/v1/calls/webhooks");
    expect(answer.headers.get("date")).toBe(httpDate("2026-08-04T12:30:15Z"));
    await admin(sandbox, "/_sandbox/clock", { now: "2026-08-05T00:00:00.900Z" });
    // HTTP-dates have whole seconds.
    expect((await platform(sandbox, "/v1/calls/webhooks")).headers.get("date")).toBe(
      "Wed, 05 Aug 2026 00:00:00 GMT",
    );
    await admin(sandbox, "/_sandbox/clock", { now: NOW });
  });

  test("adds clockSkewMs to the clock it reports, and shows it in the world view", async ({ sandboxes }) => {
    const sandbox = sandboxes.skewed;
    const answer = await platform(sandbox, "/v1/cdrs?from=2026-08-02&to=2026-08-02&type=placed");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("date")).toBe(httpDate("2026-08-04T06:28:45Z"));
    const world = await fetch(`${sandbox.url}/_sandbox/world`);
    expect(world.headers.get("date")).toBe(httpDate("2026-08-04T06:28:45Z"));
    const view = (await world.json()) as { clock: { now: string }; clock_skew_ms: number };
    // The clock itself is not skewed: only what the Date header says.
    expect(view).toMatchObject({ clock: { now: "2026-08-04T06:30:15.000Z" }, clock_skew_ms: -90_000 });
  });

  test("follows a real clock, and the point it was moved to", async ({ sandboxes }) => {
    const sandbox = sandboxes.real;
    const near = (header: string | null, ms: number) => Math.abs(Date.parse(header ?? "") - ms) <= 2000;
    expect(near((await platform(sandbox, "/v1/calls/webhooks")).headers.get("date"), Date.now())).toBe(true);
    await admin(sandbox, "/_sandbox/clock", { now: "2030-01-01T00:00:00Z" });
    const later = await platform(sandbox, "/v1/calls/webhooks");
    expect(near(later.headers.get("date"), Date.parse("2030-01-01T00:00:00Z"))).toBe(true);
  });
});
