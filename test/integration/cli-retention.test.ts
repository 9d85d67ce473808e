import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import type { RetiredPartition } from "../../src/warehouse/admin/partition-retention.js";
import { type CliOptions, operatorLines, runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { expectedRows, loadedRows, truthRecords } from "./pipeline-harness.js";

/**
 * A working folder whose `telecom-etl.yaml` reads the CDRs of the sandbox's one account (its key in
 * RETENTION_TEST_KEY) with `settings` (YAML lines) added.
 */
async function configFolder(sandbox: RunningSandbox, settings: string): Promise<string> {
  const cwd = await mkdtemp(path.join(tmpdir(), "telecom-etl-retention-"));
  await chmod(cwd, 0o755);
  const account = sandbox.world.accounts[0]!;
  await writeFile(
    path.join(cwd, "telecom-etl.yaml"),
    `accounts:\n  - name: ${account.name}\n    base_url: ${sandbox.url}\n    api_key_env: RETENTION_TEST_KEY\n` +
      `streams: [cdrs]\n${settings}`,
  );
  return cwd;
}

/**
 * Config `retention.landing_months` through the CLI: `run` retires the month partitions older
 * than the kept months after its load (logged, recorded in the run's `etl.runs.retired_partitions`);
 * a `backfill` never does.
 */
describe("retention of month partitions (CLI)", () => {
  it("run retires a month older than the kept ones, logs it and records it; backfill leaves it", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const sandbox = await launchSandbox({
      seed: 5,
      start: "2026-08-01",
      days: 3,
      accounts: 1,
      callsPerDay: 20,
    });
    const db = await createDatabase();
    const account = sandbox.world.accounts[0]!;
    const cwd = await configFolder(
      sandbox,
      `start_date: "2026-08-01"\nretention:\n  landing_months: 1\n  action: drop\n`,
    );
    const options = {
      cwd,
      env: {
        DATABASE_URL: db.url,
        RETENTION_TEST_KEY: account.apiKey,
        TELECOM_ETL_NOW: "2026-08-04T06:00:00Z",
      },
      timeoutMs: 120_000,
    };
    // A May that an earlier backfill loaded: two CDRs of another account in their month's partition.
    await sql`SELECT etl.ensure_month_partition('platform.cdrs'::regclass, '2026-05-01')`.execute(
      db.warehouse.db,
    );
    await sql`
      INSERT INTO platform.cdrs (_account, direction, uuid, date, from_number, to_number, disposition, duration, _run_id, _extracted_at)
      VALUES ('older', 'placed', 'may-1', '2026-05-10T10:00:00Z', '1', '2', 'answered', 10, 1, now()),
             ('older', 'placed', 'may-2', '2026-05-31T23:00:00Z', '1', '2', 'answered', 20, 1, now())`.execute(
      db.warehouse.db,
    );
    const partitionExists = async () =>
      (
        await sql<{
          found: boolean;
        }>`SELECT to_regclass('platform.cdrs_p2026_05') IS NOT NULL AS found`.execute(db.warehouse.db)
      ).rows[0]!.found;

    const backfill = await runCli(
      ["backfill", "--streams", "cdrs", "--from", "2026-08-01", "--to", "2026-08-01"],
      options,
    );
    expect(backfill.code, backfill.stderr.slice(-2000)).toBe(0);
    expect(await partitionExists()).toBe(true);

    const run = await runCli(["run"], options);
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(await partitionExists()).toBe(false);
    expect(run.stderr).toContain('"msg":"retention: dropped platform.cdrs_p2026_05 (2 rows)"');
    const runs = await sql<{ command: string; retired: unknown }>`
      SELECT command, retired_partitions AS retired FROM etl.runs ORDER BY id`.execute(db.warehouse.db);
    expect(runs.rows).toEqual([
      { command: "backfill", retired: null },
      {
        command: "run",
        retired: [
          {
            table: "platform.cdrs",
            partition: "platform.cdrs_p2026_05",
            month: "2026-05-01",
            rows: 2,
            action: "drop",
          },
        ],
      },
    ]);
    const runId = (
      await sql<{ id: string }>`SELECT max(id)::text AS id FROM etl.runs`.execute(db.warehouse.db)
    ).rows[0]!.id;
    const show = await runCli(["runs", "show", runId], options);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("retention:\n    dropped platform.cdrs_p2026_05 (2 rows)");
    // The load itself is whole: every CDR of the sandbox's days (its truth export) is there.
    const truth = await truthRecords(sandbox, "cdrs", account.name, { from: "2026-08-01", to: "2026-08-04" });
    const loaded = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM platform.cdrs WHERE _account = ${account.name}`.execute(
      db.warehouse.db,
    );
    expect(truth.length).toBeGreaterThan(0);
    expect(loaded.rows[0]!.n).toBe(truth.length);
  });
});

/**
 * Issue 32 item 6: retention fought the loader. With `drop`, every run re-read the retired month
 * (its window states were forgotten, so the windows were open again), re-landed its rows and
 * dropped them again; with `detach`, the detached table kept the partition's name, so the next
 * run's re-read of that month found no partition to route to and every run exited 1. Now the
 * retention horizon is where a nightly's windows start, a detached month is renamed out of the
 * partitions' names, and a backfill into a retired month is refused.
 */
describe("retention and the later runs (CLI)", () => {
  const START = "2026-06-20";
  const HORIZON = "2026-07-01"; // landing_months: 1 on 2026-08-04 keeps July onwards

  /** A sandbox from June 20 to August 3 and a config keeping one whole month before the current one. */
  async function retentionRig(
    launchSandbox: (options: SandboxOptions) => Promise<RunningSandbox>,
    createDatabase: () => Promise<TestDatabase>,
    action: "drop" | "detach",
  ) {
    const sandbox = await launchSandbox({ seed: 32, start: START, days: 45, accounts: 1, callsPerDay: 12 });
    const db = await createDatabase();
    const account = sandbox.world.accounts[0]!;
    const cwd = await configFolder(
      sandbox,
      `start_date: "${START}"\nlookback_days: 40\nretention:\n  landing_months: 1\n  action: ${action}\n`,
    );
    const at = (now: string) => ({
      cwd,
      env: { DATABASE_URL: db.url, RETENTION_TEST_KEY: account.apiKey, TELECOM_ETL_NOW: now },
      timeoutMs: 180_000,
    });
    const runs = async () =>
      (
        await sql<{ id: number; retired: RetiredPartition[] | null; before: number; requests: number }>`
          SELECT r.id::int AS id, r.retired_partitions AS retired,
                 count(s.*) FILTER (WHERE s.window_start < ${HORIZON}::date)::int AS before,
                 coalesce(sum(s.requests), 0)::int AS requests
          FROM etl.runs r LEFT JOIN etl.run_slices s ON s.run_id = r.id
          GROUP BY r.id ORDER BY r.id`.execute(db.warehouse.db)
      ).rows;
    return { sandbox, db, account, at, runs };
  }

  /**
   * July 25th's run loads June (kept then: one whole month before July); August 4th's retires it.
   * The lookback of 40 days makes every later run read July 1st again, whose rows lie within the
   * margin of June around their dates.
   */
  async function loadJuneThenRetire(at: (now: string) => CliOptions): Promise<void> {
    for (const now of ["2026-07-25T06:00:00Z", "2026-08-04T06:00:00Z"]) {
      const run = await runCli(["run"], at(now));
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
    }
  }

  it("drop: the retired month is never read again, and the rest equals the truth", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const { sandbox, db, account, at, runs } = await retentionRig(launchSandbox, createDatabase, "drop");
    await loadJuneThenRetire(at);
    const [retired] = (await runs())[1]!.retired!;
    expect(retired).toMatchObject({ partition: "platform.cdrs_p2026_06", action: "drop" });
    expect(retired!.rows).toBe(
      (await truthRecords(sandbox, "cdrs", account.name, { from: START, to: "2026-06-30" })).length,
    );

    for (const now of ["2026-08-04T12:00:00Z", "2026-08-05T06:00:00Z"]) {
      const later = await runCli(["run"], at(now));
      expect(later.code, later.stderr.slice(-2000)).toBe(0);
      const run = (await runs()).at(-1)!;
      // No window of June planned (no request for it), nothing landed there to retire again.
      expect(run.before).toBe(0);
      expect(run.requests).toBeGreaterThan(0);
      expect(run.retired).toEqual([]);
    }
    const june = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM platform.cdrs WHERE date < ${HORIZON}::date`.execute(db.warehouse.db);
    expect(june.rows[0]!.n).toBe(0);
    expect(await loadedRows(db.warehouse, "cdrs", account.name)).toEqual(
      await expectedRows(sandbox, "cdrs", account.name, { from: HORIZON, to: "2026-08-05" }),
    );
  });

  it("detach: later runs exit 0, the detached month is left alone by every reader and writer, a backfill into it is refused", async ({
    launchSandbox,
    createDatabase,
  }) => {
    const { sandbox, db, account, at, runs } = await retentionRig(launchSandbox, createDatabase, "detach");
    await loadJuneThenRetire(at);
    const juneTruth = await truthRecords(sandbox, "cdrs", account.name, { from: START, to: "2026-06-30" });
    for (const now of ["2026-08-04T12:00:00Z", "2026-08-05T06:00:00Z"]) {
      const later = await runCli(["run"], at(now));
      expect(later.code, later.stderr.slice(-2000)).toBe(0);
      const run = (await runs()).at(-1)!;
      expect(run.before).toBe(0);
      expect(run.retired).toEqual([]);
    }
    const [retired] = (await runs())[1]!.retired!;
    expect(retired).toMatchObject({
      partition: "platform.cdrs_p2026_06",
      detachedAs: "platform.cdrs_p2026_06_detached",
      action: "detach",
      rows: juneTruth.length,
    });
    // The detached month is a plain table of its own name, holding what it held, no partition's.
    const detached = await sql<{ n: number; partition: boolean }>`
      SELECT (SELECT count(*)::int FROM platform.cdrs_p2026_06_detached) AS n,
             EXISTS (SELECT FROM pg_inherits WHERE inhrelid = 'platform.cdrs_p2026_06_detached'::regclass) AS partition`.execute(
      db.warehouse.db,
    );
    expect(detached.rows[0]).toEqual({ n: juneTruth.length, partition: false });
    expect(await loadedRows(db.warehouse, "cdrs", account.name)).toEqual(
      await expectedRows(sandbox, "cdrs", account.name, { from: HORIZON, to: "2026-08-05" }),
    );
    const status = await runCli(["status"], at("2026-08-05T07:00:00Z"));
    expect(status.code, status.stderr.slice(-2000)).toBe(0);

    // A backfill of retired days would be retired again by the next run: refused, one line.
    const backfill = await runCli(
      ["backfill", "--streams", "cdrs", "--from", "2026-06-25", "--to", "2026-07-02"],
      at("2026-08-05T07:00:00Z"),
    );
    expect(backfill.code, backfill.stderr.slice(-2000)).toBe(2);
    expect(operatorLines(backfill.stderr)).toEqual([
      expect.stringMatching(
        /^telecom-etl: --from 2026-06-25: stream cdrs keeps nothing before 2026-07-01 \(retention\.landing_months: 1\).*--from 2026-07-01/,
      ),
    ]);
  });
});
