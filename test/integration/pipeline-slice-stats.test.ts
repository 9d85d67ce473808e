import { describe, expect, it } from "../helpers/fixtures.js";
import type { FaultRule } from "./fault-proxy.js";
import { runAt, sandboxConfig } from "./pipeline-harness.js";

/** A request the proxy fails once with `status` (the first time it is seen), then forwards. */
interface FailOnce {
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly status: 429 | 500;
}

/**
 * Fails the first sending of each listed request, then forwards everything; counts the requests it
 * saw per (path, window start) in `seen`, which is what the loader must record per slice.
 */
function failOnce(failures: readonly FailOnce[], seen: Map<string, number>): FaultRule {
  const failed = new Set<FailOnce>();
  return (url) => {
    const slice = `${url.pathname} ${url.searchParams.get("from")}`;
    seen.set(slice, (seen.get(slice) ?? 0) + 1);
    const failure = failures.find(
      (f) =>
        f.path === url.pathname &&
        Object.entries(f.params).every(([name, value]) => url.searchParams.get(name) === value),
    );
    if (failure === undefined || failed.has(failure)) return undefined;
    failed.add(failure);
    return {
      status: failure.status,
      body: { success: false, message: `injected ${failure.status}` },
      headers: failure.status === 429 ? { "retry-after": "0" } : undefined,
    };
  };
}

const seen = new Map<string, number>();
it.override({
  sandboxOptions: {
    seed: 11,
    start: "2026-08-01",
    days: 5,
    accounts: 1,
    callsPerDay: 150,
    now: "2026-08-05T06:00:00Z",
  },
});
it.override("faultRule", () =>
  failOnce(
    [
      { path: "/v1/short-links/metrics", params: { from: "2026-08-02", page: "1" }, status: 500 },
      { path: "/v1/cdr", params: { from: "2026-08-03", type: "placed", page: "1" }, status: 429 },
      { path: "/v1/cdr", params: { from: "2026-08-03", type: "received", page: "1" }, status: 500 },
    ],
    seen,
  ),
);

describe("per-slice request statistics", () => {
  it("records every request a slice sent and the retries among them (500 then 200: retries 1)", async ({
    rig,
  }) => {
    const { sandbox, db } = rig;
    const proxied = sandboxConfig(sandbox, { baseUrl: rig.apiUrl });
    const result = await runAt(db.warehouse, proxied, sandbox, {
      command: "backfill",
      streams: ["cdrs", "short_link_metrics"],
      from: "2026-08-01",
      to: "2026-08-03",
    });
    expect(result.exitCode).toBe(0);
    const slices = await db.warehouse.db
      .selectFrom("etl.run_slices")
      .select(["stream", "window_start", "requests", "retries", "status"])
      .where("run_id", "=", result.runId)
      .orderBy("stream")
      .orderBy("window_start")
      .execute();
    const retries = Object.fromEntries(slices.map((s) => [`${s.stream} ${s.window_start}`, s.retries]));
    expect(retries).toEqual({
      "cdrs 2026-08-01": 0,
      "cdrs 2026-08-02": 0,
      "cdrs 2026-08-03": 2,
      "short_link_metrics 2026-08-01": 0,
      "short_link_metrics 2026-08-02": 1,
      "short_link_metrics 2026-08-03": 0,
    });
    // Requests as recorded equal the requests the platform saw for each slice (retries included).
    const pathOf: Readonly<Record<string, string>> = {
      cdrs: "/v1/cdr",
      short_link_metrics: "/v1/short-links/metrics",
    };
    const recorded = Object.fromEntries(
      slices.map((s) => [`${pathOf[s.stream]} ${s.window_start}`, s.requests]),
    );
    // Besides the slices, the run asked once which API revision the platform serves (api_revision
    // auto: the 2026 CDR list for today, 404 on this 2024 sandbox); no slice counts that request.
    expect(seen.get("/v1/cdrs 2026-08-05")).toBe(1);
    seen.delete("/v1/cdrs 2026-08-05");
    expect(recorded).toEqual(Object.fromEntries(seen));
  });
});
