import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { type CliResult, runCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { type ShortDayProxy, startShortDayProxy } from "./fault-proxy.js";
import { setSandboxClock, truthRecords } from "./pipeline-harness.js";

/**
 * Issue 32 ("Nothing lost"), the marts' side: a landing change older than the marts' settle window
 * reaches them at the next transform, without `--full-refresh`. The platform under-lists a settled
 * day (a proxy cuts its placed CDRs after 100), the nightly loads and publishes the short day; the
 * re-count opens that day again and the next nightly re-reads it: its build must be a full refresh
 * (one info line saying why, recorded with the run's dbt step) and the published fct_calls and
 * rpt_call_cost_daily of that old day must equal the sandbox's truth. A later ordinary nightly
 * (a new day, the settling read of the window's first day) stays incremental. The same for a
 * `backfill --refetch` of the day followed by `transform` alone.
 */
const START = "2026-08-01";
const LYING_DAY = "2026-08-02";
const FIRST_NOW = "2026-08-06T12:00:00Z";
const NEXT_NOW = "2026-08-07T12:00:00Z";
const REFRESH_LINE = "dbt build --full-refresh: landing rows changed before the marts' settle window";
/** dbt is CPU-bound and the suite shares two cores: three nightlies may take minutes. */
const TIMEOUT = { timeout: 900_000 };

/** Micro-dollars of a decimal (money is never compared as a float sum). */
const micros = (value: unknown): number =>
  value === null || value === undefined ? 0 : Math.round(Number(value) * 1e6);

/** The UTC day of a platform timestamp (the CDR form has no zone designator: UTC). */
function utcDayOf(value: unknown): string {
  const text = String(value).replace(" ", "T");
  const ms = Date.parse(/[Zz]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
  return new Date(ms).toISOString().slice(0, 10);
}

/** The truth's legs of `day` and what they cost (charge + forward fee), from the sandbox's export. */
async function truthOfDay(
  sandbox: RunningSandbox,
  day: string,
): Promise<{ legs: number; costMicros: number }> {
  const account = sandbox.world.accounts[0]!.name;
  const cdrs = (await truthRecords(sandbox, "cdrs", account)).filter((cdr) => utcDayOf(cdr.date) === day);
  const costMicros = cdrs.reduce((sum, cdr) => sum + micros(cdr.charge) + micros(cdr.forward_fee), 0);
  return { legs: cdrs.length, costMicros };
}

/** The published marts' legs and cost of `day`: fct_calls, and rpt_call_cost_daily's sums. */
async function publishedOfDay(warehouse: Warehouse, day: string) {
  const { rows } = await sql<{
    fact_legs: number;
    fact_cost: string;
    report_legs: number;
    report_cost: string;
  }>`
    SELECT (SELECT count(*)::int FROM analytics_marts.fct_calls WHERE call_date = ${day}::date) AS fact_legs,
           (SELECT coalesce(sum(total_cost_usd), 0)::text FROM analytics_marts.fct_calls
             WHERE call_date = ${day}::date) AS fact_cost,
           (SELECT coalesce(sum(legs), 0)::int FROM analytics_marts.rpt_call_cost_daily
             WHERE call_date = ${day}::date) AS report_legs,
           (SELECT coalesce(sum(total_cost_usd), 0)::text FROM analytics_marts.rpt_call_cost_daily
             WHERE call_date = ${day}::date) AS report_cost`.execute(warehouse.db);
  const row = rows[0]!;
  return {
    fact: { legs: row.fact_legs, costMicros: micros(row.fact_cost) },
    report: { legs: row.report_legs, costMicros: micros(row.report_cost) },
  };
}

/**
 * A world whose placed CDRs of LYING_DAY the platform cuts after 100 (until `proxy.lying.on` is
 * false), a fresh warehouse, and the CLI pointed at both with `cdrs` and TELECOM_ETL_NOW `now`.
 */
interface ShortDayWorld {
  readonly sandbox: RunningSandbox;
  readonly proxy: ShortDayProxy;
  readonly db: TestDatabase;
  /** The CLI with `args` at `now`; fails the test unless it exits `code` (default 0). */
  cli(args: readonly string[], now: string, code?: number): Promise<CliResult>;
}

const it = fixtureTest.extend("world", async ({ launchSandbox, createDatabase }, { onCleanup }) => {
  const sandbox = await launchSandbox({
    seed: 34,
    start: START,
    days: 7,
    accounts: 1,
    callsPerDay: 300,
    lateShare: 0,
    now: FIRST_NOW,
  });
  const proxy = await startShortDayProxy(sandbox.url, LYING_DAY);
  onCleanup(() => proxy.close());
  const db = await createDatabase();
  const cli = async (args: readonly string[], now: string, code = 0): Promise<CliResult> => {
    const env = {
      TELECOM_API_URL: proxy.url,
      TELECOM_API_KEY: sandbox.world.accounts[0]!.apiKey,
      DATABASE_URL: db.url,
      TELECOM_ETL_START_DATE: START,
      TELECOM_ETL_STREAMS: "cdrs",
      TELECOM_ETL_NOW: now,
    };
    const result = await runCli(args, { env, timeoutMs: 400_000 });
    expect(result.code, result.stderr.slice(-3000)).toBe(code);
    return result;
  };
  return { sandbox, proxy, db, cli } satisfies ShortDayWorld as ShortDayWorld;
});

/** The line of `stderr` saying why the build was a full refresh (undefined: it was not). */
function refreshLine(stderr: string): string | undefined {
  return stderr.split("\n").find((line) => line.includes(REFRESH_LINE));
}

/** The dbt build step the latest nightly recorded (etl.runs.dbt). */
async function lastNightlyBuildStep(warehouse: Warehouse): Promise<Record<string, unknown>> {
  const { rows } = await sql<{ dbt: { steps: Record<string, unknown>[] } }>`
    SELECT dbt FROM etl.runs WHERE dbt IS NOT NULL ORDER BY id DESC LIMIT 1`.execute(warehouse.db);
  const step = rows[0]?.dbt.steps.find((s) => s.step === "dbt build");
  if (step === undefined) throw new Error("the latest nightly recorded no dbt build");
  return step;
}

/** Whether the latest publication kept fct_calls for the next build (an incremental build does; a full refresh keeps nothing). */
async function keptFctCalls(warehouse: Warehouse): Promise<boolean> {
  const { rows } = await sql<{ kept: boolean }>`
    SELECT to_regclass('analytics_marts__previous.fct_calls') IS NOT NULL AS kept`.execute(warehouse.db);
  return rows[0]!.kept;
}

describe("old landing changes reach the marts (CLI, real dbt)", () => {
  it(
    "a re-counted settled day re-read by the nightly is rebuilt in full; an ordinary nightly stays incremental",
    TIMEOUT,
    async ({ world }) => {
      const { sandbox, proxy, db, cli } = world;
      const truth = await truthOfDay(sandbox, LYING_DAY);
      // The lie is believed: the day settles short, and the marts publish the short day.
      const first = await cli(["nightly"], FIRST_NOW);
      expect(refreshLine(first.stderr)).toBeUndefined();
      expect((await publishedOfDay(db.warehouse, LYING_DAY)).fact.legs).toBeLessThan(truth.legs - 20);

      // The platform lists the day whole again; the re-count opens it.
      proxy.lying.on = false;
      const recount = await cli(["recount", "--from", START, "--to", "2026-08-05"], FIRST_NOW, 1);
      expect(recount.stdout).toContain(`window ${LYING_DAY}..2026-08-03`);

      // The next nightly re-reads it, and its build (no --full-refresh asked) catches the marts up.
      const second = await cli(["nightly"], FIRST_NOW);
      expect(await publishedOfDay(db.warehouse, LYING_DAY)).toEqual({ fact: truth, report: truth });
      const because = refreshLine(second.stderr);
      expect(because, second.stderr.slice(-3000)).toContain("(from 2026-08-03)");
      expect(because).toMatch(new RegExp(`cdrs/\\S+ ${LYING_DAY}\\.\\.2026-08-03 \\(\\d+ rows, run \\d+\\)`));
      expect(await lastNightlyBuildStep(db.warehouse)).toMatchObject({
        ok: true,
        fullRefreshBecause: expect.stringContaining(`${LYING_DAY}..2026-08-03`),
      });
      expect(await keptFctCalls(db.warehouse)).toBe(false);

      // An ordinary nightly a day later: the rest of 08-06, a new day, and the settling read of
      // 08-03 (the first day of the window) change nothing older: the build stays incremental.
      await setSandboxClock(sandbox, NEXT_NOW);
      const third = await cli(["nightly"], NEXT_NOW);
      expect(refreshLine(third.stderr)).toBeUndefined();
      expect(await lastNightlyBuildStep(db.warehouse)).not.toHaveProperty("fullRefreshBecause");
      expect(await keptFctCalls(db.warehouse)).toBe(true);
      expect(await publishedOfDay(db.warehouse, LYING_DAY)).toEqual({ fact: truth, report: truth });
      const settling = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM etl.run_slices
      WHERE run_id = (SELECT max(id) FROM etl.runs WHERE dbt IS NOT NULL) AND window_start = '2026-08-03'
        AND settled`.execute(db.warehouse.db);
      expect(settling.rows[0]?.n).toBe(1);
    },
  );

  it(
    "a backfill --refetch of an old day, then transform alone: the marts equal the truth",
    TIMEOUT,
    async ({ world }) => {
      const { sandbox, proxy, db, cli } = world;
      const truth = await truthOfDay(sandbox, LYING_DAY);
      await cli(["run"], FIRST_NOW);
      const first = await cli(["transform"], FIRST_NOW);
      expect(refreshLine(first.stderr)).toBeUndefined();
      expect((await publishedOfDay(db.warehouse, LYING_DAY)).fact.legs).toBeLessThan(truth.legs - 20);

      proxy.lying.on = false;
      const range = ["--from", LYING_DAY, "--to", LYING_DAY, "--refetch"];
      await cli(["backfill", "--streams", "cdrs", ...range], FIRST_NOW);
      const second = await cli(["transform"], FIRST_NOW);
      expect(await publishedOfDay(db.warehouse, LYING_DAY)).toEqual({ fact: truth, report: truth });
      expect(refreshLine(second.stderr), second.stderr.slice(-3000)).toContain(` ${LYING_DAY}..2026-08-03 (`);

      // Nothing changed since: the next transform is incremental again.
      const third = await cli(["transform"], FIRST_NOW);
      expect(refreshLine(third.stderr)).toBeUndefined();
      expect(await keptFctCalls(db.warehouse)).toBe(true);
    },
  );
});
