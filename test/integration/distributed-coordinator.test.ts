/**
 * Issue 32 items 9 and 10: the coordinator of a distributed run. (9) Its warehouse restarts twice
 * under it (its sessions terminated, connections refused for 4 s; the workers reach the warehouse
 * directly and carry on): it reconnects, ends with its summary, exit 0, and the warehouse equals
 * the truth. (10) With no live worker it gives up after `distributed.no_worker_timeout` with one
 * line, exit 1, its units cancelled: when no worker ever started, and when its only worker is
 * killed mid-run; `--wait-for-workers` waits past the timeout for a worker that comes late.
 */
import { sql } from "kysely";
import { type CliResult, collect, spawnCli, stderrLine } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { expectedRows, loadedRows, SAMPLE_STREAMS, truthRange } from "./pipeline-harness.js";
import { startPostgresFaultProxy } from "./postgres-fault-proxy.js";
import { fleetOptions } from "./worker-fleet.js";

const ACCOUNTS = 4;
const NO_WORKER_TIMEOUT_S = 15;

const it = fixtureTest.extend("options", { scope: "file" }, ({ rig }) =>
  fleetOptions(rig, {
    accountYaml: "    rate: { requests_per_second: 8, burst: 1, concurrency: 2 }\n",
    yaml: [
      `start_date: "2026-08-01"\nstreams: [${SAMPLE_STREAMS.join(", ")}]\n`,
      "distributed:\n  heartbeat_seconds: 10\n  retry_limit: 2\n  worker_units: 1\n",
      `  no_worker_timeout: ${NO_WORKER_TIMEOUT_S}\n`,
    ].join(""),
    now: "2026-08-05T00:00:00Z",
  }),
);
it.override({
  sandboxOptions: {
    seed: 32,
    start: "2026-08-01",
    days: 4,
    accounts: ACCOUNTS,
    callsPerDay: 300,
    latencyMs: 100,
  },
});

/** `telecom-etl:` lines of a process's stderr (the CLI's one-line errors). */
function errorLines(result: CliResult): string[] {
  return result.stderr.split("\n").filter((line) => line.startsWith("telecom-etl:"));
}

