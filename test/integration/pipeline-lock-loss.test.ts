import pg from "pg";
import { LockHeldError } from "../../src/core/errors.js";
import type { PipelineResult } from "../../src/pipeline/run/run-pipeline.js";
import { logProgress, type ProgressReporter } from "../../src/pipeline/run/run-progress.js";
import { streamLockKey } from "../../src/warehouse/coordination/stream-locks.js";
import { describe, expect, it } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import {
  capturingLogger,
  completedLabels,
  expectedRows,
  loadedRows,
  runAt,
  SAMPLE_STREAMS,
  sandboxConfig,
  truthRange,
} from "./pipeline-harness.js";

/**
 * Issue "nothing lost", item 4: the run's lock session and its load connections survive what the
 * database does to them. (a) The lock session ends mid-run (pg_terminate_backend, with
 * idle_session_timeout set on the database): the run takes its locks again, and a second run
 * started meanwhile is refused; if another run got a lock first, the run stops starting windows
 * and ends with exit 4, having written nothing without its lock. (b) A load connection ends
 * mid-COPY: that window's transaction fails and is loaded again on a new connection; the run ends
 * normally. No crash, no 'running' run left, the warehouse equals the truth.
 */
it.override({
  sandboxOptions: { seed: 51, start: "2026-08-01", days: 14, accounts: 1, callsPerDay: 600, latencyMs: 80 },
});

/** A plain connection to the test database, for the test's own hand on the server. */
async function adminClient(db: TestDatabase): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  return client;
}

/** A progress reporter that calls `onFirstWindow` once, when the run has loaded its first window. */
function afterFirstWindow(log: Parameters<typeof logProgress>[0], onFirstWindow: () => Promise<void>) {
  const base = logProgress(log);
  let fired: Promise<void> | undefined;
  const reporter: ProgressReporter = {
    ...base,
    windowDone(id, progress) {
      base.windowDone(id, progress);
      fired ??= onFirstWindow();
    },
  };
  return { reporter, fired: () => fired };
}

/** The backend pid of run `runId`'s lock session, or null when it has none now. */
async function lockSessionPid(admin: pg.Client, runId: number): Promise<number | null> {
  const result = await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1",
    [`telecom-etl run ${runId} pid %`],
  );
  return result.rows[0]?.pid ?? null;
}

/**
 * The sandbox config at 8 requests/s: the windows after the first take seconds, so what the test
 * does after the first window (kill the lock session, start a rival) happens while windows are
 * still to start even on a loaded machine (at full speed the run could end first).
 */
function slowConfig(sandbox: Parameters<typeof sandboxConfig>[0]) {
  const base = sandboxConfig(sandbox);
  return {
    ...base,
    accounts: base.accounts.map((a) => ({
      ...a,
      rate: { requestsPerSecond: 8, burst: 2, concurrency: 2 },
    })),
  };
}

async function expectTruth(db: TestDatabase, sandbox: Parameters<typeof expectedRows>[0], today: string) {
  const account = sandbox.world.accounts[0]!.name;
  for (const stream of SAMPLE_STREAMS) {
    const range = truthRange(stream, "2026-08-01", today);
    expect(await loadedRows(db.warehouse, stream, account), stream).toEqual(
      await expectedRows(sandbox, stream, account, range),
    );
  }
}

