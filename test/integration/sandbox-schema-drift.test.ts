import { cdrSchema } from "@telecom-etl/platform/cdr.js";
import { invoiceSchema } from "@telecom-etl/platform/invoice.js";
import { shortLinkMetricSchema } from "@telecom-etl/platform/short-link-metric.js";
import { describe, expect } from "vitest";
import {
  admin,
  faultCount,
  type Malformed,
  ndjson,
  ndjsonLines,
  platform,
  sandboxTest,
  servedCdrs,
} from "./sandbox-client.js";

/**
 * Schema drift (a platform that renamed, dropped or retyped a field) over HTTP: every served row of
 * the stream drifts (every account), the truth holds only the rows still valid for the platform's
 * schema, `/malformed` lists the drifted ones (`rejected` by that schema), the stats count them, and
 * a profile swap turns drift on and off at run time.
 */

const WORLD = { seed: 41, days: 4, callsPerDay: 120, accounts: 2, now: "2026-08-05T00:00:00Z" } as const;
const RENAME_UUID = { drift: [{ stream: "cdrs", field: "uuid", change: "rename", to: "call_uuid" }] };
const test = sandboxTest({
  v2024: { ...WORLD, faults: RENAME_UUID },
  v2026: { ...WORLD, apiRevision: "2026", faults: RENAME_UUID },
  // A month later, so August's invoice is issued.
  swap: { ...WORLD, now: "2026-09-02T00:00:00Z" },
});
const RANGE = "from=2026-08-02&to=2026-08-03";

describe("sandbox schema drift", () => {
  test("2024: renaming uuid makes every CDR of every account invalid; truth empty, /malformed lists them all", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.v2024;
    for (const [index, account] of sandbox.world.accounts.entries()) {
      const before = await faultCount(sandbox, "row:drift");
      const served = await servedCdrs(sandbox, "/v1/cdr", RANGE, index);
      expect(served.length).toBeGreaterThan(50);
      expect(await faultCount(sandbox, "row:drift")).toBe(before + served.length);
      for (const line of served) {
        const row = JSON.parse(line) as Record<string, unknown>;
        expect(row).not.toHaveProperty("uuid");
        expect(Object.keys(row).indexOf("call_uuid")).toBe(Object.keys(row).indexOf("parent_uuid") - 1);
        expect(cdrSchema.safeParse(row).success).toBe(false);
      }
      const query = `account=${account.name}&${RANGE}`;
      expect(await ndjsonLines(sandbox, `/_sandbox/truth/cdrs?${query}`)).toEqual([]);
      const malformed = await ndjson<Malformed>(sandbox, `/_sandbox/truth/cdrs/malformed?${query}`);
      expect(malformed.every((m) => m.kind === "drift" && m.rejected && m.stream === "cdrs")).toBe(true);
      expect(
        malformed.map((m) => `${JSON.stringify(m.raw).slice(0, -1)},"direction":"${m.direction}"}`).sort(),
      ).toEqual([...served].sort());
    }
    // Other streams are not touched.
    expect(await ndjson(sandbox, "/_sandbox/truth/invoices/malformed?account=master")).toEqual([]);
  });

  test("2026: renaming uuid leaves call_id, so every row stays valid with an unknown field, in the truth as served", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.v2026;
    const served = await servedCdrs(sandbox, "/v1/cdrs", RANGE);
    const truth = await ndjsonLines(sandbox, `/_sandbox/truth/cdrs?account=master&${RANGE}`);
    expect(truth.sort()).toEqual([...served].sort());
    for (const line of truth) {
      const parsed = cdrSchema.parse(JSON.parse(line));
      expect(parsed.call_uuid).toBe(parsed.call_id);
      expect(parsed).not.toHaveProperty("uuid");
    }
    const malformed = await ndjson<Malformed>(
      sandbox,
      `/_sandbox/truth/cdrs/malformed?account=master&${RANGE}`,
    );
    expect(malformed).toHaveLength(served.length);
    expect(malformed.every((m) => m.kind === "drift" && !m.rejected)).toBe(true);
  });

  test("swaps drift in and out at run time through POST /_sandbox/faults, for every list stream", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.swap;
    const clean = await servedCdrs(sandbox, "/v1/cdr", RANGE);
    const drift = [
      { stream: "cdrs", field: "duration", change: "stringify" },
      { stream: "cdrs", field: "destination", change: "nullify" },
      { stream: "short_link_metrics", field: "latitude", change: "stringify" },
      { stream: "invoices", field: "amount", change: "rename", to: "total" },
    ];
    const profile = await admin<{ drift: unknown[]; rows: Record<string, number> }>(
      sandbox,
      "/_sandbox/faults",
      {
        drift,
      },
    );
    expect(profile.drift).toEqual(drift);
    expect((await admin<{ drift: unknown[] }>(sandbox, "/_sandbox/faults")).drift).toEqual(drift);
    const drifted = await servedCdrs(sandbox, "/v1/cdr", RANGE);
    expect(drifted).toHaveLength(clean.length);
    drifted.forEach((line, i) => {
      const row = JSON.parse(line) as Record<string, unknown>;
      const was = JSON.parse(clean[i]!) as Record<string, unknown>;
      expect(row).toEqual({ ...was, duration: String(was.duration), destination: null });
    });
    expect(await ndjsonLines(sandbox, `/_sandbox/truth/cdrs?account=master&${RANGE}`)).toEqual([]);
    const metrics = await platform(sandbox, `/v1/short-links/metrics?${RANGE}&per_page=100`);
    const clicks = (metrics.body as { metrics: Record<string, unknown>[] }).metrics;
    expect(clicks.length).toBeGreaterThan(0);
    for (const click of clicks) {
      expect(typeof click.latitude).toBe("string");
      expect(shortLinkMetricSchema.safeParse(click).success).toBe(false);
    }
    const invoices = (await platform(sandbox, "/v1/billing/invoices")).body as {
      invoices: Record<string, unknown>[];
    };
    expect(invoices.invoices.length).toBeGreaterThan(0);
    for (const invoice of invoices.invoices) {
      expect(Object.keys(invoice)).toEqual(["id", "from_date", "to_date", "total"]);
      expect(invoiceSchema.safeParse(invoice).success).toBe(false);
    }
    const invoiceMalformed = await ndjson<Malformed>(
      sandbox,
      "/_sandbox/truth/invoices/malformed?account=master",
    );
    expect(invoiceMalformed.map((m) => m.raw)).toEqual(expect.arrayContaining(invoices.invoices));
    expect(invoiceMalformed.every((m) => m.kind === "drift" && m.rejected)).toBe(true);
    expect(await ndjsonLines(sandbox, "/_sandbox/truth/invoices?account=master")).toEqual([]);
    // Back to no faults: the same bytes as before.
    await admin(sandbox, "/_sandbox/faults", { profile: "none" });
    expect(await servedCdrs(sandbox, "/v1/cdr", RANGE)).toEqual(clean);
    const refused = await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: "POST",
      body: JSON.stringify({ drift: [{ stream: "cdrs", field: "uuid", change: "rename" }] }),
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { message: string }).message).toMatch(/^faults: drift\.0\.to: /);
  });
});
