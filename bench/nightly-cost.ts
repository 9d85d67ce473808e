/**
 * Nightly cost: after a 90-day backfill of CDRs and short-link metrics, a nightly `run` reads only
 * the windows not settled yet (read less than settle_hours after their end) and today. Prints the
 * requests of the backfill and of the nightly run per route, and the windows the nightly run
 * touched. Usage: node dist/bench/nightly-cost.js [--days 90]
 */
import { parseArgs } from "node:util";
import { silentLogger } from "../src/core/log.js";
import { addDays } from "../src/core/utc-days.js";
import { runPipeline } from "../src/pipeline/run/run-pipeline.js";
import { benchConfig, type ForkedSandbox, forkSandbox, startBenchWarehouse } from "./e2e-harness.js";

const { values: args } = parseArgs({ options: { days: { type: "string", default: "90" } } });
const DAYS = Number(args.days);
const STREAMS = ["cdrs", "short_link_metrics"];

type Stats = Awaited<ReturnType<ForkedSandbox["stats"]>>;

/** Requests per route between two stats snapshots. */
function delta(before: Stats, after: Stats): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [route, answers] of Object.entries(after.routes)) {
    const sum = (a: Record<string, number> | undefined) => Object.values(a ?? {}).reduce((x, y) => x + y, 0);
    const n = sum(answers) - sum(before.routes[route]);
    if (n > 0) out[route] = n;
  }
  return out;
}

const sandbox = await forkSandbox({
  seed: 4,
  start: "2026-01-01",
  days: DAYS,
  accounts: 1,
  callsPerDay: 1_000,
});
const { warehouse, stop } = await startBenchWarehouse();
try {
  const config = {
    ...benchConfig(sandbox, { requestsPerSecond: 2_000, burst: 100, concurrency: 8 }),
    lookbackDays: 3,
  };
  const accounts = config.accounts.map((a) => ({ ...a, streams: STREAMS }));
  const deps = {
    config: { ...config, accounts },
    warehouse,
    log: silentLogger,
    signal: new AbortController().signal,
    host: "bench",
  };
  const today = addDays(sandbox.start, DAYS);
  const s0 = await sandbox.stats();
  const backfill = await runPipeline(
    { ...deps, runStartedAt: Date.parse(`${today}T00:30:00Z`) },
    { command: "backfill", streams: STREAMS, from: sandbox.start, to: addDays(today, -1) },
  );
  const s1 = await sandbox.stats();
  await sandbox.setClock(`${today}T02:00:00Z`);
  const nightly = await runPipeline(
    { ...deps, runStartedAt: Date.parse(`${today}T02:00:00Z`) },
    { command: "run" },
  );
  const s2 = await sandbox.stats();
  const slices = await warehouse.db
    .selectFrom("etl.run_slices")
    .select(["stream", "slice", "requests"])
    .where("run_id", "=", nightly.runId)
    .orderBy("stream")
    .orderBy("slice")
    .execute();
  console.log(
    `backfill of ${DAYS} days (exit ${backfill.exitCode}): requests by route ${JSON.stringify(delta(s0, s1))}`,
  );
  console.log(
    `nightly run on ${today} (exit ${nightly.exitCode}): requests by route ${JSON.stringify(delta(s1, s2))}`,
  );
  for (const stream of STREAMS) {
    const mine = slices.filter((s) => s.stream === stream);
    console.log(
      `  ${stream}: ${mine.length} windows (${mine.map((s) => s.slice).join(", ")}), ${mine.reduce((n, s) => n + s.requests, 0)} requests`,
    );
  }
  // Unsettled at the backfill (read at 00:30): the windows ending less than settle_hours before it.
  const backfillRead = Date.parse(`${today}T00:30:00Z`);
  let unsettled = 0;
  for (let day = sandbox.start; day < today; day = addDays(day, 1)) {
    if (Date.parse(`${addDays(day, 1)}T00:00:00Z`) + config.settleHours * 3_600_000 > backfillRead)
      unsettled++;
  }
  const expected = unsettled + 1;
  const ok = STREAMS.every((stream) => slices.filter((s) => s.stream === stream).length === expected);
  console.log(
    `  target: only the ${unsettled} windows unsettled at the backfill + today per stream (${expected}): ${ok ? "met" : "NOT met"}`,
  );
} finally {
  await stop();
  await sandbox.close();
}
