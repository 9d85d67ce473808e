import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import { addDays } from "../../src/core/utc-days.js";
import type { StreamStatus } from "../../src/warehouse/state/stream-status.js";
import { collect, runCli, spawnCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { completedLabels, duplicateKeys, expectedRows, loadedRows } from "./pipeline-harness.js";

const FROM = "2026-08-01";
const TO = "2026-08-10";
/**
 * Windows a complete backfill settles: the sandbox's clock is 2026-08-11 00:00, so with 72 settle
 * hours the windows of Aug 1-7 are final (2 accounts x 2 streams x 7 days); Aug 8-10 stay open.
 */
const SETTLED_WHEN_DONE = 28;
const STREAMS = ["cdrs", "short_link_metrics"] as const;

/** A tiny seeded generator, so every seed kills at its own, reproducible point. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const it = fixtureTest
  /** A working directory whose config names the file's sandbox accounts, their keys from CRASH_KEY_<i>. */
  .extend("workdir", { scope: "file" }, async ({ sandbox }) => {
    const workdir = await mkdtemp(path.join(tmpdir(), "telecom-etl-crash-"));
    await chmod(workdir, 0o755);
    const accounts = sandbox.world.accounts.map(
      (a, i) =>
        `  - name: ${a.name}\n    base_url: ${sandbox.url}\n    api_key_env: CRASH_KEY_${i}\n    rate: { requests_per_second: 200, burst: 50, concurrency: 4 }\n`,
    );
    await writeFile(path.join(workdir, "telecom-etl.yaml"), `accounts:\n${accounts.join("")}per_page: 100\n`);
    return workdir;
  })
  /** The accounts' keys, as the config expects them. */
  .extend(
    "env",
    { scope: "file" },
    ({ sandbox }): Record<string, string> =>
      Object.fromEntries(sandbox.world.accounts.map((a, i) => [`CRASH_KEY_${i}`, a.apiKey])),
  );
it.override({
  sandboxOptions: { seed: 3, start: FROM, days: 10, accounts: 2, callsPerDay: 1500, latencyMs: 2 },
});

/**
 * Issue 4, test 2: the built CLI is SIGKILLed at seeded random points of a backfill (two accounts,
 * two streams); afterwards no window is marked complete whose rows are not all there, no key is
 * duplicated, and running the backfill again ends with tables equal to the truth.
 */
describe("crash and resume (CLI, SIGKILL)", () => {
  /** Waits until Postgres has ended the lock session of every run (a killed client's is closed soon). */
  async function waitForNoLockSessions(db: TestDatabase): Promise<void> {
    const openSessions = async () => {
      const open = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE 'telecom-etl run %'`.execute(
        db.warehouse.db,
      );
      return open.rows[0]?.n;
    };
    await expect
      .poll(openSessions, {
        interval: 100,
        timeout: 10_000,
        message: "a lock session outlived its killed process by 10 s",
      })
      .toBe(0);
  }

  async function assertNoFalseCompletion(sandbox: RunningSandbox, db: TestDatabase): Promise<number> {
    let completed = 0;
    for (const account of sandbox.world.accounts.map((a) => a.name)) {
      for (const stream of STREAMS) {
        for (const label of await completedLabels(db.warehouse, account, stream)) {
          const [start, end] = label.split("..") as [string, string];
          const expected = await expectedRows(sandbox, stream, account, {
            from: start,
            to: addDays(end, -1),
          });
          expect(
            await loadedRows(db.warehouse, stream, account, { start, end }),
            `${account}/${stream} ${label}`,
          ).toEqual(expected);
          completed++;
        }
      }
    }
    expect(await duplicateKeys(db.warehouse, "cdrs")).toBe(0);
    return completed;
  }

  it("SIGINT stops scheduling windows: exit 130, the run recorded as interrupted, completed windows kept", async ({
    sandbox,
    workdir,
    env,
    createDatabase,
  }) => {
    const db = await createDatabase();
    const args = ["backfill", "--streams", STREAMS.join(","), "--from", FROM, "--to", TO];
    const options = { env: { ...env, DATABASE_URL: db.url }, cwd: workdir };
    const child = spawnCli(args, options);
    const finished = collect(child, 120_000);
    let loaded = 0;
    child.stderr?.on("data", (chunk: Buffer) => {
      loaded += chunk.toString().split('"msg":"window loaded"').length - 1;
      if (loaded >= 5 && child.exitCode === null && !child.killed) child.kill("SIGINT");
    });
    const result = await finished;
    expect(result.code, result.stderr.slice(-1000)).toBe(130);
    expect(result.stderr).toContain("SIGINT received");
    const completed = await assertNoFalseCompletion(sandbox, db);
    expect(completed).toBeGreaterThanOrEqual(5);
    expect(completed).toBeLessThan(SETTLED_WHEN_DONE);
    const runs = await db.warehouse.db.selectFrom("etl.runs").select(["status", "exit_code"]).execute();
    expect(runs).toEqual([{ status: "interrupted", exit_code: 130 }]);
    const failed = await db.warehouse.db
      .selectFrom("etl.run_slices")
      .select("id")
      .where("status", "=", "failed")
      .execute();
    expect(failed).toEqual([]);
  });

  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: killed mid-backfill, then resumed to the truth`, async ({
      sandbox,
      workdir,
      env,
      createDatabase,
    }) => {
      const db = await createDatabase();
      const random = mulberry32(seed);
      const args = ["backfill", "--streams", STREAMS.join(","), "--from", FROM, "--to", TO];
      const options = { env: { ...env, DATABASE_URL: db.url }, cwd: workdir };
      // Kill after a seeded number of loaded windows (40 in all, the first 28 of which settle), plus a
      // seeded delay inside the next ones: always before every settling window is in.
      const killAfter = 1 + Math.floor(random() * (SETTLED_WHEN_DONE - 4));
      const extraDelayMs = Math.floor(random() * 60);
      const child = spawnCli(args, options);
      const finished = collect(child, 120_000);
      let loaded = 0;
      child.stderr?.on("data", (chunk: Buffer) => {
        loaded += chunk.toString().split('"msg":"window loaded"').length - 1;
        if (loaded >= killAfter && child.exitCode === null && !child.killed) {
          setTimeout(() => child.kill("SIGKILL"), extraDelayMs);
        }
      });
      const crashed = await finished;
      expect(crashed.signal, crashed.stderr.slice(-1000)).toBe("SIGKILL");
      expect(await assertNoFalseCompletion(sandbox, db)).toBeLessThan(SETTLED_WHEN_DONE);

      // The killed run could not record its end; once Postgres has closed its lock session,
      // `status` notices its process is gone and shows it abandoned instead of running forever.
      await waitForNoLockSessions(db);
      const status = await runCli(["status", "--json"], options);
      expect(status.code, status.stderr.slice(-1000)).toBe(0);
      // Invoices are configured but not part of the backfill: status lists them, never run.
      const statuses = JSON.parse(status.stdout) as StreamStatus[];
      expect(statuses.filter((s) => s.stream === "invoices").map((s) => s.lastRun)).toEqual([null, null]);
      const lastRuns = statuses
        .filter((s) => (STREAMS as readonly string[]).includes(s.stream))
        .map((s) => s.lastRun);
      expect(lastRuns.length).toBeGreaterThan(0);
      for (const run of lastRuns) expect(run).toMatchObject({ status: "abandoned", pid: child.pid });
      const text = await runCli(["status"], options);
      expect(text.stdout).toContain("abandoned, started");
      expect(text.stdout).toContain(`its process (pid ${child.pid} on host`);
      expect(text.stdout).not.toMatch(/ running[,;]/);

      const resumed = await runCli(args, options);
      expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
      expect(await assertNoFalseCompletion(sandbox, db)).toBe(SETTLED_WHEN_DONE);
      for (const account of sandbox.world.accounts.map((a) => a.name)) {
        for (const stream of STREAMS) {
          expect(await loadedRows(db.warehouse, stream, account), `${account}/${stream}`).toEqual(
            await expectedRows(sandbox, stream, account, { from: FROM, to: TO }),
          );
        }
      }
      const runs = await db.warehouse.db
        .selectFrom("etl.runs")
        .select(["status", "exit_code"])
        .orderBy("id")
        .execute();
      expect(runs.at(-1)).toEqual({ status: "succeeded", exit_code: 0 });
      expect(runs[0]).toEqual({ status: "abandoned", exit_code: null });
    });
  }
});
