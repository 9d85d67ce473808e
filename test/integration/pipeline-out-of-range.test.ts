import type { EtlConfig } from "../../src/config/config.js";
import { listRejects } from "../../src/warehouse/state/rejects.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { type FaultRule, startFaultProxy } from "./fault-proxy.js";
import { completedLabels, loadedRows, runAt, sandboxConfig, truthRecords } from "./pipeline-harness.js";
import { expectedFromTruth } from "./truth-oracle.js";

/**
 * Issue 32, item 11: one value that does not fit its landing column (an `integer` given
 * 3000000000, a numeric with more digits than PostgreSQL's numeric holds) used to fail the COPY,
 * and with it the whole window, on every run. Such a row is now a reject naming the column, the
 * value and the range; the rest of its window loads and settles.
 */
const START = "2026-08-01";
const DAY = "2026-08-02";
/** A charge with 131,073 digits before the point: one more than PostgreSQL's numeric holds. */
const HUGE_CHARGE = `1${"0".repeat(131_072)}`;

interface CdrItem {
  uuid?: string;
  call_id?: string;
  duration: number;
  charge: string | null;
}

describe("a value out of its column's range", () => {
  it("rejects only its row, with the column, the value and the range; the rest of the window loads and equals the truth", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 1132,
      start: START,
      days: 4,
      accounts: 1,
      callsPerDay: 300,
      now: "2026-08-06T06:00:00Z",
    });
    // The first two placed CDRs of page 1 of the day: one duration past int4, one charge past numeric.
    const spoiled = { duration: "", charge: "" };
    const rule: FaultRule = (url) => {
      const isCdrList = url.pathname === "/v1/cdr" || url.pathname === "/v1/cdrs";
      if (!isCdrList || url.searchParams.get("type") !== "placed") return undefined;
      if (url.searchParams.get("from") !== DAY || url.searchParams.get("page") !== "1") return undefined;
      return {
        rewrite: (body) => {
          const answer = body as { items: CdrItem[] };
          const [first, second] = answer.items;
          spoiled.duration = first!.call_id ?? first!.uuid!;
          spoiled.charge = second!.call_id ?? second!.uuid!;
          first!.duration = 3_000_000_000;
          second!.charge = HUGE_CHARGE;
          return answer;
        },
      };
    };
    const proxy = await startFaultProxy(sandbox.url, rule);
    try {
      const db = await createDatabase();
      const base = sandboxConfig(sandbox, { baseUrl: proxy.url });
      const config: EtlConfig = {
        ...base,
        accounts: base.accounts.map((a) => ({ ...a, streams: ["cdrs"] })),
      };
      const account = config.accounts[0]!.name;
      const result = await runAt(db.warehouse, config, sandbox, { command: "run" });
      // Exit 3: finished, a few rows quarantined (before: exit 1, the window failed on every run).
      expect(result.exitCode, result.streams[0]!.errors.join("\n")).toBe(3);
      expect(result.streams[0]!.windowsFailed).toBe(0);
      expect(spoiled.duration).not.toBe("");
      expect(await completedLabels(db.warehouse, account, "cdrs")).toContain(`${DAY}..2026-08-03`);

      const rejects = await listRejects(db.warehouse.db, { limit: 100 });
      const byUuid = new Map(rejects.map((r) => [(r.raw as CdrItem).call_id ?? (r.raw as CdrItem).uuid, r]));
      expect(rejects).toHaveLength(2);
      expect(byUuid.get(spoiled.duration)).toMatchObject({
        stream: "cdrs",
        slice: `${DAY}..2026-08-03`,
        implied: { direction: "placed" },
        raw: { duration: 3_000_000_000 },
        issues: [
          {
            path: "duration",
            code: "out_of_range",
            message: "3000000000 does not fit platform.cdrs.duration (integer: -2147483648 to 2147483647)",
          },
        ],
      });
      const charge = byUuid.get(spoiled.charge)!;
      expect((charge.raw as CdrItem).charge).toBe(HUGE_CHARGE);
      expect(charge.issues).toEqual([
        {
          path: "charge",
          code: "out_of_range",
          message:
            `"1${"0".repeat(58)}… (131075 characters) does not fit platform.cdrs.charge ` +
            "(numeric: at most 131072 digits before the decimal point and 16383 after)",
        },
      ]);

      // Every other CDR, placed and received, of every day: exactly the truth.
      const truth = await truthRecords(sandbox, "cdrs", account, { from: START, to: result.today });
      const kept = truth.filter(
        (r) =>
          !(
            r.direction === "placed" &&
            [spoiled.duration, spoiled.charge].includes(String(r.call_id ?? r.uuid))
          ),
      );
      expect(kept).toHaveLength(truth.length - 2);
      expect(await loadedRows(db.warehouse, "cdrs", account)).toEqual(expectedFromTruth("cdrs", kept));
    } finally {
      await proxy.close();
    }
  });
});
