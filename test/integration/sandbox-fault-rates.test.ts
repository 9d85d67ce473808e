import { request } from "node:http";
import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { CDR_DISPOSITIONS, cdrSchema } from "@telecom-etl/platform/cdr.js";
import { invoiceSchema } from "@telecom-etl/platform/invoice.js";
import { shortLinkMetricSchema } from "@telecom-etl/platform/short-link-metric.js";
import type { RunningSandbox, SandboxOptions } from "@telecom-etl/sandbox";
import { BUILT_IN_PROFILES, type FaultProfile } from "@telecom-etl/sandbox/faults/fault-profile.js";
import { answered } from "../helpers/catalogue-schemas.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/**
 * Fault rates, observed from the client side. Tolerance: an observed share x of n trials with a
 * configured probability p must satisfy |x - p| <= 4 * sqrt(p (1 - p) / n) (four binomial standard
 * deviations). Decisions are seeded, so these tests are exactly reproducible; the bound says the
 * seeded coins behave like the stated probabilities.
 */
function withinBinomialBound(observed: number, n: number, p: number): void {
  const bound = 4 * Math.sqrt((p * (1 - p)) / n);
  expect({ share: observed / n, p, n }).toSatisfy(
    (v: { share: number }) => Math.abs(v.share - p) <= bound,
    `share ${observed}/${n} is not within ±${bound.toFixed(4)} of ${p}`,
  );
}

type Seen =
  | {
      kind: "answer";
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: Buffer;
      complete: boolean;
    }
  | { kind: "none" };

