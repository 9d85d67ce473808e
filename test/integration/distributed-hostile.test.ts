/**
 * Issue 17 under the platform's worst: a distributed run whose worker processes load from a
 * hostile sandbox (timeouts, hangs, 5xx, injected 429s, malformed rows) serving the 2026 API
 * revision, which each unit detects itself (api_revision: auto). One worker is killed (SIGKILL)
 * after a window that rejected rows and another starts late. The run ends as one process would: exit 3 (rows
 * rejected, nothing failed), every valid row of every account equal to the truth, the rejects
 * exactly the rows the sandbox corrupted, each unit done once, no key in any output; the
 * coordinator's rejects count every attempt's (issue 32 item 16).
 */
import { sql } from "kysely";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import { SAMPLE_STREAMS } from "./pipeline-harness.js";
import { expectTruthLandedWithRejects } from "./truth-landed.js";
import { fleetOptions, runWithKilledAndLateWorker } from "./worker-fleet.js";

const ACCOUNTS = 3;
const NOW = "2026-08-04T00:00:00Z";

const it = fixtureTest.extend("options", { scope: "file" }, ({ rig }) =>
  fleetOptions(rig, {
    accountYaml: "    api_revision: auto\n    rate: { requests_per_second: 20, burst: 4, concurrency: 2 }\n",
    yaml: [
      `start_date: "2026-08-01"\nstreams: [${SAMPLE_STREAMS.join(", ")}]\n`,
      "timeouts: { connect_ms: 2000, headers_ms: 1000, body_idle_ms: 1000, total_ms: 1000 }\n",
      "distributed:\n  heartbeat_seconds: 10\n  retry_limit: 2\n  worker_units: 1\n",
    ].join(""),
    now: NOW,
  }),
);
it.override({
  sandboxOptions: {
    seed: 71,
    start: "2026-08-01",
    days: 3,
    accounts: ACCOUNTS,
    callsPerDay: 300,
    apiRevision: "2026",
    faults: { base: "hostile", hangMs: 2_500, latencySpikeMs: 200, retryAfterSeconds: 1 },
  },
});

describe("distributed run against a hostile platform on the 2026 revision", () => {
  it("a worker killed, one late: exit 3, every account's valid rows == truth, rejects == the corrupted rows, units done once", async ({
    rig,
    options,
  }) => {
    const { sandbox, db } = rig;
    // Killed after a window that rejected rows: its attempt's rejects must count (item 16).
    const { result, killed, stopped, late, killedPid } = await runWithKilledAndLateWorker(
      options,
      /"rejected":[1-9]\d*,.*"msg":"window loaded"/,
    );
    expect(result.code, result.stderr.slice(-3000)).toBe(3);
    expect(killed.signal).toBe("SIGKILL");
    expect([stopped, late].map((o) => o.code)).toEqual([0, 0]);

    const names = sandbox.world.accounts.map((a) => a.name);
    await expectTruthLandedWithRejects(db.warehouse, sandbox, names, NOW.slice(0, 10));

    // Each account's unit succeeded once (as a load that rejected rows): one unit run per account
    // ended with exit 3; the killed worker's never ended well.
    const coordinator = await db.warehouse.db
      .selectFrom("etl.runs")
      .select(["id", "exit_code"])
      .where(sql<boolean>`arguments->>'distributed' = 'true'`)
      .executeTakeFirstOrThrow();
    expect(coordinator.exit_code).toBe(3);
    const units = await sql<{ account: string; exit_code: number | null; pid: number }>`
      SELECT arguments->'accounts'->>0 AS account, exit_code, pid FROM etl.runs
      WHERE arguments->>'unit_of_run' = ${String(coordinator.id)} ORDER BY id`.execute(db.warehouse.db);
    const finished = units.rows.filter((u) => u.exit_code === 0 || u.exit_code === 3);
    expect(finished.map((u) => u.account).sort()).toEqual([...names].sort());
    const killedUnits = units.rows.filter((u) => u.pid === killedPid);
    expect(killedUnits.length).toBeGreaterThan(0);
    expect(killedUnits.every((u) => u.exit_code === null)).toBe(true);
    // Issue 32 item 16: the coordinator's rejects are every attempt's, the killed worker's windows
    // (recorded with each window's load) included, not only the last attempts'.
    const rejected = await sql<{ coordinator: number; ended: number; killed: number }>`
      SELECT
        (SELECT sum(rows_rejected)::int FROM etl.run_streams WHERE run_id = ${coordinator.id}) AS coordinator,
        (SELECT sum(s.rows_rejected)::int FROM etl.run_streams s JOIN etl.runs r ON r.id = s.run_id
          WHERE r.arguments->>'unit_of_run' = ${String(coordinator.id)} AND r.exit_code IS NOT NULL) AS ended,
        (SELECT coalesce(sum(s.rows_rejected), 0)::int FROM etl.run_slices s JOIN etl.runs r ON r.id = s.run_id
          WHERE r.arguments->>'unit_of_run' = ${String(coordinator.id)} AND r.pid = ${killedPid}) AS killed`.execute(
      db.warehouse.db,
    );
    const { coordinator: counted, ended, killed: killedRejects } = rejected.rows[0]!;
    expect(killedRejects, "the killed attempt rejected rows of the windows it loaded").toBeGreaterThan(0);
    expect(counted).toBe(ended + killedRejects);
    expect(result.stdout).toMatch(
      /work unit done in 2 attempts \(the figures count every attempt's requests, rows and rejects\)/,
    );
    // The platform was hostile indeed: faults of several kinds were injected and survived.
    const stats = (await fetch(`${sandbox.url}/_sandbox/stats`).then((r) => r.json())) as {
      faults: Record<string, number>;
    };
    expect(Object.keys(stats.faults).length, JSON.stringify(stats.faults)).toBeGreaterThan(2);
    // Each unit detected the revision the platform serves.
    expect([killed, stopped, late].map((o) => o.stderr).join("\n")).toMatch(/"apiRevision":"2026"/);
    for (const output of [result, killed, stopped, late])
      for (const account of sandbox.world.accounts)
        expect(output.stdout + output.stderr).not.toContain(account.apiKey);
  });
});
