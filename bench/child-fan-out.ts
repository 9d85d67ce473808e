/**
 * Child fan-out: transcriptions are asked one call at a time. With the sandbox answering after
 * 100 ms and allowing 20 requests/s per key, prints the transcriptions loaded per minute, the
 * requests/s achieved and the share of 429s (target: >= 0.95 of the limit, < 2% 429). Then, after a
 * 30-day world is loaded, a nightly run one day later: its child requests must equal the new
 * candidate calls plus the ones still pending (printed).
 * Usage: node dist/bench/child-fan-out.js [--days 6] [--calls-per-day 1500]
 */
import { parseArgs } from "node:util";
import type { EtlConfig } from "../src/config/config.js";
import { addDays } from "../src/core/utc-days.js";
import {
  benchConfig,
  type ForkedSandbox,
  forkSandbox,
  runNightlyAt,
  startBenchWarehouse,
} from "./e2e-harness.js";

const { values: args } = parseArgs({
  options: { days: { type: "string", default: "6" }, "calls-per-day": { type: "string", default: "1500" } },
});
const TRANSCRIPTION_ROUTE = "GET /v1/speech-analytics/{uuid}";

type Stats = Awaited<ReturnType<ForkedSandbox["stats"]>>;
const answered = (stats: Stats, status: string) => stats.routes[TRANSCRIPTION_ROUTE]?.[status] ?? 0;

/** A config reading `streams` of the sandbox's account at `rate`, every candidate within 60 days. */
function configFor(sandbox: ForkedSandbox, streams: string[], rate: number): EtlConfig {
  const base = benchConfig(sandbox, { requestsPerSecond: rate, burst: 5, concurrency: 8 });
  return { ...base, transcriptionMaxAgeDays: 60, accounts: base.accounts.map((a) => ({ ...a, streams })) };
}

async function fanOutAtTheLimit(): Promise<void> {
  const days = Number(args.days);
  const sandbox = await forkSandbox({
    seed: 8,
    start: "2026-03-01",
    days,
    accounts: 1,
    callsPerDay: Number(args["calls-per-day"]),
    latencyMs: 100,
    rateLimit: 20,
  });
  const { warehouse, stop } = await startBenchWarehouse();
  try {
    const end = `${addDays(sandbox.start, days)}T00:00:00Z`;
    // The parents first (not measured), then the transcriptions alone at the platform's limit.
    const config = configFor(sandbox, ["cdrs", "sip_trunks", "numbers", "transcriptions"], 20);
    await runNightlyAt(warehouse, config, end, ["cdrs", "sip_trunks", "numbers"]);
    const before = await sandbox.stats();
    const started = performance.now();
    const result = await runNightlyAt(warehouse, config, end, ["transcriptions"]);
    const seconds = (performance.now() - started) / 1000;
    const after = await sandbox.stats();
    const ok = answered(after, "200") - answered(before, "200");
    const throttled = answered(after, "429") - answered(before, "429");
    const others = ["202", "404"].reduce((n, s) => n + answered(after, s) - answered(before, s), 0);
    const rps = (ok + others) / seconds;
    const share = throttled / Math.max(1, ok + others + throttled);
    const summary = result.streams[0]!;
    console.log(
      `child fan-out (limit 20 req/s, latency 100 ms): ${summary.inserted} transcriptions in ${seconds.toFixed(1)} s = ` +
        `${((summary.inserted / seconds) * 60).toFixed(0)} per minute; ${rps.toFixed(1)} req/s answered ` +
        `(${(rps / 20).toFixed(2)} of the limit), 429 share ${(share * 100).toFixed(2)}% (${throttled}), exit ${result.exitCode}`,
    );
    console.log(
      `  target: >= 0.95 of the limit and < 2% 429: ${rps / 20 >= 0.95 && share < 0.02 ? "met" : "NOT met"}`,
    );
  } finally {
    await stop();
    await sandbox.close();
  }
}

async function nightlyAfterThirtyDays(): Promise<void> {
  const sandbox = await forkSandbox({
    seed: 9,
    start: "2026-04-01",
    days: 31,
    accounts: 1,
    callsPerDay: 400,
  });
  const { warehouse, stop } = await startBenchWarehouse();
  try {
    const config = configFor(sandbox, ["cdrs", "sip_trunks", "numbers", "transcriptions"], 2_000);
    const first = `${addDays(sandbox.start, 30)}T18:00:00Z`;
    await sandbox.setClock(first);
    await runNightlyAt(warehouse, config, first);
    const pendingBefore = await warehouse.db
      .selectFrom("etl.tracked_requests")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("kind", "=", "transcription")
      .where("status", "=", "pending")
      .executeTakeFirstOrThrow();
    const trackedBefore = await warehouse.db
      .selectFrom("etl.tracked_requests")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("kind", "=", "transcription")
      .executeTakeFirstOrThrow();
    const next = `${addDays(sandbox.start, 31)}T02:00:00Z`;
    await sandbox.setClock(next);
    const s0 = await sandbox.stats();
    const nightly = await runNightlyAt(warehouse, config, next);
    const s1 = await sandbox.stats();
    const trackedAfter = await warehouse.db
      .selectFrom("etl.tracked_requests")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("kind", "=", "transcription")
      .executeTakeFirstOrThrow();
    const childRequests = ["200", "202", "404"].reduce((n, s) => n + answered(s1, s) - answered(s0, s), 0);
    const newCandidates = Number(trackedAfter.n) - Number(trackedBefore.n);
    const expected = newCandidates + Number(pendingBefore.n);
    console.log(
      `nightly after a 30-day world (exit ${nightly.exitCode}): ${childRequests} child requests = ` +
        `${newCandidates} new candidate calls + ${pendingBefore.n} pending (expected ${expected}); ` +
        `${trackedBefore.n} calls tracked before`,
    );
    console.log(
      `  target: child requests = new candidates + pending: ${childRequests === expected ? "met" : "NOT met"}`,
    );
  } finally {
    await stop();
    await sandbox.close();
  }
}

await fanOutAtTheLimit();
await nightlyAfterThirtyDays();
