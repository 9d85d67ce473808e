import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { SCAFFOLDED_RESOURCE_NAMES } from "@telecom-etl/platform/scaffolded-resources.js";
import { describe, expect, it } from "vitest";
import { DEFAULT_RECOUNT, defaultFileSettings, loadConfig, redactedConfig } from "../../src/config/config.js";
import { settledDeletionHold } from "../../src/pipeline/holds/window-holds.js";
import { describeDifference, recountBudget, withinBudget } from "../../src/pipeline/plan/recount-windows.js";
import { formatRecountSummary } from "../../src/pipeline/run/format-summary.js";
import { recountOutcome } from "../../src/pipeline/run/run-outcome.js";
import type { PipelineResult } from "../../src/pipeline/run/run-pipeline.js";
import { newTally, type StreamSummary } from "../../src/pipeline/run/run-stream.js";
import { isRecounted, recountParts } from "../../src/streams/recount-parts.js";
import { STREAM_NAMES, STREAMS } from "../../src/streams/registry.js";

const context = {
  account: "acme",
  revision: "2026" as const,
  sources: {
    subAccounts: [],
    brandIds: undefined,
    validationTokens: [],
    numberCatalog: { countries: [], textEnabledOnly: false },
  },
  today: "2026-08-07",
};
const window = { start: "2026-08-02", end: "2026-08-03" };

describe("which streams the re-count checks", () => {
  it("every date-windowed list with a total, derived from the declarations; CDRs and messages per direction", () => {
    expect(STREAM_NAMES.filter((name) => isRecounted(STREAMS[name]))).toEqual([
      "cdrs",
      "short_link_metrics",
      "messages",
      "recordings",
      "transactions",
      // Every list `npm run scaffold:stream` added is a date-windowed list with a total.
      ...SCAFFOLDED_RESOURCE_NAMES,
    ]);
    const parts = (name: keyof typeof STREAMS) =>
      recountParts(STREAMS[name], window, context).map((p) => [p.part, p.columns, p.request.query]);
    expect(parts("cdrs")).toEqual([
      [
        "placed",
        { direction: "placed" },
        { from: "2026-08-02", to: "2026-08-02", type: "placed", disposition: "all" },
      ],
      [
        "received",
        { direction: "received" },
        { from: "2026-08-02", to: "2026-08-02", type: "received", disposition: "all" },
      ],
    ]);
    expect(parts("messages").map(([part, columns]) => [part, columns])).toEqual([
      ["inbound", { direction: "inbound" }],
      ["outbound", { direction: "outbound" }],
    ]);
    // A stream read with one request a window counts the window's rows of the account, whatever they imply.
    expect(parts("transactions")).toEqual([["", {}, { from_date: "2026-08-02", to_date: "2026-08-02" }]]);
    expect(parts("short_link_metrics")).toEqual([["", {}, { from: "2026-08-02", to: "2026-08-02" }]]);
  });
});

describe("the re-count's settings", () => {
  const env = { TELECOM_API_URL: "http://127.0.0.1:4010", TELECOM_API_KEY: "k-123456" };
  const file = async (text: string) => {
    const dir = await mkdtemp(path.join(tmpdir(), "recount-cfg-"));
    await writeFile(path.join(dir, "telecom-etl.yaml"), text);
    return path.join(dir, "telecom-etl.yaml");
  };

  it("are read from the file and shown by config show; a bad one is one line naming it", async () => {
    const config = await loadConfig(
      { file: await file("recount_days: 14\nrecount_max_requests: 20\n") },
      env,
    );
    expect(config.recount).toEqual({ days: 14, maxRequests: 20 });
    expect(redactedConfig(config)).toMatchObject({ recount_days: 14, recount_max_requests: 20 });
    const defaults = await loadConfig({}, env);
    expect(redactedConfig(defaults)).toMatchObject({
      recount_days: 35,
      recount_max_requests: "(derived: a week of runs re-counts every settled window of recount_days)",
    });
    const error = await loadConfig({ file: await file("recount_days: -1\n") }, env).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^config: recount_days: .*>=0/);
  });
});

describe("the re-count's budget", () => {
  it("by default lets a week of runs check every window of recount_days once, plus a day's new ones", () => {
    expect(defaultFileSettings().recount).toEqual({ days: 35, maxRequests: undefined });
    expect(DEFAULT_RECOUNT.days).toBe(35);
    // cdrs 2 + messages 2 + recordings + transactions + short_link_metrics = 7 requests a day.
    expect(recountBudget(DEFAULT_RECOUNT, 7, 1)).toBe(35 + 7);
    expect(7 * (recountBudget(DEFAULT_RECOUNT, 7, 1) - 7)).toBeGreaterThanOrEqual(35 * 7);
    expect(recountBudget(DEFAULT_RECOUNT, 2, 1)).toBe(12);
    expect(recountBudget(DEFAULT_RECOUNT, 2, 7)).toBe(2 + 2);
    expect(recountBudget({ days: 35, maxRequests: 5 }, 7, 1)).toBe(5);
  });

  it("takes the windows in their order while their requests fit", () => {
    const window = (name: string, requests: number) => ({ name, parts: Array.from({ length: requests }) });
    const candidates = [window("a", 2), window("b", 2), window("c", 1), window("d", 2), window("e", 1)];
    expect(withinBudget(candidates, 5).map((c) => c.name)).toEqual(["a", "b", "c"]);
    expect(withinBudget(candidates, 6).map((c) => c.name)).toEqual(["a", "b", "c", "e"]);
    expect(withinBudget(candidates, 0)).toEqual([]);
  });
});

