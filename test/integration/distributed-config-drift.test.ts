/**
 * Issue 32 item 2: a worker not redeployed after a config change (its file reads 3 of the 7
 * streams, `settle_hours: 1`) took the units of two nights and loaded them by its own file: four
 * streams never loaded nor mentioned, late CDRs lost, exit 0. Each unit now carries its
 * coordinator's settings, so this worker loads exactly the coordinator's plan: after two nights every
 * stream of every account equals the sandbox's truth, late CDRs included, and the coordinator's
 * summary lists all 7 streams of each account. A worker whose config lacks the key variable the
 * coordinator's names refuses the unit in one line naming it.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { STREAMS, type StreamName } from "../../src/streams/registry.js";
import { collect, runCli, spawnCli, stderrLine } from "../helpers/cli.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";
import { expectedRows, loadedRows, setSandboxClock } from "./pipeline-harness.js";
import { fleetOptions } from "./worker-fleet.js";

const START = "2026-08-01";
const NIGHTS = ["2026-08-04T02:00:00Z", "2026-08-05T02:00:00Z"];
/** The coordinator's streams (7); the stale worker's file reads only the first 3. */
const PLANNED: readonly StreamName[] = [
  "cdrs",
  "short_link_metrics",
  "invoices",
  "messages",
  "sip_trunks",
  "numbers",
  "call_webhooks",
];
const STALE = PLANNED.slice(0, 3);

const it = fixtureTest.extend("options", { scope: "file" }, ({ rig }) =>
  fleetOptions(rig, {
    accountYaml: "    rate: { requests_per_second: 50, burst: 10, concurrency: 4 }\n",
    yaml: [
      `start_date: "${START}"\nstreams: [${PLANNED.join(", ")}]\n`,
      "distributed:\n  heartbeat_seconds: 10\n  retry_limit: 1\n  worker_units: 2\n",
    ].join(""),
    now: NIGHTS[0]!,
  }),
);
it.override({
  sandboxOptions: {
    seed: 3202,
    start: START,
    days: 6,
    accounts: 2,
    callsPerDay: 200,
    lateShare: 0.1,
    now: NIGHTS[0],
  },
});

/** The coordinator's config file rewritten as the stale worker's: 3 streams, settled after 1 hour. */
async function staleConfig(cwd: string): Promise<string> {
  const coordinator = await readFile(path.join(cwd, "telecom-etl.yaml"), "utf8");
  const file = path.join(cwd, "stale-worker.yaml");
  await writeFile(
    file,
    coordinator.replace(
      `streams: [${PLANNED.join(", ")}]`,
      `streams: [${STALE.join(", ")}]\nsettle_hours: 1`,
    ),
  );
  return file;
}

describe("a worker whose config differs from its coordinator's", () => {
  it("loads exactly the coordinator's plan for two nights: every stream == truth, late CDRs included", {
    timeout: 300_000,
  }, async ({ rig, options }) => {
    const { sandbox, db } = rig;
    const config = await staleConfig(options.cwd);
    expect(await readFile(config, "utf8")).toContain("settle_hours: 1");
    // The CDRs of the days a 1-hour settling closes on the first night, as listed that night.
    const first = sandbox.world.accounts[0]!.name;
    const closedDays = { from: START, to: "2026-08-03" };
    const listedFirstNight = new Set(await expectedRows(sandbox, "cdrs", first, closedDays));
    for (const night of NIGHTS) {
      await setSandboxClock(sandbox, night);
      const env = { ...options.env, TELECOM_ETL_NOW: night };
      const worker = spawnCli(["--config", config, "worker"], { ...options, env });
      const workerDone = collect(worker, 240_000);
      await stderrLine(worker, /"msg":"worker started/);
      const result = await runCli(["run", "--distributed"], { ...options, env, timeoutMs: 240_000 });
      worker.kill("SIGTERM");
      const stopped = await workerDone;
      expect(result.code, result.stderr.slice(-3000)).toBe(0);
      // The coordinator's summary names every planned stream of every account.
      for (const account of sandbox.world.accounts)
        for (const stream of PLANNED)
          expect(result.stdout, `${account.name}/${stream} in the summary`).toMatch(
            new RegExp(`^  ${account.name}/${stream} +succeeded `, "m"),
          );
      // The worker said its own config differs, and loaded by the coordinator's.
      expect(stopped.stderr).toMatch(
        /"msg":"this worker's config differs from its coordinator's in streams, settle_hours:/,
      );
    }

    const today = NIGHTS[1]!.slice(0, 10);
    for (const account of sandbox.world.accounts) {
      for (const stream of PLANNED) {
        const range = STREAMS[stream].slicing === "full_refresh" ? {} : { from: START, to: today };
        const expected = await expectedRows(sandbox, stream, account.name, range);
        // The streams the stale file does not read have rows: their equality is not of two empty lists.
        if (!STALE.includes(stream) || stream === "cdrs")
          expect(expected.length, `${account.name}/${stream} has rows in the truth`).toBeGreaterThan(0);
        expect(await loadedRows(db.warehouse, stream, account.name), `${account.name}/${stream}`).toEqual(
          expected,
        );
      }
    }
    // The late CDRs a 1-hour settling would have lost: listed only after the first night, for days
    // it would have closed; they are in the warehouse (the whole-table equality above says so too).
    const late = (await expectedRows(sandbox, "cdrs", first, closedDays)).filter(
      (r) => !listedFirstNight.has(r),
    );
    expect(late.length, "late CDRs of days a 1-hour settling closed on the first night").toBeGreaterThan(0);
    const loaded = new Set(await loadedRows(db.warehouse, "cdrs", first));
    expect(late.filter((r) => !loaded.has(r))).toEqual([]);
  });

  it("refuses a unit whose account's key variable (as the coordinator's config names it) it lacks, in one line", async ({
    rig,
    options,
  }) => {
    const { sandbox } = rig;
    const account = sandbox.world.accounts[0]!.name;
    const coordinatorConfig = path.join(options.cwd, "renamed-key.yaml");
    const original = await readFile(path.join(options.cwd, "telecom-etl.yaml"), "utf8");
    // The coordinator's config now reads the first account's key from another variable, which only
    // the coordinator's environment sets.
    await writeFile(
      coordinatorConfig,
      original
        .replace("api_key_env: FLEET_TEST_KEY_0\n", "api_key_env: RENAMED_KEY_0\n")
        .replace("retry_limit: 1", "retry_limit: 0"),
    );
    const worker = spawnCli(["worker"], options);
    const workerDone = collect(worker, 120_000);
    await stderrLine(worker, /"msg":"worker started/);
    const result = await runCli(
      ["--config", coordinatorConfig, "run", "--distributed", "--accounts", account, "--streams", "cdrs"],
      {
        ...options,
        env: { ...options.env, RENAMED_KEY_0: sandbox.world.accounts[0]!.apiKey },
        timeoutMs: 120_000,
      },
    );
    worker.kill("SIGTERM");
    await workerDone;
    expect(result.code, result.stderr.slice(-2000)).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `account ${account}: env var RENAMED_KEY_0 is not set; .*the coordinator's config reads the key from RENAMED_KEY_0 \\(this worker's config names FLEET_TEST_KEY_0\\)`,
      ),
    );
    expect(result.stdout + result.stderr).not.toContain(sandbox.world.accounts[0]!.apiKey);
  });
});
