/**
 * Issue 36 item 6: the command an interrupted load prints covers EVERY window it did not finish
 * (never started ones included), for `backfill`, `backfill --refetch`, `nightly` and a distributed
 * backfill: following it, each of those windows is loaded. The windows a load should read are
 * listed here from the range and the sandbox's days, not from the planner; what a run loaded is
 * what `etl.run_slices` recorded as loaded.
 */
import { sql } from "kysely";
import { addDays } from "../../src/core/utc-days.js";
import { type CliOptions, type CliResult, collect, runCli, spawnCli, stderrLine } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { fleetOptions } from "./worker-fleet.js";

const FROM = "2026-08-01";
const TO = "2026-08-10";
const STREAMS = ["cdrs", "short_link_metrics"] as const;
const BACKFILL = ["backfill", "--streams", STREAMS.join(","), "--from", FROM, "--to", TO];
/** The run's clock: the sandbox's last day is Aug 10; with 72 settle hours Aug 1-7 settle, Aug 8-10 do not. */
const NOW = "2026-08-11T00:00:00Z";

const it = fixtureTest;
it.override({
  sandboxOptions: { seed: 36, start: FROM, days: 10, accounts: 2, callsPerDay: 300, latencyMs: 20 },
});

/** Where the CLI runs: a config naming the sandbox's accounts, one database, the run clock. */
async function optionsFor(
  sandbox: Parameters<typeof fleetOptions>[0]["sandbox"],
  db: TestDatabase,
): Promise<CliOptions & { env: Record<string, string> }> {
  return fleetOptions(
    { sandbox, db },
    {
      accountYaml: "    rate: { requests_per_second: 20, burst: 2, concurrency: 1 }\n",
      yaml: [
        `start_date: "${FROM}"\n`,
        "distributed:\n  heartbeat_seconds: 10\n  worker_units: 1\n  unit_lock_timeout_seconds: 60\n",
      ].join(""),
      now: NOW,
    },
  );
}

/** `account stream start..end` of every one-day window of the days `first`..`last` (inclusive). */
function windowsOf(accounts: readonly string[], first: string, last: string): string[] {
  const windows: string[] = [];
  for (const account of accounts)
    for (const stream of STREAMS)
      for (let day = first; day <= last; day = addDays(day, 1))
        windows.push(`${account} ${stream} ${day}..${addDays(day, 1)}`);
  return windows;
}

/** The windows the runs after `afterRunId` (their distributed units included) loaded. */
async function loadedAfter(db: TestDatabase, afterRunId: number): Promise<Set<string>> {
  const rows = await sql<{ account: string; stream: string; slice: string }>`
    SELECT account, stream, slice FROM etl.run_slices
    WHERE status = 'succeeded' AND window_start IS NOT NULL AND run_id > ${afterRunId}`.execute(
    db.warehouse.db,
  );
  return new Set(rows.rows.map((r) => `${r.account} ${r.stream} ${r.slice}`));
}

/** The last run recorded so far (0 when none). */
async function lastRunId(db: TestDatabase): Promise<number> {
  const row = await sql<{ id: number | null }>`SELECT max(id)::int AS id FROM etl.runs`.execute(
    db.warehouse.db,
  );
  return row.rows[0]?.id ?? 0;
}

/** Starts the CLI and interrupts it (SIGINT) once `loaded` windows were logged loaded by `watched` (default: itself). */
async function interruptAfter(
  args: readonly string[],
  options: CliOptions,
  loaded: number,
  watched?: ReturnType<typeof spawnCli>,
): Promise<CliResult> {
  const child = spawnCli(["--log-level", "info", ...args], options);
  const finished = collect(child, 300_000);
  let seen = 0;
  (watched ?? child).stderr?.on("data", (chunk: Buffer) => {
    seen += chunk.toString().split('"msg":"window loaded"').length - 1;
    if (seen >= loaded && child.exitCode === null && !child.killed) child.kill("SIGINT");
  });
  return finished;
}

/** The resume command the summary's last line gives, as arguments; and the count it says is left. */
function resumeOf(result: CliResult): { args: string[]; left: number; line: string } {
  const line = result.stdout.trim().split("\n").at(-1) ?? "";
  const match = /interrupted with (\d+) window\(s\) not finished; to finish, run: telecom-etl (.*)$/.exec(
    line,
  );
  expect(match, result.stdout.slice(-2000)).not.toBeNull();
  return { args: match![2]!.split(" "), left: Number(match![1]), line };
}

