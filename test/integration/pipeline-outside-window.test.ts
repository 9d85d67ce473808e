import { sql } from "kysely";
import type { EtlConfig } from "../../src/config/config.js";
import { OUTSIDE_WINDOW } from "../../src/pipeline/extract/outside-window.js";
import { formatRunSummary } from "../../src/pipeline/run/format-summary.js";
import { listRejects } from "../../src/warehouse/state/rejects.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { startFaultProxy } from "./fault-proxy.js";
import {
  capturingLogger,
  completedLabels,
  expectedRows,
  loadedRows,
  runAt,
  sandboxConfig,
  truthRecords,
} from "./pipeline-harness.js";

/**
 * Issue 18 item 7: a platform whose day is shifted serves, for a window, rows of the day before.
 * Short-link clicks are replaced window by window, so such rows used to be dropped without a
 * word. Now they are counted, kept in etl.rejects with the reason, and the window is held (not
 * settled, exit 1) until the platform answers right; then the warehouse equals the truth.
 */
const START = "2026-08-01";
const SHIFTED_DAY = "2026-08-02";
const SHIFT_MS = 16 * 3_600_000;

/** `YYYY-MM-DD HH:MM:SS.sssZ` (the platform's short-link format) `ms` earlier. */
function earlier(text: string, ms: number): string {
  return new Date(Date.parse(text.replace(" ", "T")) - ms).toISOString().replace("T", " ");
}

describe("rows outside the requested window", () => {
  it("are counted, rejected with the reason and hold the window; once the platform is right, the warehouse equals the truth", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 27,
      start: START,
      days: 4,
      accounts: 1,
      callsPerDay: 120,
      now: "2026-08-06T06:00:00Z",
    });
    const shift = { on: true };
    // The platform dates one day's clicks 16 h early (its day shifted; this world's clicks come in the
    // afternoon): those of the day's first 16 h fall on the day before.
    const proxy = await startFaultProxy(
      sandbox.url,
      () => undefined,
      (url, body) => {
        if (!shift.on || url.pathname !== "/v1/short-links/metrics") return undefined;
        if (url.searchParams.get("from") !== SHIFTED_DAY) return undefined;
        const answer = body as { metrics: { created_at: string }[] };
        return {
          ...answer,
          metrics: answer.metrics.map((r) => ({ ...r, created_at: earlier(r.created_at, SHIFT_MS) })),
        };
      },
    );
    try {
      const db = await createDatabase();
      const base = sandboxConfig(sandbox, { baseUrl: proxy.url });
      const config: EtlConfig = {
        ...base,
        accounts: base.accounts.map((a) => ({ ...a, streams: ["short_link_metrics"] })),
      };
      const account = config.accounts[0]!.name;
      // The oracle: the day's clicks of its first 16 hours are served dated the day before.
      const day = await truthRecords(sandbox, "short_link_metrics", account, {
        from: SHIFTED_DAY,
        to: SHIFTED_DAY,
      });
      const early = day.filter(
        (r) => Date.parse(String(r.created_at).replace(" ", "T")) < Date.parse(`${SHIFTED_DAY}T16:00:00Z`),
      );
      expect(early.length).toBeGreaterThan(0);
      expect(early.length).toBeLessThan(day.length);

      const lines: string[] = [];
      const first = await runAt(
        db.warehouse,
        config,
        sandbox,
        { command: "run" },
        { log: capturingLogger(lines) },
      );
      expect(first.exitCode).toBe(1);
      const clicks = first.streams[0]!;
      expect(clicks.windowsHeld).toBe(1);
      expect(clicks.quality[OUTSIDE_WINDOW]).toBe(early.length);
      const held = `account ${account}, stream short_link_metrics, window ${SHIFTED_DAY}..2026-08-03: ${early.length} of ${day.length} rows the platform served for this window lie outside it`;
      expect(clicks.errors.join("\n")).toContain(held);
      // One error line says it (the per-window progress line repeats it at warn level, as for any failed window).
      expect(lines.filter((line) => line.includes(held) && line.includes('"level":50'))).toHaveLength(1);
      expect(formatRunSummary(first).join("\n")).toContain(
        `rows outside their requested window: ${early.length}`,
      );
      // Not settled; every other window is.
      const settled = await completedLabels(db.warehouse, account, "short_link_metrics");
      expect(settled).not.toContain(`${SHIFTED_DAY}..2026-08-03`);
      expect(settled).toContain("2026-08-01..2026-08-02");
      // Each of those rows is in etl.rejects, as served, with the reason.
      const rejects = await listRejects(db.warehouse.db, { stream: "short_link_metrics", limit: 1_000 });
      expect(rejects).toHaveLength(early.length);
      for (const reject of rejects) {
        expect(reject.slice).toBe(`${SHIFTED_DAY}..2026-08-03`);
        expect(reject.issues).toEqual([
          {
            path: "created_date",
            code: OUTSIDE_WINDOW,
            message: `created_date falls on 2026-08-01 (UTC), outside the requested window ${SHIFTED_DAY}..2026-08-03: is the platform's day shifted?`,
          },
        ]);
      }
      expect(rejects.map((r) => (r.raw as { created_at: string }).created_at).sort()).toEqual(
        early.map((r) => earlier(String(r.created_at), SHIFT_MS)).sort(),
      );
      const recorded = await sql<{ status: string; hold_reason: string; quality: unknown }>`
        SELECT status, hold_reason, quality FROM etl.run_slices WHERE slice = ${`${SHIFTED_DAY}..2026-08-03`}`.execute(
        db.warehouse.db,
      );
      expect(recorded.rows).toEqual([
        { status: "held", hold_reason: "outside_window", quality: { [OUTSIDE_WINDOW]: early.length } },
      ]);

      // The platform's day is right again: the held window is read again and equals the truth.
      shift.on = false;
      const second = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(second.exitCode, JSON.stringify(second.streams[0]?.errors)).toBe(0);
      expect(await loadedRows(db.warehouse, "short_link_metrics", account)).toEqual(
        await expectedRows(sandbox, "short_link_metrics", account, { from: START, to: second.today }),
      );
      expect(await completedLabels(db.warehouse, account, "short_link_metrics")).toContain(
        `${SHIFTED_DAY}..2026-08-03`,
      );
      expect(await listRejects(db.warehouse.db, { stream: "short_link_metrics", limit: 1_000 })).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
