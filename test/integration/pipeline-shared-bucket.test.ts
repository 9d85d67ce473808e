import { sharedRateBuckets } from "../../src/api/shared-token-bucket.js";
import type { EtlConfig } from "../../src/config/config.js";
import { connectWarehouse, type Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { busiestWindow } from "../helpers/busiest-window.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import { startFaultProxy } from "./fault-proxy.js";
import { runAt, sandboxConfig } from "./pipeline-harness.js";

/** Two pipelines on one warehouse play two worker processes: a pool each, the sandbox's one key. */
const it = fixtureTest.extend("other", { scope: "file" }, async ({ database }, { onCleanup }) => {
  const other = await connectWarehouse(database.url);
  onCleanup(() => other.close());
  return other;
});

it.override({ sandboxOptions: { seed: 5, start: "2026-08-01", days: 8, accounts: 1, callsPerDay: 20 } });

const RATE = 10;
const BURST = 1;
/** One start delayed by a late timer or a slow answer, without delaying the next (see shared-rate-bucket.test.ts). */
const ONE_LATE_START = 1;

describe("two pipelines at once on one key", () => {
  it("with the key's bucket in the warehouse the platform sees one bucket's rate of the key; without it, twice that", {
    timeout: 120_000,
  }, async ({ sandbox, database, other }) => {
    const arrivals: number[] = [];
    const proxy = await startFaultProxy(sandbox.url, () => void arrivals.push(Date.now()));
    try {
      const base = sandboxConfig(sandbox, { baseUrl: proxy.url });
      const owner = base.accounts[0]!;
      /** Runs two accounts named `names` with the sandbox's one key at once, one per pool; the API's request times. */
      const runBoth = async (names: readonly string[], shared: boolean): Promise<number[]> => {
        arrivals.length = 0;
        const processes: readonly Warehouse[] = [database.warehouse, other];
        const results = await Promise.all(
          names.map((name, i) => {
            const warehouse = processes[i]!;
            const config: EtlConfig = {
              ...base,
              accounts: [{ ...owner, name, rate: { requestsPerSecond: RATE, burst: BURST, concurrency: 4 } }],
            };
            const options = shared ? { sharedRateBuckets: sharedRateBuckets(warehouse.db) } : {};
            return runAt(warehouse, config, sandbox, { command: "run" }, options);
          }),
        );
        expect(results.map((r) => r.exitCode)).toEqual([0, 0]);
        return [...arrivals];
      };
      const sharedArrivals = await runBoth(["acme", "acme-eu"], true);
      // Accounts of new names: their windows are all still to read, as the first pair's were.
      const controlArrivals = await runBoth(["acme-2", "acme-eu-2"], false);

      const sharedMost = busiestWindow(sharedArrivals, 1_000);
      const controlMost = busiestWindow(controlArrivals, 1_000);
      console.info(
        `requests ${sharedArrivals.length} / ${controlArrivals.length}; most in a second: ${sharedMost} shared, ${controlMost} in memory`,
      );
      expect(sharedArrivals.length).toBeGreaterThan(4 * RATE);
      expect(sharedMost).toBeLessThanOrEqual(RATE + BURST + ONE_LATE_START);
      expect(controlMost).toBeGreaterThan(RATE + BURST + ONE_LATE_START);
    } finally {
      await proxy.close();
    }
  });
});
