import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { cdrSchema } from "@telecom-etl/platform/cdr.js";
import type { RunningSandbox, SandboxOptions } from "@telecom-etl/sandbox";
import { answered } from "../helpers/catalogue-schemas.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

/** `boot(options)`: a sandbox of the file's world with `options`, for this test only (closed after it). */
const it = fixtureTest.extend(
  "boot",
  ({ launchSandbox }) =>
    (options: SandboxOptions): Promise<RunningSandbox> =>
      launchSandbox({ seed: 21, days: 6, callsPerDay: 300, ...options }),
);

function call(sandbox: RunningSandbox, path: string, init: RequestInit = {}): Promise<Response> {
  const key = sandbox.world.accounts[0]!.apiKey;
  return fetch(`${sandbox.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}` } });
}

async function lines(sandbox: RunningSandbox, path: string): Promise<Record<string, unknown>[]> {
  const text = await (await fetch(`${sandbox.url}${path}`)).text();
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const canonical = (value: unknown) => JSON.stringify(value);

describe("sandbox faults", () => {
  it("injects request faults at the configured rates (±0.05 over 600 requests), reproducibly", async ({
    boot,
  }) => {
    const faults = { requests: { http500: 0.2, http429: 0.1, http503: 0.05 } };
    const statusesOf = async (sandbox: RunningSandbox) => {
      const statuses: number[] = [];
      for (let i = 0; i < 600; i++) {
        const page = 1 + (i % 30);
        const day = `2026-08-0${1 + (Math.floor(i / 30) % 6)}`;
        const type = i % 60 < 30 ? "placed" : "received";
        const res = await call(sandbox, `/v1/cdr?from=${day}&to=${day}&type=${type}&page=${page}&x=${i}`);
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      return statuses;
    };
    const a = await boot({ faults });
    const statuses = await statusesOf(a);
    const share = (status: number) => statuses.filter((s) => s === status).length / statuses.length;
    expect(Math.abs(share(500) - 0.2)).toBeLessThan(0.05);
    expect(Math.abs(share(429) - 0.1)).toBeLessThan(0.05);
    expect(Math.abs(share(503) - 0.05)).toBeLessThan(0.05);
    expect(Math.abs(share(200) - 0.65)).toBeLessThan(0.05);
    const b = await boot({ faults });
    expect(await statusesOf(b)).toEqual(statuses);
  });

  it("decides a retry of the same request afresh", async ({ boot }) => {
    const sandbox = await boot({ faults: { requests: { http503: 0.5 } } });
    const statuses = new Set<number>();
    for (let attempt = 0; attempt < 12; attempt++) {
      const res = await call(sandbox, "/v1/cdr?from=2026-08-02&to=2026-08-02&type=placed");
      await res.arrayBuffer();
      statuses.add(res.status);
    }
    expect(statuses).toEqual(new Set([200, 503]));
  });

  it("answers 429 with and without Retry-After, 502 as HTML, truncated JSON and resets", async ({ boot }) => {
    const probe = async (requests: Record<string, number>) => {
      const sandbox = await boot({ faults: { requests } });
      return call(sandbox, "/v1/cdr?from=2026-08-02&to=2026-08-02&type=placed");
    };
    const withHeader = await probe({ http429: 1 });
    expect(withHeader.status).toBe(429);
    expect(withHeader.headers.get("retry-after")).toBe("1");
    expect(await withHeader.json()).toEqual({ success: false, message: "Too Many Requests" });
    const without = await probe({ http429NoRetryAfter: 1 });
    expect(without.status).toBe(429);
    expect(without.headers.get("retry-after")).toBeNull();
    const bad = await probe({ http502: 1 });
    expect(bad.status).toBe(502);
    expect(bad.headers.get("content-type")).toBe("text/html");
    const truncated = await probe({ truncated: 1 });
    expect(truncated.status).toBe(200);
    const text = await truncated.text();
    expect(text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(text)).toThrow();
    await expect(probe({ reset: 1 }).then((res) => res.text())).rejects.toThrow();
  });

  it("hangs longer than a client timeout", async ({ boot }) => {
    const sandbox = await boot({ faults: { requests: { hang: 1 }, hangMs: 5000 } });
    const key = sandbox.world.accounts[0]!.apiKey;
    await expect(
      fetch(`${sandbox.url}/v1/billing/invoices`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(200),
      }),
    ).rejects.toThrow();
  });

  it("corrupts the same rows on every request and lists exactly them in /malformed", async ({ boot }) => {
    const sandbox = await boot({
      faults: { rows: { wrongType: 0.02, missingField: 0.02, unknownEnum: 0.02, extraField: 0.03 } },
    });
    const valid: Record<string, unknown>[] = [];
    const rejected: unknown[] = [];
    const extras: unknown[] = [];
    for (const type of ["placed", "received"]) {
      for (let page = 1; ; page++) {
        const path = `/v1/cdr?from=2026-08-03&to=2026-08-04&type=${type}&per_page=100&page=${page}`;
        const body = await (await call(sandbox, path)).text();
        expect(await (await call(sandbox, path)).text()).toBe(body);
        const parsed = answered(CATALOGUE.cdrs).parse(JSON.parse(body));
        for (const item of parsed.items) {
          const row = cdrSchema.safeParse(item);
          if (!row.success) rejected.push(item);
          else {
            valid.push({ ...(item as Record<string, unknown>), direction: type });
            if (Object.keys(item as object).some((k) => !(k in cdrSchema.shape))) extras.push(item);
          }
        }
        if (page >= parsed.pagination.total_pages) break;
      }
    }
    const malformed = await lines(
      sandbox,
      "/_sandbox/truth/cdrs/malformed?account=master&from=2026-08-03&to=2026-08-04",
    );
    expect(rejected.length).toBeGreaterThan(10);
    expect(extras.length).toBeGreaterThan(5);
    expect(
      malformed
        .filter((m) => m.rejected)
        .map((m) => canonical(m.raw))
        .sort(),
    ).toEqual(rejected.map(canonical).sort());
    expect(
      malformed
        .filter((m) => !m.rejected)
        .map((m) => canonical(m.raw))
        .sort(),
    ).toEqual(extras.map(canonical).sort());
    const truth = await lines(sandbox, "/_sandbox/truth/cdrs?account=master&from=2026-08-03&to=2026-08-04");
    expect(truth.map(canonical).sort()).toEqual(valid.map(canonical).sort());
  });

  it("repeats a row on the next page (and skips one) or serves a short page", async ({ boot }) => {
    const path = (page: number) =>
      `/v1/cdr?from=2026-08-02&to=2026-08-02&type=placed&per_page=20&page=${page}`;
    const clean = await boot({});
    const page1 = answered(CATALOGUE.cdrs).parse(await (await call(clean, path(1))).json());
    const shifted = await boot({ faults: { pages: { duplicateRow: 1 } } });
    const page2 = answered(CATALOGUE.cdrs).parse(await (await call(shifted, path(2))).json());
    expect(page2.items[0]).toEqual(page1.items[19]);
    expect(page2.items).toHaveLength(20);
    const short = await boot({ faults: { pages: { shortPage: 1 } } });
    const shortPage = answered(CATALOGUE.cdrs).parse(await (await call(short, path(1))).json());
    expect(shortPage.items.length).toBeLessThan(20);
    expect(shortPage.items.length).toBeGreaterThan(15);
    expect(shortPage.pagination).toEqual(page1.pagination);
  });

  it("applies per-route overrides and swaps profiles at run time", async ({ boot }) => {
    const sandbox = await boot({
      faults: { routes: { "GET /v1/billing/invoices": { requests: { http503: 1 } } } },
    });
    expect((await call(sandbox, "/v1/billing/invoices")).status).toBe(503);
    expect((await call(sandbox, "/v1/cdr?from=2026-08-02&to=2026-08-02&type=placed")).status).toBe(200);
    const swapped = await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: "POST",
      body: '{"profile":"none"}',
    });
    expect(((await swapped.json()) as { name: string }).name).toBe("none");
    expect((await call(sandbox, "/v1/billing/invoices")).status).toBe(200);
    const refused = await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: "POST",
      body: '{"requests":{"http500":2}}',
    });
    expect(refused.status).toBe(422);
  });

  it("rate-limits each API key with a token bucket answering 429 with Retry-After", async ({ boot }) => {
    const sandbox = await boot({ rateLimit: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await call(sandbox, "/v1/billing/invoices");
      await res.arrayBuffer();
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses).toContain(429);
    const other = await fetch(`${sandbox.url}/v1/billing/invoices`, {
      headers: { authorization: `Bearer ${sandbox.world.accounts[1]!.apiKey}` },
    });
    expect(other.status).toBe(200);
  });
});
