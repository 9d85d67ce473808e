/**
 * Is the nightly dbt build flat in the size of the history? One sandbox world; for each history
 * size (days before the same night T), a new warehouse loads that many days through the real
 * loader, builds the marts once (`--full-refresh`), then runs the same nights T+1, T+2, ... as a
 * nightly does: load the day, settle (VACUUM ANALYZE + CHECKPOINT, what autovacuum does in the
 * day between two nights), `dbt build` as `transform` runs it (write–audit–publish, no unit tests). The first
 * nightly after the full refresh copies the incremental marts and is not timed; the next ones
 * continue from the marts the publication before kept, as most nights do. Every size reads the
 * same nights of the same world, so only the history behind them differs. Each size is measured
 * with the facts partitioned by month (the default) and as plain tables (dbt var partition_facts
 * false), each in its own warehouse: the nightly and fct_calls' own build (its merge) side by side.
 * Target ({@link NIGHTLY_RATIO_TARGET}): the nightly build's median at the largest size within 1.1x the
 * smallest's (issue 35: 30M legs, `--sizes 30,365 --copies 4`, at most 1.1x the 30-day nightly).
 * `--copies K` holds the largest history K times: after its load, every landing row of the world's
 * account from the days before night T − 30 is copied under K−1 other accounts (SQL, not the
 * loader: a year through the loader takes 15 minutes per copy), so the facts hold about K times the
 * rows while each night loads and builds the same new day. The copies hold history only: no day a
 * nightly re-reads (the settle window, the campaigns' click-attribution days, the anomalies'
 * trailing 28 days) has copied rows, so the nights' windows are the 30-day warehouse's and only the
 * history behind them grows.
 * `--largest-first` measures the sizes from the largest down (the figures are the same; the long
 * load and full refresh of the largest come first, so its nightlies and the smaller sizes' can be
 * timed once the machine is quiet).
 * Usage: node dist/bench/dbt-nightly-by-size.js [--sizes 30,120] [--calls-per-day 20000] [--rounds 3]
 *   [--layouts partitioned,plain] [--copies 1] [--largest-first]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { addDays } from "../src/core/utc-days.js";
import { PUBLISHED_MARTS_SCHEMA } from "../src/transform/publish-marts.js";
import { WITHOUT_UNIT_TESTS } from "../src/transform/run-dbt.js";
import type { Warehouse } from "../src/warehouse/connection/connect-warehouse.js";
import { countCalls, nodeSeconds, settleWarehouse, timedDbt } from "./dbt-timing.js";
import {
  benchConfig,
  type ForkedSandbox,
  forkSandbox,
  runNightlyAt,
  startBenchWarehouse,
} from "./e2e-harness.js";
import { median } from "./median.js";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "30,120" },
    "calls-per-day": { type: "string", default: "20000" },
    rounds: { type: "string", default: "3" },
    layouts: { type: "string", default: "partitioned,plain" },
    copies: { type: "string", default: "1" },
    "largest-first": { type: "boolean", default: false },
  },
});
/** The largest size's nightly over the smallest's, at most (issue 35 item 7). */
const NIGHTLY_RATIO_TARGET = 1.1;
type Layout = "partitioned" | "plain";
const layouts = args.layouts.split(",").map((l): Layout => {
  if (l !== "partitioned" && l !== "plain")
    throw new Error(`--layouts: ${l} is neither partitioned nor plain`);
  return l;
});
/** dbt arguments building the facts of `layout`. */
function layoutArgs(layout: Layout): string[] {
  return layout === "plain" ? ["--vars", "{partition_facts: false}"] : [];
}
const sizes = args.sizes
  .split(",")
  .map(Number)
  .toSorted((a, b) => a - b);
const rounds = Number(args.rounds);
const callsPerDay = Number(args["calls-per-day"]);
const copies = Number(args.copies);
if (!Number.isInteger(copies) || copies < 1)
  throw new Error(`--copies: ${args.copies} is not a whole number ≥ 1`);
const STREAMS = ["cdrs", "sip_trunks", "numbers", "short_link_metrics", "messages", "invoices"];

interface SizeFigures {
  readonly layout: Layout;
  readonly days: number;
  /** How many times the history is held (the world's account and its copies). */
  readonly copies: number;
  /** The warehouse's size on disk after the last nightly, GB. */
  readonly warehouseGb: number;
  readonly legs: number;
  readonly factRows: number;
  readonly fullRefresh: number;
  readonly nightlies: number[];
  /** Each dbt node's seconds in each timed nightly. */
  readonly nodes: Map<string, number[]>;
}