describe("the coordinator of a distributed run", () => {
  it("rides out two restarts of its warehouse and ends with its summary, exit 0, the truth loaded", {
    timeout: 240_000,
  }, async ({ rig, options }) => {
    const { sandbox, db } = rig;
    const proxy = await startPostgresFaultProxy(db.url);
    const workers = [spawnCli(["worker"], options), spawnCli(["worker"], options)];
    const workersDone = workers.map((w) => collect(w, 200_000));
    try {
      await Promise.all(workers.map((w) => stderrLine(w, /"msg":"worker started/)));
      const coordinator = spawnCli(["run", "--distributed"], {
        ...options,
        env: { ...options.env, DATABASE_URL: proxy.url },
      });
      const coordinated = collect(coordinator, 200_000);
      const queued = stderrLine(coordinator, /"msg":"work units queued"/);
      const firstUnitDone = stderrLine(coordinator, /"msg":"work unit finished"/);
      // Awaited below; a coordinator that dies first must fail the test there, not as an unhandled rejection.
      firstUnitDone.catch(() => {});
      // Once while it follows units not yet done, once after a unit finished.
      await queued;
      await proxy.restart(4_000);
      await firstUnitDone;
      await proxy.restart(4_000);
      const result = await coordinated;
      expect(result.code, result.stderr.slice(-3000)).toBe(0);
      expect(proxy.refused, "the coordinator tried to connect while the warehouse was down").toBeGreaterThan(
        0,
      );
      expect(result.stderr).toMatch(
        /"msg":"the warehouse connection was lost; trying again until it answers"/,
      );
      expect(result.stderr).toMatch(/"msg":"the warehouse answers again"/);
      expect(result.stdout).toMatch(/^run \d+ \(succeeded, exit 0\)/m);

      for (const account of sandbox.world.accounts)
        for (const stream of SAMPLE_STREAMS) {
          const range = truthRange(stream, "2026-08-01", "2026-08-05");
          expect(await loadedRows(db.warehouse, stream, account.name), `${account.name}/${stream}`).toEqual(
            await expectedRows(sandbox, stream, account.name, range),
          );
        }
      const run = await sql<{ status: string; exit_code: number; streams: number }>`
        SELECT r.status, r.exit_code, (SELECT count(*)::int FROM etl.run_streams s WHERE s.run_id = r.id) AS streams
        FROM etl.runs r WHERE arguments->>'distributed' = 'true' ORDER BY id DESC LIMIT 1`.execute(
        db.warehouse.db,
      );
      expect(run.rows[0]).toEqual({
        status: "succeeded",
        exit_code: 0,
        streams: ACCOUNTS * SAMPLE_STREAMS.length,
      });
    } finally {
      for (const worker of workers) worker.kill("SIGTERM");
      await Promise.all(workersDone);
      await proxy.close();
    }
  });

  it("with no worker at all, gives up after no_worker_timeout: one line, exit 1, its units cancelled", async ({
    rig,
    options,
  }) => {
    const started = performance.now();
    const result = await collect(spawnCli(["run", "--distributed", "--streams", "cdrs"], options), 90_000);
    const seconds = (performance.now() - started) / 1000;
    expect(result.code, result.stderr.slice(-2000)).toBe(1);
    expect(seconds).toBeGreaterThanOrEqual(NO_WORKER_TIMEOUT_S);
    expect(seconds).toBeLessThan(NO_WORKER_TIMEOUT_S + 30);
    const lines = errorLines(result);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^telecom-etl: no worker of queue load-units-\\d{4}-[0-9a-f]{6} has sent a heartbeat in ${NO_WORKER_TIMEOUT_S} s \\(distributed.no_worker_timeout\\)(, the last \\d+ s ago)?; ${ACCOUNTS} unit\\(s\\) not done were cancelled: .*--wait-for-workers`,
      ),
    );
    await expectLastRunGivenUp(rig.db, ACCOUNTS);
  });

  it("whose only worker is killed mid-run, gives up after no_worker_timeout with one line, exit 1", async ({
    rig,
    options,
  }) => {
    const worker = spawnCli(["worker"], options);
    const workerDone = collect(worker, 120_000);
    await stderrLine(worker, /"msg":"worker started/);
    const coordinated = collect(spawnCli(["run", "--distributed", "--streams", "cdrs"], options), 120_000);
    await stderrLine(worker, /"msg":"window loaded"/);
    worker.kill("SIGKILL");
    await workerDone;
    const result = await coordinated;
    expect(result.code, result.stderr.slice(-2000)).toBe(1);
    expect(errorLines(result)).toEqual([
      expect.stringMatching(
        /^telecom-etl: no worker of queue \S+ has sent a heartbeat in 15 s \(distributed.no_worker_timeout\)(, the last \d+ s ago)?; \d unit\(s\) not done were cancelled/,
      ),
    ]);
    await expectLastRunGivenUp(rig.db);
  });

  it("with --wait-for-workers, waits past no_worker_timeout for a worker that starts late, then ends exit 0", {
    timeout: 180_000,
  }, async ({ options }) => {
    const coordinator = spawnCli(
      ["run", "--distributed", "--wait-for-workers", "--streams", "cdrs"],
      options,
    );
    const coordinated = collect(coordinator, 150_000);
    await stderrLine(coordinator, /"msg":"work units queued"/);
    await new Promise((resolve) => setTimeout(resolve, (NO_WORKER_TIMEOUT_S + 5) * 1000));
    expect(coordinator.exitCode, "still waiting past no_worker_timeout").toBeNull();
    const worker = spawnCli(["worker", "--units", String(ACCOUNTS)], options);
    const workerDone = collect(worker, 150_000);
    const result = await coordinated;
    worker.kill("SIGTERM");
    await workerDone;
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toMatch(/^run \d+ \(succeeded, exit 0\)/m);
  });
});

/** The last distributed run ended failed (exit 1) and none of its units is left to load (`cancelled` units: `cancelled`). */
async function expectLastRunGivenUp(db: TestDatabase, cancelled?: number): Promise<void> {
  const run = await sql<{ id: number; status: string; exit_code: number }>`
    SELECT id, status, exit_code FROM etl.runs WHERE arguments->>'distributed' = 'true' ORDER BY id DESC LIMIT 1`.execute(
    db.warehouse.db,
  );
  expect(run.rows[0]).toMatchObject({ status: "failed", exit_code: 1 });
  const states = await sql<{ state: string }>`
    SELECT state::text AS state FROM etl_queue.job WHERE data->>'coordinatorRunId' = ${String(run.rows[0]!.id)}`.execute(
    db.warehouse.db,
  );
  expect(states.rows.every((r) => r.state === "cancelled" || r.state === "completed")).toBe(true);
  if (cancelled !== undefined)
    expect(states.rows.filter((r) => r.state === "cancelled")).toHaveLength(cancelled);
}
