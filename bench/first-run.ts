/**
 * A new user's first run: the default config (one account from TELECOM_API_URL / TELECOM_API_KEY,
 * every stream, the default rate of 10 requests/s, burst 20, concurrency 4, start 30 days back)
 * against a 30-day sandbox world. Prints the requests by route, the total, the wall time, and the
 * recordings' requests against their bound (one per page of 100 rows plus one per empty window).
 * Usage: node dist/bench/first-run.js [--days 30] [--calls-per-day 2000] [--rate 10]
 *   --rate overrides the default rate (requests/s, burst 2×) to count the requests of a world quickly.
 */
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { loadConfig } from "../src/config/config.js";
import { addDays } from "../src/core/utc-days.js";
import { forkSandbox, runNightlyAt, startBenchWarehouse } from "./e2e-harness.js";

const { values: args } = parseArgs({
  options: {
    days: { type: "string", default: "30" },
    "calls-per-day": { type: "string", default: "2000" },
    rate: { type: "string" },
  },
});

const days = Number(args.days);
const sandbox = await forkSandbox({
  seed: 14,
  start: "2026-03-01",
  days,
  accounts: 1 as const,
  callsPerDay: Number(args["calls-per-day"]),
});
const { warehouse, stop } = await startBenchWarehouse();
try {
  const account = sandbox.accounts[0]!;
  const loaded = await loadConfig({}, { TELECOM_API_URL: sandbox.url, TELECOM_API_KEY: account.apiKey });
  const rate = args.rate === undefined ? undefined : Number(args.rate);
  const config =
    rate === undefined
      ? loaded
      : {
          ...loaded,
          accounts: loaded.accounts.map((a) => ({
            ...a,
            rate: { ...a.rate, requestsPerSecond: rate, burst: 2 * rate },
          })),
        };
  const at = `${addDays(sandbox.start, days)}T06:00:00Z`;
  await sandbox.setClock(at);
  const started = performance.now();
  const result = await runNightlyAt(warehouse, config, at);
  const seconds = (performance.now() - started) / 1000;
  const stats = await sandbox.stats();
  const byRoute = Object.entries(stats.routes)
    .map(([route, statuses]) => [route, Object.values(statuses).reduce((a, b) => a + b, 0)] as const)
    .sort((a, b) => b[1] - a[1]);
  const total = byRoute.reduce((sum, [, n]) => sum + n, 0);
  const streams = config.accounts[0]!.streams;
  const r = config.accounts[0]!.rate;
  console.log(
    `first run, ${days} days x ${args["calls-per-day"]} calls/day, ${streams.length} streams, ` +
      `rate ${r.requestsPerSecond} req/s (burst ${r.burst}, concurrency ${r.concurrency}): ` +
      `${total} requests in ${seconds.toFixed(1)} s, exit ${result.exitCode}`,
  );
  for (const [route, n] of byRoute) {
    console.log(`  ${String(n).padStart(7)}  ${((100 * n) / total).toFixed(1).padStart(5)}%  ${route}`);
  }
  for (const summary of result.streams) {
    console.log(
      `  stream ${summary.stream}: ${summary.requests} requests, ${summary.inserted} rows inserted`,
    );
  }
  const recordings = result.streams.find((s) => s.stream === "recordings");
  if (recordings !== undefined) {
    const counted = await sql<{ n: number }>`SELECT count(*)::int AS n FROM platform.recordings`.execute(
      warehouse.db,
    );
    const rows = counted.rows[0]!.n;
    const bound = Math.ceil(rows / 100) + days + 1;
    console.log(
      `  recordings: ${recordings.requests} requests for ${rows} recordings; bound (pages of 100 + one per window) ${bound}: ` +
        `${recordings.requests <= bound ? "met" : "NOT met"}`,
    );
  }
} finally {
  await stop();
  await sandbox.close();
}
