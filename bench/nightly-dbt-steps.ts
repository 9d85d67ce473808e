/**
 * What a nightly costs in dbt, parsing included: the dbt steps as `telecom-etl nightly` runs them
 * (build and publication, then `dbt source freshness`), night after night on one warehouse. One
 * sandbox world; `--days` of history loaded through the loader; then each night the CLI's `nightly`
 * (a child process, as cron starts it) loads the next day and runs its dbt steps, whose seconds
 * come from the run's record (`etl.runs.dbt`), and the full parses dbt logged in that night are
 * counted ("Unable to do partial parsing" in the CLI's dbt log). Between two nights the warehouse
 * is settled (VACUUM ANALYZE + CHECKPOINT, what autovacuum does in the day between).
 * With `--other-cli`, nights alternate between this build of the CLI and another one (an older
 * commit's `dist/src/cli/bin.js`, built in a worktree of its own), each with the dbt folder of its
 * own checkout, so both are timed on the same machine, warehouse and world; each CLI's first night
 * is not timed (it builds every mart from nothing and has no saved parse yet).
 * Usage: node dist/bench/nightly-dbt-steps.js [--days 30] [--calls-per-day 20000] [--nights 3]
 *   [--other-cli ../old/dist/src/cli/bin.js]
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { addDays } from "../src/core/utc-days.js";
import type { DbtStepRecord, NightlyDbtRecord } from "../src/transform/dbt-step-record.js";
import { warehouseFolder } from "../src/transform/run-dbt.js";
import type { Warehouse } from "../src/warehouse/connection/connect-warehouse.js";
import { countCalls, settleWarehouse } from "./dbt-timing.js";
import { benchConfig, forkSandbox, runNightlyAt, startBenchWarehouse } from "./e2e-harness.js";
import { median } from "./median.js";

const { values: args } = parseArgs({
  options: {
    days: { type: "string", default: "30" },
    "calls-per-day": { type: "string", default: "20000" },
    nights: { type: "string", default: "3" },
    "other-cli": { type: "string" },
  },
});
const days = Number(args.days);
const nights = Number(args.nights);
const STREAMS = ["cdrs", "sip_trunks", "numbers", "short_link_metrics", "messages", "invoices"];
const THIS_CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src/cli/bin.js");
const clis = [THIS_CLI, ...(args["other-cli"] ? [path.resolve(args["other-cli"])] : [])];
for (const cli of clis) if (!existsSync(cli)) throw new Error(`${cli} is missing: build it first`);

/** One timed night of one CLI. */
interface Night {
  readonly cli: string;
  readonly day: string;
  readonly build: number;
  readonly freshness: number;
  readonly fullParses: number;
}

/** The dbt log a CLI writes for this warehouse (in its own checkout: `<root>/.telecom-etl/dbt/...`). */
function dbtLogOf(cli: string, databaseUrl: string): string {
  const root = path.resolve(path.dirname(cli), "../../..");
  return path.join(root, ".telecom-etl", "dbt", warehouseFolder(databaseUrl), "logs", "dbt.log");
}

/** How many times dbt logged a full parse in `file` so far. */
async function fullParsesIn(file: string): Promise<number> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("Unable to do partial parsing").length - 1;
}

