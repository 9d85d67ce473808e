/**
 * Distributed load (issue 17): a latency-bound world of 40 accounts (sub-accounts of a reseller),
 * each key limited by the sandbox to 5 requests/s, every answer after 200 ms, loaded by 1, 2 and 4
 * `telecom-etl worker` processes (real CLI processes, one warehouse, `backfill --distributed`).
 * Prints requests/s as a share of the sum of the key limits (200 req/s) and each throughput as a
 * multiple of one worker's, with the per-worker unit slots `--units` (a process's capacity) fixed,
 * then one worker given a slot for every account, and the in-process load (no worker), to show what
 * a single process reaches alone.
 * Targets: share >= 0.9 with 4 workers; >= 1.8x / 3.2x one worker's for 2 / 4 workers.
 * Usage: node dist/bench/distributed-throughput.js [--days 10] [--calls-per-day 400] [--units 10] [--per-page 20]
 */
import { spawn } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { addDays } from "../src/core/utc-days.js";
import { type ForkedSandbox, forkSandbox, startBenchWarehouse } from "./e2e-harness.js";

const { values: args } = parseArgs({
  options: {
    days: { type: "string", default: "10" },
    "calls-per-day": { type: "string", default: "400" },
    units: { type: "string", default: "10" },
    "per-page": { type: "string", default: "20" },
  },
});
const DAYS = Number(args.days);
const UNITS = Number(args.units);
/** Small pages: many requests of little data each, so the load is bound by latency and the keys' limits. */
const PER_PAGE = Number(args["per-page"]);
const ACCOUNTS = 40;
const KEY_LIMIT = 5;
const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src/cli/bin.js");

/** Runs the CLI with `cliArgs`; resolves to its exit code (its stderr kept for a failure). */
function cli(cliArgs: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(process.execPath, [CLI, ...cliArgs], { env, cwd, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, done, stderr: () => stderr };
}

/** Seconds and requests of one distributed backfill of the whole world by `workers` workers. */
async function measure(
  sandbox: ForkedSandbox,
  workers: number,
  units: number,
): Promise<{ seconds: number; requests: number; throttled: number }> {
  const { warehouse, stop } = await startBenchWarehouse();
  const cwd = await mkdtemp(path.join(tmpdir(), "distributed-bench-"));
  await chmod(cwd, 0o755);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: warehouse.url,
    TELECOM_ETL_NOW: `${addDays(sandbox.start, DAYS)}T00:00:00Z`,
    TELECOM_ETL_ALLOW_PAST_NOW: "1",
    LOG_LEVEL: "warn",
  };
  const accounts = sandbox.accounts.map((a, i) => {
    env[`BENCH_KEY_${i}`] = a.apiKey;
    return `  - name: ${a.name}\n    base_url: ${sandbox.url}\n    api_key_env: BENCH_KEY_${i}\n    rate: { requests_per_second: ${KEY_LIMIT}, burst: 1, concurrency: 2 }\n`;
  });
  await writeFile(
    path.join(cwd, "telecom-etl.yaml"),
    `accounts:\n${accounts.join("")}start_date: "${sandbox.start}"\nstreams: [cdrs]\nper_page: ${PER_PAGE}\ndistributed:\n  heartbeat_seconds: 30\n`,
  );
  const pool = Array.from({ length: workers }, () => cli(["worker", "--units", String(units)], env, cwd));
  try {
    if (workers > 0) await new Promise((resolve) => setTimeout(resolve, 3_000));
    const before = await sandbox.stats();
    const started = performance.now();
    const range = ["--streams", "cdrs", "--from", sandbox.start, "--to", addDays(sandbox.start, DAYS - 1)];
    // No workers: the in-process load, every account in this one process.
    const run = cli(["backfill", ...(workers > 0 ? ["--distributed"] : []), ...range], env, cwd);
    const code = await run.done;
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`backfill exited ${code}: ${run.stderr()}`);
    const after = await sandbox.stats();
    return {
      seconds,
      requests: after.total - before.total,
      throttled: (after.faults.rateLimited ?? 0) - (before.faults.rateLimited ?? 0),
    };
  } finally {
    for (const worker of pool) worker.child.kill("SIGTERM");
    await Promise.all(pool.map((w) => w.done));
    await stop();
    await rm(cwd, { recursive: true, force: true });
  }
}

const sandbox = await forkSandbox({
  seed: 17,
  start: "2026-03-01",
  days: DAYS,
  accounts: ACCOUNTS,
  callsPerDay: Number(args["calls-per-day"]),
  latencyMs: 200,
  rateLimit: KEY_LIMIT,
});
try {
  const limit = ACCOUNTS * KEY_LIMIT;
  console.log(
    `${ACCOUNTS} accounts, each key limited to ${KEY_LIMIT} req/s (sum ${limit} req/s), 200 ms latency, ${DAYS} days of cdrs, ${PER_PAGE} rows a page; ${UNITS} unit slots per worker`,
  );
  let one = 0;
  for (const [workers, units] of [
    [1, UNITS],
    [2, UNITS],
    [4, UNITS],
    [1, ACCOUNTS],
    [0, 0],
  ] as const) {
    const m = await measure(sandbox, workers, units);
    const rate = m.requests / m.seconds;
    if (workers === 1 && units === UNITS) one = rate;
    const who = workers === 0 ? "in-process (no worker)" : `${workers} worker(s) x ${units} slots`;
    console.log(
      `  ${who}: ${m.requests} requests in ${m.seconds.toFixed(1)} s = ${rate.toFixed(1)} req/s, ${(rate / limit).toFixed(2)} of the key limits, ${(rate / one).toFixed(2)}x one worker, ${m.throttled} throttled (429)`,
    );
  }
} finally {
  await sandbox.close();
}
