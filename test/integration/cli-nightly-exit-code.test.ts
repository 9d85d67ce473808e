import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";

/**
 * `nightly` = run, transform, source freshness, with the worst of the three exit codes: a load
 * that held a window open still gets its marts rebuilt (exit 1 with a passing build), a stale
 * source after a clean load and build is exit 6, a failing dbt test is exit 5 with one line naming
 * the test, dbt's log and that no mart was published, and a load that cannot start runs no dbt step.
 */
const SANDBOX = { seed: 17, days: 2, accounts: 1, callsPerDay: 30, now: "real" } as const;
it.override({ sandboxOptions: SANDBOX });
/** dbt is CPU-bound and the suite shares two cores: a test running nightly may take minutes under load. */
const DBT_TIMEOUT = { timeout: 300_000 };

function cliEnv(sandbox: RunningSandbox, db: TestDatabase): Record<string, string> {
  return {
    TELECOM_API_URL: sandbox.url,
    TELECOM_API_KEY: sandbox.world.accounts[0]!.apiKey,
    DATABASE_URL: db.url,
    TELECOM_ETL_START_DATE: sandbox.world.start,
    TELECOM_ETL_STREAMS: "cdrs,short_link_metrics,invoices",
  };
}

/** The lines of stderr that are not JSON log lines: what an operator reads. */
function messages(stderr: string): string[] {
  return stderr
    .trim()
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("{"));
}

describe("nightly exit code (CLI, real dbt)", () => {
  it(
    "a window held open: the marts are still rebuilt and the code is the load's 1",
    DBT_TIMEOUT,
    async ({ launchSandbox, createDatabase }) => {
      const sandbox = await launchSandbox({
        ...SANDBOX,
        faults: {
          base: "none",
          drift: [{ stream: "cdrs", field: "uuid", change: "rename", to: "call_uuid" }],
        },
      });
      const db = await createDatabase();
      const result = await runCli(["nightly"], { env: cliEnv(sandbox, db), timeoutMs: 240_000 });
      expect(result.code, result.stderr.slice(-3000)).toBe(1);
      expect(result.stdout).toMatch(/too_many_rejects|rows rejected/);
      expect(result.stdout).toMatch(/dbt build: PASS=\d+ WARN=\d+ ERROR=0/);
      const built = await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.tables
      WHERE table_schema = 'analytics_marts'`.execute(db.warehouse.db);
      expect(built.rows[0]?.n).toBeGreaterThan(0);
    },
  );

  it(
    "a clean load and build but a stale source: exit 6 and one line naming the source",
    DBT_TIMEOUT,
    async ({ launchSandbox, createDatabase }) => {
      // A platform whose clock stopped: a re-read finds every row unchanged, so no row's _extracted_at
      // moves, and rows last changed 5 days ago are past the 72 h error limit.
      const sandbox = await launchSandbox({
        seed: 17,
        start: "2026-08-01",
        days: 2,
        accounts: 1,
        callsPerDay: 30,
      });
      const db = await createDatabase();
      const env = {
        ...cliEnv(sandbox, db),
        TELECOM_ETL_STREAMS: "cdrs",
        TELECOM_ETL_NOW: "2026-08-03T00:00:00Z",
      };
      const first = await runCli(["run"], { env, timeoutMs: 120_000 });
      expect(first.code, first.stderr.slice(-2000)).toBe(0);
      await sql`UPDATE platform.cdrs SET _extracted_at = now() - interval '5 days'`.execute(db.warehouse.db);

      const result = await runCli(["nightly"], { env, timeoutMs: 240_000 });
      expect(result.code, result.stderr.slice(-3000)).toBe(6);
      expect(result.stdout).toMatch(/dbt build: PASS=\d+ WARN=\d+ ERROR=0/);
      expect(messages(result.stderr)).toEqual([
        expect.stringMatching(
          /^telecom-etl: dbt source freshness failed: source platform\.cdrs \(stale\) \(details: \S+dbt\.log\)$/,
        ),
      ]);
    },
  );

  it("a load that cannot start (unknown stream): exit 2, one line, and no dbt step runs", async ({ rig }) => {
    const result = await runCli(["nightly", "--streams", "nope"], { env: cliEnv(rig.sandbox, rig.db) });
    expect(result.code, result.stderr.slice(-2000)).toBe(2);
    expect(messages(result.stderr)).toEqual([expect.stringMatching(/^telecom-etl: .*unknown stream "nope"/)]);
    expect(result.stdout).not.toMatch(/dbt/);
  });

  it(
    "a failing dbt test: exit 5 and one line naming the test and dbt's log",
    DBT_TIMEOUT,
    async ({ rig }) => {
      const { sandbox, db } = rig;
      // A call leg the platform never sent, with a charge no day can absorb: the facts' and the cost
      // mart's column rules (non-negative cost) fail (the loader merges by key, so the next run leaves
      // it in place).
      const seeded = await runCli(["run"], { env: cliEnv(sandbox, db), timeoutMs: 120_000 });
      expect(seeded.code, seeded.stderr.slice(-2000)).toBe(0);
      const inserted = await sql`
      INSERT INTO platform.cdrs SELECT (c).* FROM (
        SELECT jsonb_populate_record(t, jsonb_build_object('uuid', 'not-from-the-platform', 'charge', -1000000,
          'destination', 'nightly-test')) AS c
        FROM platform.cdrs t LIMIT 1) AS one`.execute(db.warehouse.db);
      expect(Number(inserted.numAffectedRows)).toBe(1);

      const result = await runCli(["nightly"], { env: cliEnv(sandbox, db), timeoutMs: 240_000 });
      expect(result.code, result.stderr.slice(-3000)).toBe(5);
      const failure = messages(result.stderr);
      expect(failure).toHaveLength(1);
      expect(failure[0]).toMatch(
        /^telecom-etl: dbt build failed: test column_rules_\S+ \(Got \d+ results?, configured to fail if != 0\).* \(details: \S+dbt\.log\); marts not published \(none were published before\)$/,
      );
    },
  );
});
