/**
 * API-bound backfill: the sandbox answers every request after 100 ms and allows 20 requests/s per
 * key (429 with Retry-After beyond). Prints the requests/s the loader achieved and the share of 429
 * answers, once with the budget configured at the platform's limit (20/s) and once configured
 * above it (40/s), where the adaptive rate has to find the limit. Target (at the limit): >= 19 req/s
 * and < 2% 429. Usage: node dist/bench/api-bound.js [--days 12]
 */
import { parseArgs } from "node:util";
import { silentLogger } from "../src/core/log.js";
import { addDays } from "../src/core/utc-days.js";
import { runPipeline } from "../src/pipeline/run/run-pipeline.js";
import { benchConfig, type ForkedSandbox, forkSandbox, startBenchWarehouse } from "./e2e-harness.js";

const { values: args } = parseArgs({ options: { days: { type: "string", default: "12" } } });
const DAYS = Number(args.days);

function cdrAnswers(stats: Awaited<ReturnType<ForkedSandbox["stats"]>>): Record<string, number> {
  return stats.routes["GET /v1/cdr"] ?? {};
}

async function measure(configuredRate: number): Promise<void> {
  const sandbox = await forkSandbox({
    seed: 2,
    start: "2026-03-01",
    days: DAYS,
    accounts: 1,
    callsPerDay: 2_000,
    latencyMs: 100,
    rateLimit: 20,
  });
  const { warehouse, stop } = await startBenchWarehouse();
  try {
    const config = benchConfig(sandbox, { requestsPerSecond: configuredRate, burst: 5, concurrency: 8 });
    const before = cdrAnswers(await sandbox.stats());
    const started = performance.now();
    const result = await runPipeline(
      { config, warehouse, log: silentLogger, signal: new AbortController().signal, host: "bench" },
      { command: "backfill", streams: ["cdrs"], from: sandbox.start, to: addDays(sandbox.start, DAYS - 1) },
    );
    const seconds = (performance.now() - started) / 1000;
    const after = cdrAnswers(await sandbox.stats());
    const ok = (after["200"] ?? 0) - (before["200"] ?? 0);
    const throttled = (after["429"] ?? 0) - (before["429"] ?? 0);
    const share = throttled / Math.max(1, ok + throttled);
    const budget = result.budgets[0]!;
    console.log(
      `api-bound, budget configured at ${configuredRate} req/s (platform limit 20/s, latency 100 ms): ` +
        `${ok} requests answered in ${seconds.toFixed(1)} s = ${(ok / seconds).toFixed(1)} req/s, ` +
        `429 share ${(share * 100).toFixed(2)}% (${throttled}), settled rate ${budget.currentRate.toFixed(1)} req/s, exit ${result.exitCode}`,
    );
    if (configuredRate === 20) {
      console.log(
        `  target: >= 19 req/s and < 2% 429: ${ok / seconds >= 19 && share < 0.02 ? "met" : "NOT met"}`,
      );
    }
  } finally {
    await stop();
    await sandbox.close();
  }
}

await measure(20);
await measure(40);
