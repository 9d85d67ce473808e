import { connectWarehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import {
  capturingLogger,
  completedLabels,
  runAt,
  SAMPLE_STREAMS,
  sandboxConfig,
  truthRange,
  truthRecords,
} from "./pipeline-harness.js";
import { startPostgresFaultProxy } from "./postgres-fault-proxy.js";
import { expectedFromTruth, landedRows } from "./truth-oracle.js";

/**
 * Issue 18 item 10: a warehouse connection that stalls mid-load (a COPY whose data never reaches
 * the server, behind a proxy that stops forwarding) hung a run for 14 minutes. With a short
 * `load_statement_timeout_ms` the loader gives the statement up, closes that connection and loads
 * the window again on a new one, as for a dropped connection: the run ends on its own, exit 0,
 * and the warehouse equals the truth.
 */
const START = "2026-08-01";
it.override({
  sandboxOptions: {
    seed: 1810,
    start: START,
    days: 3,
    accounts: 1,
    callsPerDay: 40,
    now: "2026-08-03T12:00:00Z",
  },
});

describe("a stalled warehouse connection", () => {
  it("a COPY that stalls is given up after the statement timeout and its window loaded again on a new connection", async ({
    sandbox,
    createDatabase,
  }) => {
    const db = await createDatabase();
    // Stall the first COPY of the run (whichever window's it is); every later one passes.
    const proxy = await startPostgresFaultProxy(
      db.url,
      (text) => /^\s*COPY /i.test(text) && proxy.stalled === 0,
    );
    const warehouse = await connectWarehouse(proxy.url);
    try {
      const lines: string[] = [];
      const config = sandboxConfig(sandbox, { loadStatementTimeoutMs: 500 });
      const started = performance.now();
      const result = await runAt(
        warehouse,
        config,
        sandbox,
        { command: "run" },
        { log: capturingLogger(lines) },
      );
      const seconds = (performance.now() - started) / 1000;
      expect(result.exitCode, JSON.stringify(result.streams.map((s) => s.errors))).toBe(0);
      expect(proxy.stalled).toBe(1);
      const retried = lines.filter((line) => line.includes("a load statement timed out"));
      expect(retried, lines.join("\n").slice(-2000)).toHaveLength(1);
      // Without the timeout the run would wait forever; with it, the stall costs about the timeout.
      expect(seconds).toBeLessThan(60);
      for (const stream of SAMPLE_STREAMS) {
        const range = truthRange(stream, START, result.today);
        expect(await landedRows(db.warehouse, stream, "master"), stream).toEqual(
          expectedFromTruth(stream, await truthRecords(sandbox, stream, "master", range)),
        );
      }
      expect(await completedLabels(db.warehouse, "master", "cdrs")).toEqual(
        await completedLabels(db.warehouse, "master", "short_link_metrics"),
      );
    } finally {
      await warehouse.close();
      await proxy.close();
    }
  });

  it("a COPY that stalls on every attempt fails its window (exit 1) instead of hanging; the next run loads it", async ({
    sandbox,
    createDatabase,
  }) => {
    const db = await createDatabase();
    let stallEvery = true;
    const proxy = await startPostgresFaultProxy(
      db.url,
      (text) => stallEvery && /^\s*COPY /i.test(text) && /cdrs|_etl_stage/.test(text),
    );
    const warehouse = await connectWarehouse(proxy.url);
    try {
      const config = sandboxConfig(sandbox, { loadStatementTimeoutMs: 300 });
      const cdrsOnly = { ...config, accounts: config.accounts.map((a) => ({ ...a, streams: ["cdrs"] })) };
      const first = await runAt(warehouse, cdrsOnly, sandbox, { command: "run" });
      expect(first.exitCode).toBe(1);
      const cdrs = first.streams.find((s) => s.stream === "cdrs")!;
      expect(cdrs.windowsFailed).toBeGreaterThan(0);
      expect(cdrs.errors.join("\n")).toMatch(/did not finish within 300 ms \(load_statement_timeout_ms\)/);
      stallEvery = false;
      const second = await runAt(warehouse, cdrsOnly, sandbox, { command: "run" });
      expect(second.exitCode).toBe(0);
      expect(await landedRows(db.warehouse, "cdrs", "master")).toEqual(
        expectedFromTruth(
          "cdrs",
          await truthRecords(sandbox, "cdrs", "master", { from: START, to: second.today }),
        ),
      );
    } finally {
      await warehouse.close();
      await proxy.close();
    }
  });
});
