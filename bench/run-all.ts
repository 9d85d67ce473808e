/**
 * `npm run bench`: every benchmark in turn, each in its own process (so peak RSS figures are its
 * own), printing their figures. Speed is measured here, never asserted in tests.
 * Usage: node dist/bench/run-all.js [--quick]   (--quick skips the 4M-row backfill)
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes("--quick");

const benches: readonly { readonly file: string; readonly args: readonly string[]; readonly what: string }[] =
  [
    {
      file: "sandbox-throughput.js",
      args: [],
      what: "sandbox: CDR rows served per second, peak RSS of a 90-day x 20k world",
    },
    { file: "load-efficiency.js", args: [], what: "load path (validate + stage + merge) vs plain COPY" },
    {
      file: "e2e-backfill.js",
      args: quick ? ["--skip-4m"] : [],
      what: "end-to-end backfill of 1M (and 4M) CDRs",
    },
    { file: "api-bound.js", args: [], what: "API-bound: sandbox latency 100 ms, rate limit 20 req/s" },
    {
      file: "rate-under-faults.js",
      args: [],
      what: "rate under faults: random 429s (flaky, hostile) vs none, and a real 20 req/s limit",
    },
    { file: "nightly-cost.js", args: [], what: "nightly cost after a 90-day backfill" },
    {
      file: "first-run.js",
      args: quick ? ["--days", "10", "--calls-per-day", "500"] : [],
      what: "a new user's first run: default config, 30 days, every stream, default rate (requests, wall time)",
    },
    {
      file: "child-fan-out.js",
      args: [],
      what: "child fan-out: transcriptions at a 20 req/s limit, nightly child requests",
    },
    {
      file: "distributed-throughput.js",
      args: quick ? ["--days", "3"] : [],
      what: "distributed: 40 keys at 5 req/s, 200 ms latency, loaded by 1, 2 and 4 worker processes",
    },
    {
      file: "partitioned-landing.js",
      args: quick ? ["--sizes", "1000000"] : [],
      what: "partitioned vs flat platform.cdrs: nightly merge, window read, 7-day scan at 1M, 4M, 12M rows",
    },
    {
      file: "dbt-incremental.js",
      args: quick ? ["--days", "30", "--calls-per-day", "5000"] : [],
      what: "reporting layer: dbt full refresh vs nightly incremental build (90 days x 20k calls/day)",
    },
    {
      file: "dbt-nightly-by-size.js",
      args: quick ? ["--sizes", "5,20", "--calls-per-day", "2000", "--rounds", "2"] : [],
      what: "reporting layer: the nightly dbt build after 30 vs 120 days of history, facts partitioned by month vs plain (20k calls/day)",
    },
    {
      file: "nightly-dbt-steps.js",
      args: quick ? ["--days", "5", "--calls-per-day", "2000", "--nights", "2"] : [],
      what: "the nightly's dbt steps as the CLI runs them (build, source freshness), parses included, night after night at 30 days",
    },
  ];

let failed = 0;
for (const bench of benches) {
  process.stdout.write(`\n=== ${bench.what} (${bench.file}) ===\n`);
  const result = spawnSync(process.execPath, [path.join(here, bench.file), ...bench.args], {
    stdio: "inherit",
  });
  if (result.status !== 0) {
    failed += 1;
    process.stdout.write(`${bench.file} exited ${result.status ?? result.signal}\n`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
