import { sql } from "kysely";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { runAt, sandboxConfig, setSandboxClock } from "./pipeline-harness.js";

it.override({ sandboxOptions: { seed: 17, start: "2026-06-01", days: 3, accounts: 1, callsPerDay: 60 } });

/** When each landing table was last analyzed by hand (`ANALYZE`, not autovacuum), null when never. */
async function lastAnalyzed(warehouse: Warehouse): Promise<Map<string, number | null>> {
  const found = await sql<{ table: string; at: Date | null }>`
    SELECT relname AS table, last_analyze AS at FROM pg_stat_user_tables WHERE schemaname = 'platform'`.execute(
    warehouse.db,
  );
  return new Map(found.rows.map((r) => [r.table, r.at === null ? null : r.at.getTime()]));
}

/**
 * After loading, a run refreshes the planner statistics of the landing tables it changed (so the
 * incremental marts' reads of the newest days are planned on figures that include them), and only
 * of those: a table no stream of the run wrote to keeps its statistics; of a table partitioned by
 * month, only the months written to.
 */
describe("planner statistics after a load", () => {
  it("a run ANALYZEs the landing tables it wrote rows to, and no other", async ({ sandbox, database }) => {
    const base = sandboxConfig(sandbox);
    const config = { ...base, accounts: base.accounts.map((a) => ({ ...a, streams: ["cdrs"] })) };
    await setSandboxClock(sandbox, "2026-06-03T06:00:00Z");
    const before = Date.now();
    const first = await runAt(database.warehouse, config, sandbox, { command: "run" });
    expect(first.streams.map((s) => s.inserted)).not.toContain(0);
    const afterFirst = await lastAnalyzed(database.warehouse);
    // platform.cdrs is partitioned by month: the month it wrote to is analyzed, not the parent
    // (which would sample every month) and not a month nobody wrote to.
    expect(afterFirst.get("cdrs_p2026_06")).toBeGreaterThanOrEqual(before - 1000);
    const otherMonths = [...afterFirst].filter(
      ([table]) => table.startsWith("cdrs_p") && table !== "cdrs_p2026_06",
    );
    expect(otherMonths.length).toBeGreaterThan(0);
    expect(otherMonths.filter(([, at]) => at !== null)).toEqual([]);
    expect(afterFirst.get("cdrs") ?? null).toBeNull();
    expect(afterFirst.get("short_link_metrics")).toBeNull();
    expect(afterFirst.get("messages")).toBeNull();

    // The same platform read again: no row changes, so no ANALYZE either.
    const second = await runAt(database.warehouse, config, sandbox, { command: "run" });
    const cdrs = second.streams.find((s) => s.stream === "cdrs");
    expect(cdrs?.inserted, JSON.stringify(cdrs)).toBe(0);
    expect(cdrs?.updated).toBe(0);
    expect((await lastAnalyzed(database.warehouse)).get("cdrs_p2026_06")).toBe(
      afterFirst.get("cdrs_p2026_06"),
    );
  });
});
