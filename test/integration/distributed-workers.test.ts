/**
 * Issue 17: a distributed run on three worker processes. One is killed (SIGKILL) in the middle of a
 * unit, one starts late; the run completes, the warehouse equals the sandbox's truth, no unit is
 * done twice, the sandbox never throttled a key; a worker of another schema refuses to start.
 */
import { chmod, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { CLI_PATH, collect, runCli, spawnCli, stderrLine } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import { onTerminal, replayTerminal } from "../helpers/terminal-screen.js";
import { duplicateKeys, expectedRows, loadedRows } from "./pipeline-harness.js";
import { fleetKeyEnv, fleetOptions, runWithKilledAndLateWorker } from "./worker-fleet.js";

const ACCOUNTS = 6;
const STREAMS = ["cdrs", "short_link_metrics"];

const it = fixtureTest.extend("options", { scope: "file" }, ({ rig }) =>
  fleetOptions(rig, {
    accountYaml: "    rate: { requests_per_second: 8, burst: 1, concurrency: 2 }\n",
    yaml: [
      `start_date: "2026-08-01"\nstreams: [${STREAMS.join(", ")}]\n`,
      "distributed:\n  heartbeat_seconds: 10\n  retry_limit: 2\n  worker_units: 1\n  unit_lock_timeout_seconds: 60\n",
    ].join(""),
    now: "2026-08-06T00:00:00Z",
  }),
);
it.override({
  sandboxOptions: {
    seed: 17,
    start: "2026-08-01",
    days: 5,
    accounts: ACCOUNTS,
    callsPerDay: 300,
    latencyMs: 120,
    rateLimit: 10,
  },
});

describe("distributed run on worker processes", () => {
  it("survives a worker killed mid-unit and a late worker: truth, each unit done once, no 429", async ({
    rig,
    options,
  }) => {
    const { sandbox, db } = rig;
    // Kill the first worker in the middle of a unit: after its first window of that unit loaded.
    const { result, killed, stopped, late, killedPid, latePid } = await runWithKilledAndLateWorker(options);
    expect(result.code, result.stderr.slice(-3000)).toBe(0);
    expect(killed.signal).toBe("SIGKILL");
    expect(stopped.code, stopped.stderr.slice(-1500)).toBe(0);
    expect(late.code, late.stderr.slice(-1500)).toBe(0);

    // Warehouse == truth, without a duplicate.
    let truthRows = 0;
    for (const account of sandbox.world.accounts) {
      for (const stream of STREAMS) {
        const expected = await expectedRows(sandbox, stream, account.name, {
          from: "2026-08-01",
          to: "2026-08-06",
        });
        truthRows += expected.length;
        expect(await loadedRows(db.warehouse, stream, account.name), `${account.name}/${stream}`).toEqual(
          expected,
        );
      }
    }
    expect(await duplicateKeys(db.warehouse, "cdrs")).toBe(0);

    // Each unit done once: one succeeded unit run per account; the killed worker's run never succeeded.
    const coordinatorRun = await db.warehouse.db
      .selectFrom("etl.runs")
      .select(["id", "status", "exit_code"])
      .where(sql<boolean>`arguments->>'distributed' = 'true'`)
      .executeTakeFirstOrThrow();
    expect(coordinatorRun).toMatchObject({ status: "succeeded", exit_code: 0 });
    const unitRuns = await sql<{ account: string; status: string; pid: number }>`
      SELECT arguments->'accounts'->>0 AS account, status, pid FROM etl.runs
      WHERE arguments->>'unit_of_run' = ${String(coordinatorRun.id)} ORDER BY id`.execute(db.warehouse.db);
    const succeeded = unitRuns.rows.filter((r) => r.status === "succeeded");
    expect(succeeded.map((r) => r.account).sort()).toEqual(sandbox.world.accounts.map((a) => a.name).sort());
    const killedRuns = unitRuns.rows.filter((r) => r.pid === killedPid);
    expect(killedRuns.some((r) => r.status !== "succeeded")).toBe(true);
    expect(
      succeeded.some((r) => r.pid === latePid),
      "the late worker took a unit",
    ).toBe(true);
    const jobs = await sql<{ state: string; retry_count: number }>`
      SELECT state, retry_count FROM etl_queue.job
      WHERE data->>'coordinatorRunId' = ${String(coordinatorRun.id)}`.execute(db.warehouse.db);
    expect(jobs.rows.map((j) => j.state)).toEqual(Array(ACCOUNTS).fill("completed"));
    expect(jobs.rows.filter((j) => j.retry_count > 0)).toHaveLength(1);
    expect(result.stderr).toMatch(/work unit attempt failed/);
    // The coordinator's run records its streams as the units' attempts ended them (what `runs show`
    // reads), counting EVERY attempt (issue 32 item 16): into an empty warehouse each row of the truth
    // was inserted once, by the killed attempt's windows or by the retry, so the run's inserted rows
    // are the truth's; its requests are at least the last attempts' plus those the killed attempt
    // recorded for its windows, and at most what the sandbox served.
    const sums = await sql<{
      inserted: number;
      requests: number;
      last: number;
      killed: number;
      streams: number;
    }>`
      SELECT
        (SELECT sum(rows_inserted)::int FROM etl.run_streams WHERE run_id = ${coordinatorRun.id}) AS inserted,
        (SELECT sum(requests)::int FROM etl.run_streams WHERE run_id = ${coordinatorRun.id}) AS requests,
        (SELECT sum(s.requests)::int FROM etl.run_streams s JOIN etl.runs r ON r.id = s.run_id
          WHERE r.arguments->>'unit_of_run' = ${String(coordinatorRun.id)} AND r.status = 'succeeded') AS last,
        (SELECT coalesce(sum(s.requests), 0)::int FROM etl.run_slices s JOIN etl.runs r ON r.id = s.run_id
          WHERE r.arguments->>'unit_of_run' = ${String(coordinatorRun.id)} AND r.pid = ${killedPid}) AS killed,
        (SELECT count(*)::int FROM etl.run_streams WHERE run_id = ${coordinatorRun.id} AND status = 'succeeded') AS streams`.execute(
      db.warehouse.db,
    );
    const figures = sums.rows[0]!;
    expect(figures.streams).toBe(ACCOUNTS * 2);
    expect(figures.inserted).toBe(truthRows);
    expect(figures.killed, "the killed attempt recorded the requests of its windows").toBeGreaterThan(0);
    expect(figures.requests).toBeGreaterThanOrEqual(figures.last + figures.killed);
    const served = (await fetch(`${sandbox.url}/_sandbox/stats`).then((r) => r.json())) as {
      routes: Record<string, Record<string, number>>;
    };
    const requestsServed = Object.values(served.routes)
      .flatMap((byStatus) => Object.values(byStatus))
      .reduce((n, count) => n + count, 0);
    expect(figures.requests).toBeLessThanOrEqual(requestsServed);
    // The summary printed and `runs show` say the same.
    const printedInserted = [...result.stdout.matchAll(/ (\d+) inserted,/g)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    expect(printedInserted).toBe(truthRows);
    const shown = await runCli(["runs", "show", String(coordinatorRun.id)], options);
    expect(shown.stdout).toContain(`, ${truthRows} inserted, `);
    expect(shown.stdout).toContain(`requests ${figures.requests} (`);

    // No key was throttled: the sandbox limits each key to 10 requests/s.
    const stats = (await fetch(`${sandbox.url}/_sandbox/stats`).then((r) => r.json())) as {
      faults: Record<string, number>;
    };
    expect(stats.faults.rateLimited ?? 0).toBe(0);
    for (const output of [result, stopped, late])
      for (const account of sandbox.world.accounts)
        expect(output.stdout + output.stderr).not.toContain(account.apiKey);
  });

  it("a unit that fails on every attempt ends the run with exit 1 and its reason, after its retries", async ({
    rig,
    options,
  }) => {
    const { sandbox } = rig;
    // A worker deployed with an older config, which lacks the last account: its unit fails each time.
    const stale = await mkdtemp(path.join(tmpdir(), "telecom-etl-stale-worker-"));
    await chmod(stale, 0o755);
    const known = sandbox.world.accounts.slice(0, 1);
    await writeFile(
      path.join(stale, "telecom-etl.yaml"),
      `accounts:\n${known.map((a) => `  - name: ${a.name}\n    base_url: ${sandbox.url}\n    api_key_env: ${fleetKeyEnv(0)}\n`).join("")}start_date: "2026-08-01"\nstreams: [${STREAMS.join(", ")}]\ndistributed:\n  heartbeat_seconds: 10\n`,
    );
    const worker = spawnCli(["worker"], { ...options, cwd: stale });
    const workerDone = collect(worker, 120_000);
    await stderrLine(worker, /"msg":"worker started/);
    const last = sandbox.world.accounts.at(-1)!.name;
    const coordinatorConfig = path.join(options.cwd, "retry-once.yaml");
    await writeFile(
      coordinatorConfig,
      (await readFile(path.join(options.cwd, "telecom-etl.yaml"), "utf8")).replace(
        "retry_limit: 2",
        "retry_limit: 1",
      ),
    );
    const result = await runCli(
      ["--config", coordinatorConfig, "run", "--distributed", "--accounts", last, "--streams", "cdrs"],
      { ...options, timeoutMs: 120_000 },
    );
    worker.kill("SIGTERM");
    await workerDone;
    expect(result.code, result.stderr.slice(-2000)).toBe(1);
    expect(result.stdout).toContain(`unknown account "${last}"`);
    expect(result.stderr).toMatch(/"msg":"work unit attempt failed/);
    expect(result.stderr).toMatch(/"msg":"work unit failed for good"/);

    // `queue` shows the unit given up, with its attempts and reason.
    const queue = await runCli(["queue"], options);
    expect(queue.code, queue.stderr).toBe(0);
    expect(queue.stdout).toMatch(/^load-units-\d{4}-[0-9a-f]{6}: .*\b1 failed\b/m);
    expect(queue.stdout).toMatch(new RegExp(`failed: ${last} \\(run \\d+, 2 attempts\\): .*unknown account`));
  });

  // As long as its nightly may take (a load and a whole dbt build; its collect timeout), not the default 120 s.
  it("units left waiting by a killed coordinator are cancelled by the next distributed nightly, which builds the marts", {
    timeout: 300_000,
  }, async ({ rig, options }) => {
    const { sandbox, db } = rig;
    const orphaning = spawnCli(["run", "--distributed", "--streams", "cdrs"], options);
    const orphaned = collect(orphaning, 60_000);
    await stderrLine(orphaning, /"msg":"work units queued"/);
    orphaning.kill("SIGKILL");
    await orphaned;
    const first = sandbox.world.accounts[0]!.name;
    // The scheduled job itself: nightly --distributed loads through the worker, then builds the marts.
    const coordinator = spawnCli(
      ["nightly", "--distributed", "--accounts", first, "--streams", "cdrs"],
      options,
    );
    const coordinated = collect(coordinator, 300_000);
    // The worker starts once the orphans are cancelled: it must not take one of them first.
    await stderrLine(coordinator, /"msg":"work units queued"/);
    const worker = spawnCli(["worker"], options);
    // The worker runs until the coordinator's nightly (its dbt build included) ends.
    const workerDone = collect(worker, 300_000);
    const next = await coordinated;
    worker.kill("SIGTERM");
    await workerDone;
    expect(next.code, next.stderr.slice(-2000)).toBe(0);
    expect(next.stderr).toMatch(/"units":6,.*"msg":"cancelled waiting work units/);
    const states = await sql<{ state: string }>`
      SELECT j.state::text AS state FROM etl_queue.job j JOIN etl.runs r ON r.id = (j.data->>'coordinatorRunId')::bigint
      WHERE r.pid = ${orphaning.pid!}`.execute(db.warehouse.db);
    expect(states.rows.map((r) => r.state)).toEqual(Array(ACCOUNTS).fill("cancelled"));
    expect(next.stdout).toMatch(/marts published: \d+/);
    const built = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM analytics_marts.fct_calls WHERE account = ${first}`.execute(
      db.warehouse.db,
    );
    expect(built.rows[0]!.n).toBe(
      (await expectedRows(sandbox, "cdrs", first, { from: "2026-08-01", to: "2026-08-06" })).length,
    );
  });

  it("on a terminal, the coordinator draws one bar of work units, then prints the summary", async ({
    options,
  }) => {
    const worker = spawnCli(["worker", "--units", "6"], options);
    const workerDone = collect(worker, 120_000);
    await stderrLine(worker, /"msg":"worker started/);
    const shown = await onTerminal(
      `${process.execPath} ${CLI_PATH} --log-format pretty run --distributed --streams short_link_metrics`,
      {
        env: {
          ...options.env,
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "/tmp",
          TERM: "xterm",
          NO_COLOR: "1",
          TELECOM_ETL_ALLOW_PAST_NOW: "1",
        },
        cwd: options.cwd,
        columns: 400,
      },
    );
    worker.kill("SIGTERM");
    await workerDone;
    expect(shown.code, shown.output.slice(-2000)).toBe(0);
    const screen = replayTerminal(shown.output, 400).filter((l) => l !== "");
    const bars = screen.filter((l) => /[█░]/.test(l));
    expect(bars).toHaveLength(1);
    expect(bars[0]).toMatch(
      /^6 account\(s\)\/work units \|[█░]+\| 6\/6 units \| \d+ rows \| 0 failed \| [\d.]+ req\/s \| ETA \S+$/,
    );
    const summary = screen.findIndex((l) => /^run \d+ \(succeeded, exit 0\)/.test(l));
    expect(summary).toBeGreaterThan(screen.indexOf(bars[0]!));
  });

  it("a worker of another schema version refuses to start, in one line, exit 2", async ({ rig, options }) => {
    const { db } = rig;
    await sql`INSERT INTO etl.migrations (name, timestamp) VALUES ('9999_from_a_newer_release', now()::text)`.execute(
      db.warehouse.db,
    );
    try {
      const refused = await runCli(["worker"], { ...options, timeoutMs: 60_000 });
      expect(refused.code).toBe(2);
      const lines = refused.stderr.split("\n").filter((l) => l.startsWith("telecom-etl:"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/schema 9999_from_a_newer_release, newer than this worker's 00\d\d_/);
    } finally {
      await sql`DELETE FROM etl.migrations WHERE name = '9999_from_a_newer_release'`.execute(db.warehouse.db);
    }
  });
});