/**
 * Follows the resume command an interrupted run printed and checks it covered every window of
 * `planned` the interrupted run (the runs after `before`, its units' included) did not load, and
 * that its count of them was exact.
 */
async function followResume(
  db: TestDatabase,
  options: CliOptions,
  interrupted: CliResult,
  planned: readonly string[],
  before: number,
): Promise<{ args: string[] }> {
  expect(interrupted.code, interrupted.stderr.slice(-2000)).toBe(130);
  const loaded = await loadedAfter(db, before);
  const unfinished = planned.filter((w) => !loaded.has(w));
  expect(unfinished.length, "the interruption left windows not loaded").toBeGreaterThan(0);
  const { args, left } = resumeOf(interrupted);
  expect(left).toBe(unfinished.length);
  const between = await lastRunId(db);
  const resumed = await runCli(args, { ...options, timeoutMs: 300_000 });
  expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
  const reloaded = await loadedAfter(db, between);
  expect(unfinished.filter((w) => !reloaded.has(w))).toEqual([]);
  return { args };
}

describe("the resume command of an interrupted load covers every window it did not finish", () => {
  it("backfill, then backfill --refetch", async ({ sandbox, createDatabase }) => {
    const db = await createDatabase();
    const options = await optionsFor(sandbox, db);
    const accounts = sandbox.world.accounts.map((a) => a.name);
    const planned = windowsOf(accounts, FROM, TO);
    const plain = await interruptAfter(BACKFILL, options, 3);
    await followResume(db, options, plain, planned, 0);

    // Every window of the range is loaded, Aug 1-7 settled: --refetch reads them all again.
    const before = await lastRunId(db);
    const refetch = await interruptAfter([...BACKFILL, "--refetch"], options, 3);
    const loaded = await loadedAfter(db, before);
    // The first window the refetch did not re-read is a settled one (what the old hint left out).
    expect(planned.filter((w) => !loaded.has(w)).some((w) => w.split(" ")[2]! < "2026-08-08")).toBe(true);
    const { args } = await followResume(db, options, refetch, planned, before);
    expect(args).toContain("--refetch");
  });

  it("nightly", async ({ sandbox, createDatabase }) => {
    const db = await createDatabase();
    const options = await optionsFor(sandbox, db);
    const accounts = sandbox.world.accounts.map((a) => a.name);
    // An empty warehouse: the night reads every day since start_date through today (Aug 11, open).
    const planned = windowsOf(accounts, FROM, "2026-08-11");
    const night = await interruptAfter(["nightly", "--streams", STREAMS.join(",")], options, 3);
    const { args } = await followResume(db, options, night, planned, 0);
    expect(args).toEqual(["--log-level", "info", "nightly", "--streams", STREAMS.join(",")]);
  });

  it("distributed backfill --refetch (pg-boss units on a worker)", async ({ sandbox, createDatabase }) => {
    const db = await createDatabase();
    const options = await optionsFor(sandbox, db);
    const accounts = sandbox.world.accounts.map((a) => a.name);
    const planned = windowsOf(accounts, FROM, TO);
    const first = await runCli(BACKFILL, options);
    expect(first.code, first.stderr.slice(-2000)).toBe(0);
    const worker = spawnCli(["--log-level", "info", "worker"], options);
    const workerDone = collect(worker, 600_000);
    try {
      await stderrLine(worker, /"msg":"worker started/);
      const before = await lastRunId(db);
      // One unit at a time: interrupted once the worker loaded a window, the other unit is cancelled unstarted.
      const coordinator = await interruptAfter(
        [...BACKFILL, "--refetch", "--distributed"],
        options,
        1,
        worker,
      );
      // The unit in hand finished on the worker before the coordinator counted: each account is
      // loaded whole (the unit the worker had taken) or not at all (the one cancelled unstarted),
      // however stale the coordinator's last poll of the units was when it was interrupted.
      const loaded = await loadedAfter(db, before);
      const partly = accounts.filter((account) => {
        const own = planned.filter((w) => w.startsWith(`${account} `));
        const done = own.filter((w) => loaded.has(w)).length;
        return done > 0 && done < own.length;
      });
      expect(partly, "an account whose unit stopped halfway").toEqual([]);
      const { args } = await followResume(db, options, coordinator, planned, before);
      expect(args).toEqual(expect.arrayContaining(["--refetch", "--distributed", "--from", FROM]));
    } finally {
      worker.kill("SIGTERM");
      await workerDone;
    }
  });
});