async function factRows(warehouse: Warehouse): Promise<number> {
  const result = await sql<{
    n: string;
  }>`SELECT count(*) AS n FROM ${sql.id(PUBLISHED_MARTS_SCHEMA, "fct_calls")}`.execute(warehouse.db);
  return Number(result.rows[0]?.n ?? 0);
}

/** The warehouse database's size on disk, GB. */
async function warehouseGb(warehouse: Warehouse): Promise<number> {
  const result = await sql<{ bytes: string }>`SELECT pg_database_size(current_database()) AS bytes`.execute(
    warehouse.db,
  );
  return Number(result.rows[0]?.bytes ?? 0) / 1e9;
}

/** The copies hold the days before night − this many days: none of a nightly's windows. */
const HISTORY_ONLY_DAYS = 30;

/** The day (or time) column of each dated landing table; the other tables are copied whole. */
const LANDING_DAY_COLUMNS: Readonly<Record<string, string>> = {
  cdrs: "date",
  messages: "submitted_at",
  short_link_metrics: "created_date",
  invoices: "to_date",
  recordings: "created_at",
  transactions: "date",
};

/**
 * Copies every landing row of `account` dated before `before` (each table of schema platform,
 * partitions through their parent; undated tables whole) under accounts `<account>-copy-2` …
 * `<account>-copy-<copies>`. Every landing key holds the account, so the copies are new rows,
 * not conflicts.
 */
async function copyHistory(
  warehouse: Warehouse,
  account: string,
  copies: number,
  before: string,
): Promise<void> {
  const tables = await sql<{ name: string; columns: string[] }>`
    SELECT c.relname AS name, array_agg(a.attname::text ORDER BY a.attnum) AS columns
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attidentity = ''
    WHERE n.nspname = 'platform' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
    GROUP BY c.relname ORDER BY c.relname`.execute(warehouse.db);
  for (let copy = 2; copy <= copies; copy++) {
    const name = `${account}-copy-${copy}`;
    for (const table of tables.rows) {
      const list = table.columns.map((column) => sql.id(column));
      const values = table.columns.map((column) => (column === "_account" ? sql`${name}` : sql.id(column)));
      const dayColumn = LANDING_DAY_COLUMNS[table.name];
      const dated =
        dayColumn === undefined
          ? sql`true`
          : sql`${sql.id(dayColumn)} < ${`${before}T00:00:00Z`}::timestamptz`;
      await sql`INSERT INTO ${sql.id("platform", table.name)} (${sql.join(list)})
                SELECT ${sql.join(values)} FROM ${sql.id("platform", table.name)}
                WHERE _account = ${account} AND ${dated}`.execute(warehouse.db);
    }
  }
}

/**
 * Loads `days` of history before night `night` into a new warehouse (held `copies` times), then
 * times `rounds` nightlies building `layout`.
 */
