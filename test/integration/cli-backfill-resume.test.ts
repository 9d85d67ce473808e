import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { addDays } from "../../src/core/utc-days.js";
import { collect, runCli, spawnCli } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import type { TestDatabase } from "../helpers/test-database.js";
import { completedLabels, expectedRows, loadedRows } from "./pipeline-harness.js";

const FROM = "2026-08-01";
const TO = "2026-08-10";
const STREAMS = ["cdrs", "short_link_metrics"] as const;
const BACKFILL = ["backfill", "--streams", STREAMS.join(","), "--from", FROM, "--to", TO];
/** Every day of the range. */
const DAYS = Array.from({ length: 10 }, (_, i) => addDays(FROM, i));

const it = fixtureTest
  .extend("workdir", { scope: "file" }, async ({ sandbox }) => {
    const workdir = await mkdtemp(path.join(tmpdir(), "telecom-etl-resume-"));
    await chmod(workdir, 0o755);
    const account = sandbox.world.accounts[0]!;
    await writeFile(
      path.join(workdir, "telecom-etl.yaml"),
      `accounts:\n  - name: ${account.name}\n    base_url: ${sandbox.url}\n    api_key_env: RESUME_KEY\n    rate: { requests_per_second: 25, burst: 5, concurrency: 2 }\n`,
    );
    return workdir;
  })
  .extend(
    "env",
    { scope: "file" },
    ({ sandbox }): Record<string, string> => ({
      RESUME_KEY: sandbox.world.accounts[0]!.apiKey,
    }),
  );
it.override({
  sandboxOptions: { seed: 8, start: FROM, days: 10, accounts: 1, callsPerDay: 600, latencyMs: 5 },
});

/** The windows (`start..end` labels) each run read, by run id. */
async function windowsReadByRun(db: TestDatabase): Promise<Map<number, string[]>> {
  const rows = await db.warehouse.db
    .selectFrom("etl.run_slices")
    .select(["run_id", "stream", "window_start", "window_end"])
    .orderBy("run_id")
    .orderBy("stream")
    .orderBy("window_start")
    .execute();
  const byRun = new Map<number, string[]>();
  for (const r of rows) {
    const list = byRun.get(Number(r.run_id)) ?? [];
    list.push(`${r.stream} ${r.window_start}..${r.window_end}`);
    byRun.set(Number(r.run_id), list);
  }
  return byRun;
}

/** The windows settled in the warehouse, as `stream start..end` labels of single days. */
async function settledDays(db: TestDatabase, account: string): Promise<string[]> {
  const days: string[] = [];
  for (const stream of STREAMS) {
    const covered = (await completedLabels(db.warehouse, account, stream)).map((l) => l.split(".."));
    for (const day of DAYS)
      if (covered.some(([s, e]) => s! <= day && addDays(day, 1) <= e!))
        days.push(`${stream} ${day}..${addDays(day, 1)}`);
  }
  return days;
}

/** Requests the sandbox has answered so far. */
async function sandboxRequests(url: string): Promise<number> {
  const stats = (await (await fetch(`${url}/_sandbox/stats`)).json()) as { total: number };
  return stats.total;
}

describe("backfill skips settled windows; an interrupted one says how to finish (CLI)", () => {
  it("a backfill run again reads none of the windows it settled; --refetch reads them all", async ({
    sandbox,
    workdir,
    env,
    createDatabase,
  }) => {
    const db = await createDatabase();
    const options = { env: { ...env, DATABASE_URL: db.url }, cwd: workdir };
    const account = sandbox.world.accounts[0]!.name;
    const before = await sandboxRequests(sandbox.url);
    const first = await runCli(BACKFILL, options);
    expect(first.code, first.stderr.slice(-1000)).toBe(0);
    const firstRequests = (await sandboxRequests(sandbox.url)) - before;
    const settled = await settledDays(db, account);
    // The sandbox's clock is 2026-08-11: with 72 settle hours Aug 1-7 are final, Aug 8-10 are not.
    expect(settled.length).toBe(2 * 7);

    const second = await runCli(BACKFILL, options);
    expect(second.code, second.stderr.slice(-1000)).toBe(0);
    const secondRequests = (await sandboxRequests(sandbox.url)) - before - firstRequests;
    const runs = await windowsReadByRun(db);
    const all = STREAMS.flatMap((s) => DAYS.map((d) => `${s} ${d}..${addDays(d, 1)}`));
    expect(runs.get(1)).toEqual(all);
    expect(runs.get(2)).toEqual(all.filter((w) => !settled.includes(w)));
    expect(secondRequests).toBeLessThan(firstRequests / 2);
    expect(second.stdout).toContain(
      `${account}/cdrs: 7 window(s) of the range already settled, not read again`,
    );

    const refetch = await runCli([...BACKFILL, "--refetch"], options);
    expect(refetch.code, refetch.stderr.slice(-1000)).toBe(0);
    expect((await windowsReadByRun(db)).get(3)).toEqual(all);
    for (const stream of STREAMS)
      expect(await loadedRows(db.warehouse, stream, account)).toEqual(
        await expectedRows(sandbox, stream, account, { from: FROM, to: TO }),
      );
  });

  it("SIGINT mid-backfill: the summary ends with the command that finishes it; that command reads only what is left", async ({
    sandbox,
    workdir,
    env,
    createDatabase,
  }) => {
    const db = await createDatabase();
    const options = { env: { ...env, DATABASE_URL: db.url }, cwd: workdir };
    const account = sandbox.world.accounts[0]!.name;
    const args = ["--log-level", "info", ...BACKFILL];
    const child = spawnCli(args, options);
    const finished = collect(child, 120_000);
    let loaded = 0;
    child.stderr?.on("data", (chunk: Buffer) => {
      loaded += chunk.toString().split('"msg":"window loaded"').length - 1;
      if (loaded >= 4 && child.exitCode === null && !child.killed) child.kill("SIGINT");
    });
    const interrupted = await finished;
    expect(interrupted.code, interrupted.stderr.slice(-1000)).toBe(130);
    const settled = await settledDays(db, account);
    expect(settled.length).toBeGreaterThan(0);
    expect(settled.length).toBeLessThan(14);
    // The first day some stream still lacks (computed here from the warehouse's settled windows).
    const firstOpen = DAYS.find((d) =>
      STREAMS.some((s) => !settled.includes(`${s} ${d}..${addDays(d, 1)}`)),
    )!;
    const lines = interrupted.stdout.trim().split("\n");
    const expected = `telecom-etl --log-level info backfill --streams ${STREAMS.join(",")} --from ${firstOpen} --to ${TO}`;
    expect(lines.at(-1)).toMatch(/^ {2}interrupted with \d+ window\(s\) not finished; to finish, run: /);
    expect(lines.at(-1)!.endsWith(`to finish, run: ${expected}`)).toBe(true);
    expect(interrupted.stderr).toContain(expected); // in the log too (cron, k8s)

    const resume = expected.split(" ").slice(1);
    const resumed = await runCli(resume, options);
    expect(resumed.code, resumed.stderr.slice(-1000)).toBe(0);
    const read = (await windowsReadByRun(db)).get(2) ?? [];
    for (const window of read) expect(settled).not.toContain(window);
    expect(await settledDays(db, account)).toHaveLength(14);
    for (const stream of STREAMS)
      expect(await loadedRows(db.warehouse, stream, account)).toEqual(
        await expectedRows(sandbox, stream, account, { from: FROM, to: TO }),
      );
  });
});