/** One GET over a fresh connection, keeping what arrived even when the connection breaks. */
function rawGet(
  sandbox: RunningSandbox,
  path: string,
  key = sandbox.world.accounts[0]!.apiKey,
): Promise<Seen> {
  return new Promise((resolve) => {
    const req = request(
      `${sandbox.url}${path}`,
      { agent: false, headers: { authorization: `Bearer ${key}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", () => undefined);
        res.on("close", () =>
          resolve({
            kind: "answer",
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            complete: res.complete,
          }),
        );
      },
    );
    req.on("error", () => resolve({ kind: "none" }));
    req.end();
  });
}

async function inParallel<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < count; i = next++) out[i] = await task(i);
    }),
  );
  return out;
}

describe("sandbox fault rates (4σ binomial bound)", () => {
  it("hostile: each request fault and each page fault occurs at its configured rate over 3,000 requests", async ({
    launchSandbox,
  }) => {
    const world: SandboxOptions = { seed: 31, days: 3, callsPerDay: 300 };
    const hostile = BUILT_IN_PROFILES.hostile;
    const sandbox = await launchSandbox({
      ...world,
      faults: { base: "hostile", hangMs: 0, latencySpikeMs: 0 },
    });
    // The same rows, corrupted the same way (row faults depend on the row only), without request or page faults.
    const clean = await launchSandbox({ ...world, faults: { rows: hostile.rows } });
    // Full middle pages of two windows, so a page can be shifted (page > 1) and shortened.
    const windows: string[] = [];
    for (const type of ["placed", "received"]) {
      const base = `/v1/cdr?from=2026-08-02&to=2026-08-02&type=${type}&per_page=20`;
      const first = answered(CATALOGUE.cdrs).parse(
        await (
          await fetch(`${clean.url}${base}`, {
            headers: { authorization: `Bearer ${clean.world.accounts[0]!.apiKey}` },
          })
        ).json(),
      );
      for (let page = 2; page < first.pagination.total_pages; page++) windows.push(`${base}&page=${page}`);
    }
    expect(windows.length).toBeGreaterThan(6);
    const cleanPages = new Map<string, unknown[]>();
    const cleanOf = async (path: string) => {
      let rows = cleanPages.get(path);
      if (!rows) {
        const seen = await rawGet(clean, path);
        rows = seen.kind === "answer" ? (JSON.parse(seen.body.toString()) as { items: unknown[] }).items : [];
        cleanPages.set(path, rows);
      }
      return rows;
    };
    const previousLast = async (path: string) => {
      const page = Number(/page=(\d+)$/.exec(path)![1]);
      return (await cleanOf(path.replace(/page=\d+$/, `page=${page - 1}`))).at(-1);
    };
    const N = 3000;
    const outcomes = await inParallel(N, 6, async (i) => {
      const path = windows[i % windows.length]!;
      const seen = await rawGet(sandbox, `${path}&n=${i}`);
      if (seen.kind === "none") return "hang";
      const { status, headers, body, complete } = seen;
      if (status === 429) return headers["retry-after"] === undefined ? "http429NoRetryAfter" : "http429";
      if (status === 502) {
        expect(headers["content-type"]).toBe("text/html");
        return "http502";
      }
      if (status !== 200) return `http${status}`;
      if (!complete) return "reset:page";
      let items: unknown[];
      try {
        items = (JSON.parse(body.toString()) as { items: unknown[] }).items;
      } catch {
        expect(body.length).toBe(Number(headers["content-length"]));
        return "truncated:page";
      }
      const expected = await cleanOf(path);
      if (JSON.stringify(items) === JSON.stringify(expected)) return "page";
      if (JSON.stringify(items) === JSON.stringify([await previousLast(path), ...expected.slice(0, -1)]))
        return "duplicateRow";
      expect(items.length).toBeLessThan(expected.length);
      expect(items.length).toBeGreaterThanOrEqual(expected.length - 3);
      expect(items).toEqual(expected.slice(0, items.length));
      return "shortPage";
    });
    const count = (kind: string) => outcomes.filter((o) => o === kind).length;
    for (const fault of [
      "http429",
      "http429NoRetryAfter",
      "http500",
      "http502",
      "http503",
      "hang",
    ] as const) {
      withinBinomialBound(count(fault), N, hostile.requests[fault]);
    }
    withinBinomialBound(count("reset:page"), N, hostile.requests.reset);
    withinBinomialBound(count("truncated:page"), N, hostile.requests.truncated);
    // Latency spikes are invisible at 0 ms; the sandbox counts them where it decides them.
    const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
      faults: Record<string, number>;
    };
    withinBinomialBound(stats.faults.latencySpike ?? 0, N, hostile.requests.latencySpike);
    // Page faults: per page served intact.
    const served = count("page") + count("duplicateRow") + count("shortPage");
    withinBinomialBound(count("duplicateRow"), served, hostile.pages.duplicateRow);
    withinBinomialBound(count("shortPage"), served, hostile.pages.shortPage);
    expect(stats.faults.duplicateRow).toBeGreaterThanOrEqual(count("duplicateRow"));
  });

  it("a latency spike delays the answer by at least latencySpikeMs", async ({ launchSandbox }) => {
    const sandbox = await launchSandbox({
      seed: 31,
      days: 2,
      callsPerDay: 50,
      faults: { requests: { latencySpike: 1 }, latencySpikeMs: 300 },
    });
    const started = performance.now();
    const seen = await rawGet(sandbox, "/v1/billing/invoices");
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    expect(seen.kind === "answer" && seen.status).toBe(200);
  });

  it("row faults: every served row is checked with the platform schemas; the failing rows are exactly /malformed's, the valid ones exactly the truth, at the configured rates", async ({
    launchSandbox,
  }) => {
    const faults = { rows: { wrongType: 0.05, missingField: 0.05, unknownEnum: 0.05, extraField: 0.1 } };
    const sandbox = await launchSandbox({
      seed: 37,
      days: 92,
      callsPerDay: 40,
      accounts: 6,
      now: "2026-11-01T12:00:00Z",
      faults,
    });
    const profileRows = faults.rows as FaultProfile["rows"];
    const streams = [
      { stream: "cdrs", schema: cdrSchema, field: "items" },
      { stream: "short_link_metrics", schema: shortLinkMetricSchema, field: "metrics" },
      { stream: "invoices", schema: invoiceSchema, field: "invoices" },
    ] as const;
    const kindCounts = new Map<string, Map<string, number>>();
    const rowCounts = new Map<string, number>();
    for (const account of sandbox.world.accounts) {
      for (const { stream, schema, field } of streams) {
        const paths =
          stream === "cdrs"
            ? ["placed", "received"].map((t) => `/v1/cdr?from=2026-08-01&to=2026-10-31&type=${t}`)
            : stream === "short_link_metrics"
              ? ["/v1/short-links/metrics?from=2026-08-01&to=2026-10-31"]
              : ["/v1/billing/invoices?x=1"];
        const failing: string[] = [];
        const extras: string[] = [];
        const valid: string[] = [];
        let rows = 0;
        for (const base of paths) {
          const direction = /type=(\w+)/.exec(base)?.[1];
          for (let page = 1; ; page++) {
            const seen = await rawGet(sandbox, `${base}&per_page=100&page=${page}`, account.apiKey);
            if (seen.kind !== "answer") throw new Error("no answer without request faults");
            const parsed = JSON.parse(seen.body.toString()) as Record<string, unknown[]> & {
              pagination: { total_pages: number };
            };
            // Row text exactly as served: re-serialising a parsed row keeps key order and values.
            for (const item of parsed[field]!) {
              rows += 1;
              const text = JSON.stringify(item);
              const result = schema.safeParse(item);
              if (!result.success) failing.push(text);
              else {
                if (Object.keys(item as object).some((k) => !(k in schema.shape))) extras.push(text);
                valid.push(JSON.stringify(direction ? { ...(item as object), direction } : item));
              }
            }
            if (page >= parsed.pagination.total_pages) break;
          }
        }
        const malformed = (
          await (
            await fetch(
              `${sandbox.url}/_sandbox/truth/${stream}/malformed?account=${account.name}&from=2026-08-01&to=2026-10-31`,
            )
          ).text()
        )
          .split("\n")
          .filter((l) => l !== "")
          .map(
            (l) =>
              JSON.parse(l) as {
                stream: string;
                kind: string;
                rejected: boolean;
                raw: Record<string, unknown>;
              },
          );
        expect(malformed.every((m) => m.stream === stream)).toBe(true);
        // The truth holds exactly the valid rows (extra fields included), as served.
        const truth = (
          await (
            await fetch(
              `${sandbox.url}/_sandbox/truth/${stream}?account=${account.name}&from=2026-08-01&to=2026-10-31`,
            )
          ).text()
        )
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.stringify(JSON.parse(l)));
        expect(truth.sort()).toEqual(valid.sort());
        expect(
          malformed
            .filter((m) => m.rejected)
            .map((m) => JSON.stringify(m.raw))
            .sort(),
        ).toEqual(failing.sort());
        expect(
          malformed
            .filter((m) => !m.rejected)
            .map((m) => JSON.stringify(m.raw))
            .sort(),
        ).toEqual(extras.sort());
        for (const m of malformed) {
          expect(m.rejected).toBe(m.kind !== "extra_field");
          if (stream === "cdrs") {
            const raw = m.raw;
            if (m.kind === "wrong_type") expect(typeof raw.duration).toBe("string");
            if (m.kind === "missing_field")
              expect(["uuid", "disposition", "from"].filter((k) => !(k in raw))).toHaveLength(1);
            if (m.kind === "unknown_enum") expect(CDR_DISPOSITIONS).not.toContain(raw.disposition);
          }
          const kinds = kindCounts.get(stream) ?? new Map<string, number>();
          kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + 1);
          kindCounts.set(stream, kinds);
        }
        rowCounts.set(stream, (rowCounts.get(stream) ?? 0) + rows);
      }
    }
    expect(rowCounts.get("cdrs")).toBeGreaterThan(20_000);
    expect(rowCounts.get("short_link_metrics")).toBeGreaterThan(1_500);
    expect(kindCounts.get("invoices")?.size ?? 0).toBeGreaterThan(0);
    const names = {
      wrong_type: "wrongType",
      missing_field: "missingField",
      unknown_enum: "unknownEnum",
      extra_field: "extraField",
    } as const;
    for (const stream of ["cdrs", "short_link_metrics"]) {
      for (const [kind, fault] of Object.entries(names)) {
        withinBinomialBound(
          kindCounts.get(stream)?.get(kind) ?? 0,
          rowCounts.get(stream)!,
          profileRows[fault],
        );
      }
    }
  });
});