/** Runs `cli nightly` as cron would, at `day` 02:00 UTC; resolves to its exit code. */
function runNightlyCli(cli: string, env: Record<string, string>): Promise<number | null> {
  const child = spawn(process.execPath, [cli, "nightly"], { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  return new Promise((resolve) =>
    child.on("close", (code) => {
      if (code !== 0 && code !== 6) console.log(`    exit ${code}: ${stderr.slice(-1500)}`);
      resolve(code);
    }),
  );
}

/** The id of the latest run recorded (0: none). */
async function latestRunId(warehouse: Warehouse): Promise<number> {
  const run = await warehouse.db
    .selectFrom("etl.runs")
    .select("id")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return run?.id ?? 0;
}

/** The dbt steps of the run recorded after run `before` (the night's nightly); throws when there is none. */
async function stepsAfter(warehouse: Warehouse, before: number): Promise<readonly DbtStepRecord[]> {
  const run = await warehouse.db
    .selectFrom("etl.runs")
    .select("dbt")
    .where("id", ">", before)
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  const steps = (run?.dbt as NightlyDbtRecord | null | undefined)?.steps;
  if (steps === undefined)
    throw new Error("the nightly recorded no dbt steps: it failed before them (above)");
  return steps;
}

/** The seconds of the dbt step named `step` among `steps`. */
function stepSeconds(steps: readonly DbtStepRecord[], step: string): number {
  const found = steps.find((s) => s.step === step);
  if (found === undefined) throw new Error(`the nightly recorded no ${step}`);
  return found.durationMs / 1000;
}

const sandbox = await forkSandbox({
  seed: 11,
  start: "2026-01-01",
  days: days + clis.length * (nights + 1) + 2,
  accounts: 1,
  callsPerDay: Number(args["calls-per-day"]),
});
const { warehouse, stop } = await startBenchWarehouse();
const configDir = await mkdtemp(path.join(tmpdir(), "nightly-dbt-steps-"));
const databaseUrl = warehouse.url;
try {
  const night0 = addDays(sandbox.start, days);
  const base = benchConfig(sandbox, { requestsPerSecond: 10_000, burst: 100, concurrency: 8 });
  const startDate = addDays(night0, -days);
  await sandbox.setClock(`${night0}T02:00:00Z`);
  const history = await runNightlyAt(
    warehouse,
    { ...base, startDate, accounts: base.accounts.map((a) => ({ ...a, streams: STREAMS })) },
    `${night0}T02:00:00Z`,
  );
  if (history.exitCode !== 0) throw new Error(`the history's load ended with exit ${history.exitCode}`);
  console.log(`${days} days of history: ${await countCalls(warehouse)} call legs landed`);
  const account = sandbox.accounts[0]!;
  const configFile = path.join(configDir, "telecom-etl.yaml");
  await writeFile(
    configFile,
    stringify({
      accounts: [
        {
          name: account.name,
          base_url: sandbox.url,
          api_key_env: "BENCH_KEY",
          rate: { requests_per_second: 10_000, burst: 100, concurrency: 8 },
        },
      ],
      streams: STREAMS,
      start_date: startDate,
    }),
  );
  const timed: Night[] = [];
  // Each CLI's first night untimed, then the CLIs take turns: A B A B ...
  for (let n = 0; n < clis.length * (nights + 1); n++) {
    const cli = clis[n % clis.length]!;
    const day = addDays(night0, n + 1);
    await settleWarehouse(warehouse);
    const at = `${day}T02:00:00Z`;
    await sandbox.setClock(at);
    const log = dbtLogOf(cli, databaseUrl);
    const parsedBefore = await fullParsesIn(log);
    const runBefore = await latestRunId(warehouse);
    const code = await runNightlyCli(cli, {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DATABASE_URL: databaseUrl,
      BENCH_KEY: account.apiKey,
      TELECOM_ETL_CONFIG: configFile,
      TELECOM_ETL_NOW: at,
      TELECOM_ETL_ALLOW_PAST_NOW: "1",
    });
    const steps = await stepsAfter(warehouse, runBefore);
    const night: Night = {
      cli,
      day,
      build: stepSeconds(steps, "dbt build"),
      freshness: stepSeconds(steps, "dbt source freshness"),
      fullParses: (await fullParsesIn(log)) - parsedBefore,
    };
    const first = n < clis.length;
    console.log(
      `  ${day} ${cli}${first ? " (first night, not timed)" : ""}: exit ${code}, dbt build ${night.build.toFixed(1)} s + source freshness ${night.freshness.toFixed(1)} s = ${(night.build + night.freshness).toFixed(1)} s; full parses ${night.fullParses}`,
    );
    if (!first) timed.push(night);
  }
  console.log(`\nthe nightly's dbt steps at ${days} days (${args["calls-per-day"]} calls/day), medians:`);
  for (const cli of clis) {
    const mine = timed.filter((n) => n.cli === cli);
    const total = mine.map((n) => n.build + n.freshness);
    console.log(
      `  ${cli}: build + freshness ${median(total).toFixed(1)} s (${total.map((s) => s.toFixed(1)).join(", ")}); build ${median(mine.map((n) => n.build)).toFixed(1)} s, freshness ${median(mine.map((n) => n.freshness)).toFixed(1)} s; full parses per night ${mine.map((n) => n.fullParses).join(", ")}`,
    );
  }
} finally {
  await stop();
  await sandbox.close();
  await rm(configDir, { recursive: true, force: true });
}