describe("locks and connections that survive the database", () => {
  it("the lock session killed mid-run under idle_session_timeout: locks taken again, a second run refused, truth", async ({
    sandbox,
    createDatabase,
  }) => {
    const db = await createDatabase();
    const admin = await adminClient(db);
    try {
      // Every new session of this database is ended after 1 s idle: the pool's, and the lock session unless it protects itself.
      await admin.query(`ALTER DATABASE ${db.name} SET idle_session_timeout = '1s'`);
      const config = slowConfig(sandbox);
      const lines: string[] = [];
      const log = capturingLogger(lines);
      let second: Promise<unknown> | undefined;
      const { reporter, fired } = afterFirstWindow(log, async () => {
        const runId = Number((await admin.query("SELECT max(id) AS id FROM etl.runs")).rows[0].id);
        const pid = await lockSessionPid(admin, runId);
        expect(pid).not.toBeNull();
        await admin.query("SELECT pg_terminate_backend($1)", [pid]);
        // Wait until the run holds its locks again on a new session, then a second run must be refused.
        await expect
          .poll(async () => lockSessionPid(admin, runId), { interval: 20, timeout: 10_000 })
          .not.toBe(pid);
        await expect
          .poll(async () => lockSessionPid(admin, runId), { interval: 20, timeout: 10_000 })
          .not.toBeNull();
        second = runAt(db.warehouse, config, sandbox, { command: "run" }).then(
          () => "loaded",
          (error: unknown) => error,
        );
      });
      const first = await runAt(
        db.warehouse,
        config,
        sandbox,
        { command: "run" },
        { log, progress: reporter },
      );
      await fired();
      expect(first.exitCode, JSON.stringify(first.streams.map((s) => s.errors))).toBe(0);
      expect(await second).toBeInstanceOf(LockHeldError);
      // The one loss was ours: the idle timeout never ended the lock session (it turns the timeout off).
      expect(lines.filter((line) => line.includes("the lock session was lost"))).toHaveLength(1);
      await expectTruth(db, sandbox, first.today);
      const runs = await admin.query("SELECT status, exit_code FROM etl.runs ORDER BY id");
      expect(runs.rows).toEqual([
        { status: "succeeded", exit_code: 0 },
        { status: "failed", exit_code: 4 },
      ]);
    } finally {
      await admin.end();
    }
  });

  it("another run takes a lock while the session is gone: the run stops starting windows, exit 4, nothing written without it", async ({
    sandbox,
    createDatabase,
  }) => {
    const db = await createDatabase();
    const admin = await adminClient(db);
    const intruder = await adminClient(db);
    try {
      const config = slowConfig(sandbox);
      const account = config.accounts[0]!.name;
      const { reporter, fired } = afterFirstWindow(capturingLogger([]), async () => {
        const runId = Number((await admin.query("SELECT max(id) AS id FROM etl.runs")).rows[0].id);
        const pid = await lockSessionPid(admin, runId);
        await intruder.query("SET application_name = 'telecom-etl run 999 pid 4242@other-host'");
        const intruderPid = Number((await intruder.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
        // Queue for the lock first, then terminate the run's lock session: the waiting intruder is
        // granted it the moment the session is gone, before the run can reconnect and take it back.
        const taken = intruder.query("SELECT pg_advisory_lock($1::bigint)", [
          streamLockKey({ account, stream: "cdrs" }),
        ]);
        for (let i = 0; i < 200; i++) {
          const waiting = await admin.query(
            "SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1",
            [intruderPid],
          );
          if (waiting.rows[0]?.waiting === true) break;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        await admin.query("SELECT pg_terminate_backend($1)", [pid]);
        await taken;
      });
      const outcome = await runAt(
        db.warehouse,
        config,
        sandbox,
        { command: "run" },
        { progress: reporter },
      ).then(
        (result: PipelineResult) => result,
        (error: unknown) => error,
      );
      await fired();
      expect(outcome).toBeInstanceOf(LockHeldError);
      const message = (outcome as Error).message;
      expect(message).toMatch(
        /^lost the lock of stream cdrs of account master \(its database session ended: .*\) and another run holds it now \(pid 4242 on host other-host, run 999\); this run stopped starting windows$/,
      );
      expect(message).not.toContain("\n");
      const runs = await admin.query("SELECT status, exit_code FROM etl.runs");
      expect(runs.rows).toEqual([{ status: "failed", exit_code: 4 }]);
      // Whatever it completed before, it completed with every row of the truth.
      for (const label of await completedLabels(db.warehouse, account, "cdrs")) {
        const [start, end] = label.split("..") as [string, string];
        const last = new Date(Date.parse(`${end}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
        expect(await loadedRows(db.warehouse, "cdrs", account, { start, end }), label).toEqual(
          await expectedRows(sandbox, "cdrs", account, { from: start, to: last }),
        );
      }
      // It stopped starting windows: fewer were loaded than it planned.
      const loaded = await admin.query(
        "SELECT count(*)::int AS n FROM etl.run_slices WHERE status = 'succeeded'",
      );
      const planned = await admin.query("SELECT sum(windows_planned)::int AS n FROM etl.run_streams");
      expect(loaded.rows[0].n).toBeLessThan(planned.rows[0].n);
      await intruder.query("SELECT pg_advisory_unlock_all()");
      const again = await runAt(db.warehouse, config, sandbox, { command: "run" });
      expect(again.exitCode).toBe(0);
      await expectTruth(db, sandbox, again.today);
    } finally {
      await intruder.end();
      await admin.end();
    }
  });

  it("a load connection killed mid-COPY: the window is loaded again on a new connection, the run ends normally", async ({
    sandbox,
    createDatabase,
  }) => {
    const db = await createDatabase();
    const admin = await adminClient(db);
    try {
      const config = sandboxConfig(sandbox);
      const lines: string[] = [];
      let killed = 0;
      let done = false;
      // Kill the first COPY seen in flight (a load's stage or direct insert), from outside.
      const hunter = (async () => {
        while (!done && killed === 0) {
          const result = await admin.query<{ ok: boolean }>(
            `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
             WHERE datname = current_database() AND state = 'active' AND query LIKE 'COPY %' AND pid <> pg_backend_pid()
             LIMIT 1`,
          );
          if (result.rows[0]?.ok === true) killed++;
        }
      })();
      const result = await runAt(
        db.warehouse,
        config,
        sandbox,
        { command: "run" },
        { log: capturingLogger(lines) },
      );
      done = true;
      await hunter;
      expect(killed).toBe(1);
      expect(result.exitCode, JSON.stringify(result.streams.map((s) => s.errors))).toBe(0);
      const lost = lines.filter((line) => line.includes("the warehouse connection was lost while loading"));
      expect(lost.length).toBeGreaterThan(0);
      // The stream by its name, not its whole definition (columns, schema: kilobytes per line).
      for (const line of lost) {
        expect(typeof (JSON.parse(line) as { stream: unknown }).stream).toBe("string");
        expect(line.length).toBeLessThan(600);
      }
      await expectTruth(db, sandbox, result.today);
      const runs = await admin.query("SELECT status, exit_code FROM etl.runs");
      expect(runs.rows).toEqual([{ status: "succeeded", exit_code: 0 }]);
    } finally {
      await admin.end();
    }
  });
});
