/**
 * Issue 36 item 6: a nightly is called a nightly (`status`, the night's page), and its duration
 * includes its dbt steps: the run's recorded end comes after its last window by at least the time
 * its dbt steps took.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import type { DbtStepRecord } from "../../src/warehouse/state/dbt-run-record.js";
import { runCli } from "../helpers/cli.js";
import { describe, expect, it } from "../helpers/fixtures.js";

it.override({ sandboxOptions: { seed: 36, days: 2, accounts: 1, callsPerDay: 30, now: "real" } });

describe("a nightly's name and duration", () => {
  it("status and the night's page say nightly; its end comes after its dbt steps", {
    timeout: 400_000,
  }, async ({ sandbox, createDatabase }) => {
    const db = await createDatabase();
    const env = {
      TELECOM_API_URL: sandbox.url,
      TELECOM_API_KEY: sandbox.world.accounts[0]!.apiKey,
      DATABASE_URL: db.url,
      TELECOM_ETL_START_DATE: sandbox.world.start,
      TELECOM_ETL_STREAMS: "cdrs,invoices",
    };
    const nightly = await runCli(["nightly"], { env, timeoutMs: 300_000 });
    expect(nightly.code, nightly.stderr.slice(-3000)).toBe(0);

    const run = await sql<{
      id: number;
      started_at: Date;
      finished_at: Date;
      dbt: { steps: DbtStepRecord[] };
    }>`
      SELECT id::int AS id, started_at, finished_at, dbt FROM etl.runs WHERE dbt->>'command' = 'nightly'`.execute(
      db.warehouse.db,
    );
    const { id, started_at: startedAt, finished_at: finishedAt, dbt } = run.rows[0]!;
    const lastSlice = await sql<{ at: Date }>`
      SELECT max(finished_at) AS at FROM etl.run_slices WHERE run_id = ${id}`.execute(db.warehouse.db);
    const dbtMs = dbt.steps.reduce((n, s) => n + s.durationMs, 0);
    expect(dbt.steps.length).toBeGreaterThan(0);
    expect(dbtMs).toBeGreaterThan(1000);
    // The steps ran one after another after the load: the end is at least their time after the last window.
    expect(finishedAt.getTime() - lastSlice.rows[0]!.at.getTime()).toBeGreaterThanOrEqual(dbtMs);

    const status = await runCli(["status"], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(
      `  last nightly ${id} succeeded, started ${startedAt.toISOString()}, finished ${finishedAt.toISOString()}`,
    );

    const out = path.join(await mkdtemp(path.join(tmpdir(), "nightly-page-")), "night.html");
    const report = await runCli(["report", "--out", out], { env, timeoutMs: 120_000 });
    expect(report.code, report.stderr.slice(-2000)).toBe(0);
    const html = await readFile(out, "utf8");
    const seconds = Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000);
    expect(html).toContain(`<title>telecom-etl: nightly ${id}</title>`);
    expect(html).toContain(`Nightly <b data-run-id="${id}">${id}</b> started `);
    expect(html).toContain(`took ${seconds} s (load and dbt steps)`);
  });
});
