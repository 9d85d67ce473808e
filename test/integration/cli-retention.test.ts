import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import { truthRecords } from "./pipeline-harness.js";

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
    const cwd = await mkdtemp(path.join(tmpdir(), "telecom-etl-retention-"));
    await chmod(cwd, 0o755);
    const account = sandbox.world.accounts[0]!;
    await writeFile(
      path.join(cwd, "telecom-etl.yaml"),
      `accounts:\n  - name: ${account.name}\n    base_url: ${sandbox.url}\n    api_key_env: RETENTION_TEST_KEY\n` +
        `start_date: "2026-08-01"\nstreams: [cdrs]\nretention:\n  landing_months: 1\n  action: drop\n`,
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
