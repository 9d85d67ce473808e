import type { EtlConfig } from "../../src/config/config.js";
import { ROWS_BEYOND_TOTAL } from "../../src/pipeline/extract/extract-slice.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { startFaultProxy } from "./fault-proxy.js";
import { completedLabels, expectedRows, loadedRows, runAt, sandboxConfig } from "./pipeline-harness.js";

/**
 * Issue 18 item 1: a platform that under-reports `pagination.total` on a page boundary (the true
 * total lowered to 100, one page of 100, so `total_pages` 1) used to end the list after page 1:
 * 100 = total, the window settled, the rest of its CDRs lost for good. A list now ends only on a
 * short or empty page: the loader reads on, loads every row and counts those beyond the total.
 */
const START = "2026-08-01";
const FAULTY_DAY = "2026-08-02";

describe("a total under-reported on a page boundary", () => {
  it("reads past it to the list's last page: the warehouse equals the truth, the window settles, the extra rows are counted", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 18,
      start: START,
      days: 4,
      accounts: 1,
      callsPerDay: 300,
      now: "2026-08-06T06:00:00Z",
    });
    // The placed CDRs of one day say there are 100 of them (one full page of 100), whatever the truth.
    const lowered: number[] = [];
    const proxy = await startFaultProxy(
      sandbox.url,
      () => undefined,
      (url, body) => {
        const isCdrList = url.pathname === "/v1/cdr" || url.pathname === "/v1/cdrs";
        if (!isCdrList || url.searchParams.get("from") !== FAULTY_DAY) return undefined;
        if (url.searchParams.get("type") !== "placed") return undefined;
        const answer = body as { pagination: { total: number; total_pages: number; per_page: number } };
        if (answer.pagination.total <= 100) return undefined;
        if (url.searchParams.get("page") === "1") lowered.push(answer.pagination.total);
        return { ...answer, pagination: { ...answer.pagination, total: 100, total_pages: 1 } };
      },
    );
    try {
      const db = await createDatabase();
      const base = sandboxConfig(sandbox, { baseUrl: proxy.url });
      expect(base.perPage).toBe(100);
      const config: EtlConfig = {
        ...base,
        accounts: base.accounts.map((a) => ({ ...a, streams: ["cdrs"] })),
      };
      const account = config.accounts[0]!.name;
      const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(result.exitCode, JSON.stringify(result.streams.map((s) => s.errors))).toBe(0);
      // The fault was served: the day's placed CDRs really are more than one page.
      expect(lowered.length).toBeGreaterThan(0);
      const trueTotal = lowered[0]!;
      expect(trueTotal).toBeGreaterThan(100);

      expect(await loadedRows(db.warehouse, "cdrs", account)).toEqual(
        await expectedRows(sandbox, "cdrs", account, { from: START, to: result.today }),
      );
      expect(await completedLabels(db.warehouse, account, "cdrs")).toContain(`${FAULTY_DAY}..2026-08-03`);
      const cdrs = result.streams[0]!;
      expect(cdrs.quality[ROWS_BEYOND_TOTAL]).toBe(trueTotal - 100);
      const recorded = await db.warehouse.db
        .selectFrom("etl.run_slices")
        .select(["slice", "quality"])
        .where("quality", "is not", null)
        .execute();
      expect(recorded).toEqual([
        { slice: `${FAULTY_DAY}..2026-08-03`, quality: { [ROWS_BEYOND_TOTAL]: trueTotal - 100 } },
      ]);
    } finally {
      await proxy.close();
    }
  });
});