describe("a deletion from a settled window", () => {
  const place = {
    account: "acme",
    stream: "cdrs",
    window: "2026-08-04..2026-08-05",
    windowStart: "2026-08-04",
  };

  it("is held whatever its share, beyond the rows the read rejected, until accepted", () => {
    expect(settledDeletionHold(place, { deleted: 1, rejected: 0, listed: 74 }, false)?.message).toBe(
      "account acme, stream cdrs, window 2026-08-04..2026-08-05: 1 row the warehouse holds in this settled window is no longer listed by the platform (it lists 74); held: the warehouse keeps its rows. A settled window's rows are deleted only when confirmed: if the platform really deleted them, run again with --accept-shrink acme/cdrs/2026-08-04",
    );
    expect(settledDeletionHold(place, { deleted: 49, rejected: 0, listed: 51 }, false)?.reason).toBe(
      "shrink",
    );
    expect(settledDeletionHold(place, { deleted: 2, rejected: 2, listed: 98 }, false)).toBeNull();
    expect(settledDeletionHold(place, { deleted: 0, rejected: 0, listed: 100 }, false)).toBeNull();
    expect(settledDeletionHold(place, { deleted: 49, rejected: 0, listed: 51 }, true)).toBeNull();
  });
});

function summary(stream: string, patch: Partial<StreamSummary> = {}): StreamSummary {
  return { ...newTally("acme", stream, 0), ...patch };
}

const differing = {
  window: "2026-08-02..2026-08-03",
  counts: [
    { part: "placed", platform: 153, warehouse: 100 },
    { part: "received", platform: 60, warehouse: 60 },
  ],
};

describe("a recount's outcome and summary", () => {
  it("exits 1 when a window differed or a re-count stopped, 0 when every window agreed", () => {
    const agreed = summary("cdrs", { recount: { windows: 5, requests: 10, differing: [] } });
    expect(recountOutcome([agreed], false)).toEqual({ exitCode: 0, status: "succeeded" });
    const found = summary("cdrs", { recount: { windows: 5, requests: 10, differing: [differing] } });
    expect(recountOutcome([agreed, found], false)).toEqual({ exitCode: 1, status: "partial" });
    const stopped = summary("cdrs", { recount: { windows: 1, requests: 2, differing: [], stopped: "…" } });
    expect(recountOutcome([stopped], false).exitCode).toBe(1);
    expect(recountOutcome([found], true).exitCode).toBe(130);
  });

  it("prints one line per window that differs, then the totals", () => {
    const result: PipelineResult = {
      runId: 9,
      runStartedAt: new Date("2026-08-07T00:00:00Z"),
      today: "2026-08-07",
      streams: [
        summary("cdrs", { recount: { windows: 5, requests: 10, differing: [differing] } }),
        summary("short_link_metrics", { recount: { windows: 5, requests: 5, differing: [] } }),
      ],
      budgets: [],
      exitCode: 1,
      status: "partial",
      notes: [],
    };
    expect(formatRecountSummary(result)).toEqual([
      "recount 9 (partial, exit 1), today 2026-08-07",
      "  differs: account acme, stream cdrs, window 2026-08-02..2026-08-03: the platform counts 153 rows (placed), the warehouse holds 100: opened again",
      "  10 settled window(s) checked against the platform's totals (15 request(s)): 1 differ, opened again: the next run (or a backfill of their days) reads them again",
    ]);
    expect(
      describeDifference("acme", "short_link_metrics", differing.window, [
        { part: "", platform: 3, warehouse: 4 },
      ]),
    ).toBe(
      "account acme, stream short_link_metrics, window 2026-08-02..2026-08-03: the platform counts 3 rows, the warehouse holds 4",
    );
  });
});

describe("a sub-account's ledger", () => {
  it("is counted with the request its reads send (the master's key, the sub-account's path)", () => {
    const parts = recountParts(STREAMS.transactions, window, {
      ...context,
      account: "acme-sub-42",
      subAccountId: 42,
    });
    expect(parts.map((p) => p.request.path)).toEqual(["/v1/sub-organizations/42/billing/transactions"]);
  });
});
