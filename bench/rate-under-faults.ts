/**
 * Rate under faults: does the adaptive rate budget tell random 429s from a real limit? Over real
 * HTTP against the sandbox (in its own process), prints in one run:
 *  1. a 5-day CDR backfill at one configured maximum (10 req/s) with fault profiles none, flaky and
 *     hostile (median of several repetitions): req/s, rows/s and the ratios flaky/none, hostile/none
 *     (targets >= 0.7 and >= 0.4);
 *  2. against a real limit (`rateLimit` 20, 100 ms latency): the rate the limit let through as a
 *     fraction of it and the share of the limit's 429s (targets >= 0.95 and < 2%);
 *  3. the same limit with the flaky profile on top: fraction of the limit (target >= 0.8);
 *  4. for information, one run configured at twice the limit: the budget has to find it.
 * Usage: node dist/bench/rate-under-faults.js [--repetitions 3]
 */
import { parseArgs } from "node:util";
import type { SandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import type { EtlConfig } from "../src/config/config.js";
import { silentLogger } from "../src/core/log.js";
import { addDays } from "../src/core/utc-days.js";
import { runPipeline } from "../src/pipeline/run/run-pipeline.js";
import { benchConfig, type ForkedSandbox, forkSandbox, startBenchWarehouse } from "./e2e-harness.js";
import { median } from "./median.js";

const { values: args } = parseArgs({ options: { repetitions: { type: "string", default: "3" } } });
const REPETITIONS = Math.max(1, Number(args.repetitions));
const PROFILE_DAYS = 5;
const LIMIT_DAYS = 10;
const LIMIT = 20;
/** The configured maximum of the profile comparison: the default rate (docs/reference/configuration.md). */
const PROFILE_RATE = { requestsPerSecond: 10, burst: 20, concurrency: 4 };
/** Configured at the platform's limit, as an operator who knows it would. */
const LIMIT_RATE = { requestsPerSecond: LIMIT, burst: 5, concurrency: 8 };

type Warehouse = Awaited<ReturnType<typeof startBenchWarehouse>>["warehouse"];

/** One backfill and what it cost, from the loader's and the sandbox's side. */
interface Backfill {
  readonly seconds: number;
  readonly rows: number;
  /** HTTP requests the platform answered (every status, retries included). */
  readonly requests: number;
  /** 429s of the platform's rate limit (not the fault profile's). */
  readonly limited: number;
  readonly settledRate: number;
  readonly exitCode: number;
}

async function backfill(
  sandbox: ForkedSandbox,
  warehouse: Warehouse,
  rate: EtlConfig["accounts"][number]["rate"],
  days: number,
): Promise<Backfill> {
  const config = benchConfig(sandbox, rate);
  const before = await sandbox.stats();
  const started = performance.now();
  const result = await runPipeline(
    { config, warehouse, log: silentLogger, signal: new AbortController().signal, host: "bench" },
    { command: "backfill", streams: ["cdrs"], from: sandbox.start, to: addDays(sandbox.start, days - 1) },
  );
  const seconds = (performance.now() - started) / 1000;
  const after = await sandbox.stats();
  return {
    seconds,
    rows: result.streams[0]?.rowsFetched ?? 0,
    requests: after.total - before.total,
    limited: rateLimited(after) - rateLimited(before),
    settledRate: result.budgets[0]?.currentRate ?? 0,
    exitCode: result.exitCode,
  };
}

function rateLimited(stats: Awaited<ReturnType<ForkedSandbox["stats"]>>): number {
  return stats.faults.rateLimited ?? 0;
}

/** Backfills `days` `times` times (default REPETITIONS) against one sandbox with `options`; returns every run. */
async function repeat(
  options: SandboxOptions,
  warehouse: Warehouse,
  rate: EtlConfig["accounts"][number]["rate"],
  days: number,
  times = REPETITIONS,
): Promise<Backfill[]> {
  const sandbox = await forkSandbox({ seed: 3, start: "2026-03-01", days, accounts: 1, ...options });
  try {
    const runs: Backfill[] = [];
    for (let r = 0; r < times; r++) runs.push(await backfill(sandbox, warehouse, rate, days));
    return runs;
  } finally {
    await sandbox.close();
  }
}

function met(ok: boolean): string {
  return ok ? "met" : "NOT met";
}

const { warehouse, stop } = await startBenchWarehouse();
try {
  const throughput: Record<string, { reqs: number; rows: number }> = {};
  for (const faults of ["none", "flaky", "hostile"] as const) {
    const runs = await repeat({ faults, callsPerDay: 2_000 }, warehouse, PROFILE_RATE, PROFILE_DAYS);
    const reqs = median(runs.map((r) => r.requests / r.seconds));
    const rows = median(runs.map((r) => r.rows / r.seconds));
    throughput[faults] = { reqs, rows };
    console.log(
      `${PROFILE_DAYS}-day CDR backfill, faults ${faults}, configured ${PROFILE_RATE.requestsPerSecond} req/s: ` +
        `median ${reqs.toFixed(1)} req/s, ${Math.round(rows).toLocaleString("en-US")} rows/s ` +
        `(runs ${runs.map((r) => `${r.seconds.toFixed(1)} s`).join(", ")}; settled rate ${runs.map((r) => r.settledRate.toFixed(1)).join(", ")}; exit ${runs.map((r) => r.exitCode).join(", ")})`,
    );
  }
  const none = throughput.none!.rows;
  const flaky = throughput.flaky!.rows / none;
  const hostile = throughput.hostile!.rows / none;
  console.log(
    `  rows/s ratio flaky/none ${flaky.toFixed(2)} (target >= 0.7: ${met(flaky >= 0.7)}), ` +
      `hostile/none ${hostile.toFixed(2)} (target >= 0.4: ${met(hostile >= 0.4)})`,
  );

  for (const faults of ["none", "flaky"] as const) {
    const runs = await repeat(
      { faults, callsPerDay: 2_000, latencyMs: 100, rateLimit: LIMIT },
      warehouse,
      LIMIT_RATE,
      LIMIT_DAYS,
    );
    // What the limit let through: every answer but its own 429s.
    const fraction = median(runs.map((r) => (r.requests - r.limited) / r.seconds / LIMIT));
    const share = median(runs.map((r) => r.limited / Math.max(1, r.requests)));
    const target =
      faults === "none"
        ? `target >= 0.95 and < 2% 429: ${met(fraction >= 0.95 && share < 0.02)}`
        : `target >= 0.8: ${met(fraction >= 0.8)}`;
    console.log(
      `${LIMIT_DAYS}-day CDR backfill, platform limit ${LIMIT} req/s + 100 ms latency, faults ${faults}, configured ${LIMIT_RATE.requestsPerSecond} req/s: ` +
        `median ${(fraction * LIMIT).toFixed(1)} req/s let through = ${fraction.toFixed(2)} of the limit, limit 429 share ${(share * 100).toFixed(2)}% ` +
        `(runs ${runs.map((r) => `${r.seconds.toFixed(1)} s`).join(", ")}; exit ${runs.map((r) => r.exitCode).join(", ")}); ${target}`,
    );
  }

  // The budget configured above the limit has to find it: one run, for information.
  const [above] = await repeat(
    { faults: "none", callsPerDay: 2_000, latencyMs: 100, rateLimit: LIMIT },
    warehouse,
    { ...LIMIT_RATE, requestsPerSecond: 2 * LIMIT },
    LIMIT_DAYS,
    1,
  );
  console.log(
    `${LIMIT_DAYS}-day CDR backfill, platform limit ${LIMIT} req/s + 100 ms latency, configured ${2 * LIMIT} req/s (one run): ` +
      `${((above!.requests - above!.limited) / above!.seconds).toFixed(1)} req/s let through = ${((above!.requests - above!.limited) / above!.seconds / LIMIT).toFixed(2)} of the limit, ` +
      `limit 429 share ${((above!.limited / Math.max(1, above!.requests)) * 100).toFixed(2)}% (${above!.limited}), settled rate ${above!.settledRate.toFixed(1)} req/s, ${above!.seconds.toFixed(1)} s, exit ${above!.exitCode}`,
  );
} finally {
  await stop();
}
