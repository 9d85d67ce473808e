import type { StreamStatus } from "../../src/warehouse/state/stream-status.js";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { FaultRule } from "./fault-proxy.js";
import {
  completedLabels,
  expectedRows,
  loadedRows,
  runAt,
  sandboxConfig,
  setSandboxClock,
} from "./pipeline-harness.js";

/**
 * Answers 503 to every CDR request whose window starts on `failing.date` (the sandbox's faults are
 * per route, not per date). Set `failing.date` to null to heal it.
 */
function failingWindow(failing: { date: string | null }): FaultRule {
  return (url) =>
    (url.pathname === "/v1/cdr" || url.pathname === "/v1/cdrs") &&
    failing.date !== null &&
    url.searchParams.get("from") === failing.date
      ? { status: 503, body: { success: false, message: "Service temporarily unavailable" } }
      : undefined;
}

/** Issue 4, test 3: a middle window that keeps failing never blocks later windows nor hides. */
const failing: { date: string | null } = { date: "2026-08-05" };
it.override({
  sandboxOptions: {
    seed: 5,
    start: "2026-08-01",
    days: 12,
    accounts: 1,
    callsPerDay: 120,
    now: "2026-08-10T06:00:00Z",
  },
});
it.override("faultRule", () => failingWindow(failing));

describe("a middle window that keeps failing", () => {
  it("later windows complete, status shows the failure, the next run loads it plus the unsettled windows", async ({
    rig,
  }) => {
    const { sandbox, db } = rig;
    const config = sandboxConfig(sandbox, {
      baseUrl: rig.apiUrl,
      retry: { maxAttempts: 2, maxTotalWaitMs: 2_000 },
    });
    const account = config.accounts[0]!.name;

    const first = await runAt(db.warehouse, config, sandbox, { command: "run", streams: ["cdrs"] });
    expect(first.exitCode).toBe(1);
    const cdrs = first.streams[0]!;
    expect(cdrs.status).toBe("failed");
    expect(cdrs.windowsFailed).toBe(1);
    expect(cdrs.errors.join(" ")).toMatch(/2026-08-05\.\.2026-08-06: .*503/);
    // Read on 2026-08-10 06:00: the windows ending by 2026-08-07 06:00 are settled, except the
    // failing one; the later, unsettled windows are loaded and stay open.
    expect(await completedLabels(db.warehouse, account, "cdrs")).toEqual([
      "2026-08-01..2026-08-02",
      "2026-08-02..2026-08-03",
      "2026-08-03..2026-08-04",
      "2026-08-04..2026-08-05",
      "2026-08-06..2026-08-07",
    ]);

    // `status` (the CLI, on the same database) names the failed window and its error.
    const env = { DATABASE_URL: db.url, TELECOM_API_URL: sandbox.url, TELECOM_API_KEY: "unused" };
    const json = await runCli(["status", "--json"], { env });
    expect(json.code, json.stderr).toBe(0);
    const status = (JSON.parse(json.stdout) as StreamStatus[]).find(
      (s) => s.account === account && s.stream === "cdrs",
    )!;
    expect(status.completedThrough).toBe("2026-08-04");
    expect(status.lastCompleted).toBe("2026-08-06");
    expect(status.gaps).toEqual([{ start: "2026-08-05", end: "2026-08-06" }]);
    expect(status.failedWindows.map((w) => w.slice)).toEqual(["2026-08-05..2026-08-06"]);
    expect(status.failedWindows[0]?.error).toContain("503");
    const text = await runCli(["status"], { env });
    expect(text.stdout).toMatch(/failed 2026-08-05\.\.2026-08-06 in run \d+: .*503/);

    // Still failing the next night: it is retried first, then every unsettled window and today.
    await setSandboxClock(sandbox, "2026-08-11T06:00:00Z");
    const second = await runAt(db.warehouse, config, sandbox, { command: "run", streams: ["cdrs"] });
    expect(second.exitCode).toBe(1);
    const attempted = await db.warehouse.db
      .selectFrom("etl.run_slices")
      .select(["slice", "status"])
      .where("run_id", "=", second.runId)
      .orderBy("slice")
      .execute();
    expect(attempted).toEqual([
      { slice: "2026-08-05..2026-08-06", status: "failed" },
      { slice: "2026-08-07..2026-08-08", status: "succeeded" },
      { slice: "2026-08-08..2026-08-09", status: "succeeded" },
      { slice: "2026-08-09..2026-08-10", status: "succeeded" },
      { slice: "2026-08-10..2026-08-11", status: "succeeded" },
      { slice: "2026-08-11..2026-08-12", status: "succeeded" },
    ]);

    // Healed: the window loads, completes, and the table equals the truth.
    failing.date = null;
    await setSandboxClock(sandbox, "2026-08-12T06:00:00Z");
    const third = await runAt(db.warehouse, config, sandbox, { command: "run", streams: ["cdrs"] });
    expect(third.exitCode).toBe(0);
    expect(third.streams[0]!.windowsPlanned).toBe(6);
    expect(await completedLabels(db.warehouse, account, "cdrs")).toContain("2026-08-05..2026-08-06");
    expect(await loadedRows(db.warehouse, "cdrs", account)).toEqual(
      await expectedRows(sandbox, "cdrs", account, { from: "2026-08-01", to: "2026-08-12" }),
    );
    const after = (JSON.parse((await runCli(["status", "--json"], { env })).stdout) as StreamStatus[]).find(
      (s) => s.account === account && s.stream === "cdrs",
    )!;
    expect(after.failedWindows).toEqual([]);
    expect(after.completedThrough).toBe("2026-08-08");
  });
});