async function measureSize(
  sandbox: ForkedSandbox,
  night: string,
  days: number,
  layout: Layout,
  copies: number,
): Promise<SizeFigures> {
  const { warehouse, stop } = await startBenchWarehouse();
  const workDir = await mkdtemp(path.join(tmpdir(), "dbt-size-bench-"));
  try {
    const base = benchConfig(sandbox, { requestsPerSecond: 10_000, burst: 100, concurrency: 8 });
    const config = {
      ...base,
      startDate: addDays(night, -days),
      accounts: base.accounts.map((a) => ({ ...a, streams: STREAMS })),
    };
    const load = async (day: string) => {
      const at = `${day}T02:00:00Z`;
      await sandbox.setClock(at);
      const result = await runNightlyAt(warehouse, config, at);
      if (result.exitCode !== 0) throw new Error(`the load of ${day} ended with exit ${result.exitCode}`);
    };
    const started = performance.now();
    await load(night);
    const loadedIn = (performance.now() - started) / 1000;
    if (copies > 1) {
      const copying = performance.now();
      const before = addDays(night, -HISTORY_ONLY_DAYS);
      for (const account of config.accounts) await copyHistory(warehouse, account.name, copies, before);
      console.log(
        `${days} days of history (the days before ${before}) copied ${copies - 1} times in ${((performance.now() - copying) / 1000).toFixed(0)} s`,
      );
      await settleWarehouse(warehouse);
    }
    console.log(
      `${days} days of history ×${copies} (facts ${layout}): ${await countCalls(warehouse)} call legs landed (loaded in ${loadedIn.toFixed(0)} s)`,
    );
    const fullRefresh = await timedDbt(warehouse, workDir, [
      "build",
      "--full-refresh",
      ...layoutArgs(layout),
      ...WITHOUT_UNIT_TESTS,
    ]);
    const nightlies: number[] = [];
    const nodes = new Map<string, number[]>();
    for (let n = 0; n <= rounds; n++) {
      await load(addDays(night, n + 1));
      await settleWarehouse(warehouse);
      console.log(
        n === 0 ? "  first nightly (copies the marts; not timed):" : `  nightly ${n} of ${rounds}:`,
      );
      const seconds = await timedDbt(warehouse, workDir, [
        "build",
        ...layoutArgs(layout),
        ...WITHOUT_UNIT_TESTS,
      ]);
      if (n === 0) continue;
      nightlies.push(seconds);
      for (const [name, seconds] of await nodeSeconds(workDir))
        nodes.set(name, [...(nodes.get(name) ?? []), seconds]);
    }
    return {
      layout,
      days,
      copies,
      warehouseGb: await warehouseGb(warehouse),
      legs: await countCalls(warehouse),
      factRows: await factRows(warehouse),
      fullRefresh,
      nightlies,
      nodes,
    };
  } finally {
    await stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The `count` dbt nodes whose median nightly seconds grew most from `small` to `big`. */
function grewMost(small: SizeFigures, big: SizeFigures, count: number): string {
  return [...big.nodes]
    .map(([name, list]) => ({ name, from: median(small.nodes.get(name) ?? [0]), to: median(list) }))
    .toSorted((a, b) => b.to - b.from - (a.to - a.from))
    .slice(0, count)
    .map((n) => `${n.name} ${n.from.toFixed(1)} -> ${n.to.toFixed(1)}`)
    .join(", ");
}

const largest = sizes.at(-1) ?? 0;
const sandbox = await forkSandbox({
  seed: 11,
  start: "2026-01-01",
  days: largest + rounds + 2,
  accounts: 1,
  callsPerDay,
});
try {
  const night = addDays(sandbox.start, largest);
  const figures: SizeFigures[] = [];
  for (const days of args["largest-first"] ? sizes.toReversed() : sizes)
    for (const layout of layouts)
      figures.push(await measureSize(sandbox, night, days, layout, days === largest ? copies : 1));
  figures.sort((a, b) => a.days - b.days);
  console.log(
    `\nnightly dbt build by history size (${callsPerDay} calls/day, nights after ${night}, median of ${rounds}):`,
  );
  for (const f of figures) {
    console.log(
      `  ${f.days} days ×${f.copies}, facts ${f.layout}: ${f.legs} legs landed, ${f.factRows} in fct_calls at the end, warehouse ${f.warehouseGb.toFixed(1)} GB; full refresh ${f.fullRefresh.toFixed(1)} s, nightly ${median(f.nightlies).toFixed(1)} s (${f.nightlies.map((s) => s.toFixed(1)).join(", ")}), fct_calls' merge ${median(f.nodes.get("fct_calls") ?? [0]).toFixed(1)} s`,
    );
  }
  for (const layout of layouts) {
    const ofLayout = figures.filter((f) => f.layout === layout);
    const smallest = ofLayout[0];
    const biggest = ofLayout.at(-1);
    if (!smallest || !biggest || ofLayout.length < 2) continue;
    const ratio = median(biggest.nightlies) / median(smallest.nightlies);
    const mergeRatio =
      median(biggest.nodes.get("fct_calls") ?? [0]) / median(smallest.nodes.get("fct_calls") ?? [1]);
    console.log(
      `  facts ${layout}: nightly at ${biggest.days} days ×${biggest.copies} / at ${smallest.days} days: ${ratio.toFixed(2)} for ${(biggest.factRows / smallest.factRows).toFixed(1)}x the fact rows (fct_calls' merge ${mergeRatio.toFixed(2)}); target <= ${NIGHTLY_RATIO_TARGET}: ${ratio <= NIGHTLY_RATIO_TARGET ? "met" : "NOT met"}`,
    );
    console.log(
      `    the nodes that grew most (median seconds at ${smallest.days} -> ${biggest.days} days): ${grewMost(smallest, biggest, 8)}`,
    );
  }
} finally {
  await sandbox.close();
}
