/**
 * The reporting layer's nightly cost: a 90-day world of 20,000 calls a day is loaded through the
 * real loader from the sandbox. Then each round times `dbt build --full-refresh`; vacuums and
 * analyzes the warehouse, as autovacuum would in the day between two builds; moves the sandbox and
 * the run clock one day on; loads that day (re-reading the unsettled ones) and times the first
 * nightly incremental `dbt build`; then does the same for a second day and times the next nightly
 * (the ratio's: most nights follow a nightly build, not a full refresh). Both builds run as `transform` runs them (dbt unit tests excluded), write–
 * audit–publish: built in the build schema (an incremental mart starting from its kept predecessor
 * or a copy of the published one), then published; the time is the whole of it. The figures are
 * medians over the rounds; the ratio is the median of each round's own ratio.
 * Target: incremental <= 0.2x the full refresh.
 * Usage: node dist/bench/dbt-incremental.js [--days 90] [--calls-per-day 20000] [--rounds 3]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { addDays } from "../src/core/utc-days.js";
import { WITHOUT_UNIT_TESTS } from "../src/transform/run-dbt.js";
import { countCalls, settleWarehouse, timedDbt } from "./dbt-timing.js";
import { benchConfig, forkSandbox, runNightlyAt, startBenchWarehouse } from "./e2e-harness.js";
import { median } from "./median.js";

const { values: args } = parseArgs({
  options: {
    days: { type: "string", default: "90" },
    "calls-per-day": { type: "string", default: "20000" },
    rounds: { type: "string", default: "3" },
  },
});
const days = Number(args.days);
const rounds = Number(args.rounds);
const callsPerDay = Number(args["calls-per-day"]);
const STREAMS = ["cdrs", "sip_trunks", "numbers", "short_link_metrics", "messages", "invoices"];

const sandbox = await forkSandbox({
  seed: 11,
  start: "2026-01-01",
  days: days + 2 * rounds,
  accounts: 1,
  callsPerDay,
});
const { warehouse, stop } = await startBenchWarehouse();
const workDir = await mkdtemp(path.join(tmpdir(), "dbt-bench-"));
try {
  const config = benchConfig(sandbox, { requestsPerSecond: 10_000, burst: 100, concurrency: 8 });
  const withStreams = { ...config, accounts: config.accounts.map((a) => ({ ...a, streams: STREAMS })) };
  const run = async (at: string) => {
    await sandbox.setClock(at);
    const started = performance.now();
    const result = await runNightlyAt(warehouse, withStreams, at);
    return { exitCode: result.exitCode, seconds: (performance.now() - started) / 1000 };
  };

  const loaded = await run(`${addDays(sandbox.start, days)}T02:00:00Z`);
  const calls = await countCalls(warehouse);
  console.log(
    `${days} days x ${callsPerDay} calls/day loaded: ${calls} call legs in ${loaded.seconds.toFixed(0)} s (exit ${loaded.exitCode})`,
  );
  // Paired rounds: each times a full refresh, then the nightly build after one more day, back to
  // back, so a slow spell of this shared machine weighs on both sides of the round's ratio.
  const fulls: number[] = [];
  const nightlies: number[] = [];
  const firstNightlies: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    console.log(`round ${round} of ${rounds}:`);
    fulls.push(await timedDbt(warehouse, workDir, ["build", "--full-refresh", ...WITHOUT_UNIT_TESTS]));
    // A nightly build runs a day after the build before it: by then autovacuum has vacuumed and
    // analyzed what that build wrote, and the checkpoint has flushed it. Timed right after the full
    // refresh instead, the nightly would compete with that clean-up (1.8 M freshly written fact rows).
    const settled = await settleWarehouse(warehouse);
    console.log(
      `  warehouse settled (VACUUM ANALYZE + CHECKPOINT, as a day of autovacuum would): ${settled.toFixed(1)} s`,
    );
    // The first nightly after a full refresh copies each incremental mart (the refresh kept none);
    // every later one continues from the table the publication before it kept (no copy): the one
    // timed for the ratio, as most nights are.
    const nextDay = async (offset: number) => {
      const before = await countCalls(warehouse);
      const loadedDay = await run(`${addDays(sandbox.start, days + offset)}T02:00:00Z`);
      console.log(
        `  one more day loaded: ${(await countCalls(warehouse)) - before} new call legs in ${loadedDay.seconds.toFixed(1)} s (exit ${loadedDay.exitCode})`,
      );
    };
    await nextDay(2 * round - 1);
    console.log("  first nightly after the full refresh (copies the incremental marts):");
    firstNightlies.push(await timedDbt(warehouse, workDir, ["build", ...WITHOUT_UNIT_TESTS]));
    await settleWarehouse(warehouse);
    await nextDay(2 * round);
    console.log("  next nightly (continues from the kept marts):");
    nightlies.push(await timedDbt(warehouse, workDir, ["build", ...WITHOUT_UNIT_TESTS]));
  }
  const ratios = nightlies.map((n, i) => n / (fulls[i] ?? Number.NaN));
  const ratio = median(ratios);
  console.log(
    `dbt build, median of ${rounds} rounds: full refresh ${median(fulls).toFixed(1)} s, nightly incremental ${median(nightlies).toFixed(1)} s, ratio ${ratio.toFixed(2)} (per round: ${ratios.map((r) => r.toFixed(2)).join(", ")})`,
  );
  const firstRatios = firstNightlies.map((n, i) => n / (fulls[i] ?? Number.NaN));
  console.log(
    `  first nightly after a full refresh (copies): median ${median(firstNightlies).toFixed(1)} s, ratio ${median(firstRatios).toFixed(2)} (per round: ${firstRatios.map((r) => r.toFixed(2)).join(", ")})`,
  );
  console.log(`  target: incremental <= 0.2x the full refresh: ${ratio <= 0.2 ? "met" : "NOT met"}`);
} finally {
  await stop();
  await sandbox.close();
  await rm(workDir, { recursive: true, force: true });
}
