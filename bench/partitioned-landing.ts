/**
 * Partitioned landing tables at size: a 12-month CDR history grown in steps (default 1M, 4M and
 * 12M rows, both directions, 20 accounts) in two layouts of the same columns in one warehouse:
 * `platform.cdrs` partitioned by month (migration 0023) and a flat copy keyed by
 * (account, direction, uuid) as before 0023. At each size, the nightly's warehouse work is timed on
 * both: a new day's window per account through the loader (COPY fast path), the same windows merged
 * again with 10% changed rows (stage merge), a settled re-read's window count per account, and the
 * incremental scan a dbt model runs (the last 7 days); and the planner statistics' refresh: ANALYZE
 * of the whole partitioned table (every month sampled) vs of the month a nightly wrote vs of the
 * flat table. Then retiring the oldest month: a partition
 * drop vs a DELETE. The history is generated in SQL (not read through the API): this measures the
 * warehouse, not the extract. Medians of 3 rounds; the ratio is partitioned / flat at each size.
 * Usage: node dist/bench/partitioned-landing.js [--sizes 1000000,4000000,12000000] [--rows-per-window 1000]
 */
import { parseArgs } from "node:util";
import { cdrSchema } from "@telecom-etl/platform";
import { sql } from "kysely";
import { cdrsStream } from "../src/streams/cdrs.js";
import { type LoadRow, toLoadRow } from "../src/streams/load-row.js";
import type { StreamDefinition } from "../src/streams/stream-definition.js";
import type { Warehouse } from "../src/warehouse/connection/connect-warehouse.js";
import { loadSlice } from "../src/warehouse/load/load-slice.js";
import { startRun } from "../src/warehouse/state/run-records.js";
import { startBenchWarehouse } from "./e2e-harness.js";
import { median } from "./median.js";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000000,4000000,12000000" },
    "rows-per-window": { type: "string", default: "1000" },
    accounts: { type: "string", default: "20" },
    rounds: { type: "string", default: "3" },
  },
});
const SIZES = args.sizes.split(",").map(Number);
const ROWS_PER_WINDOW = Number(args["rows-per-window"]);
const ACCOUNTS = Number(args.accounts);
const ROUNDS = Number(args.rounds);
/** The history: 12 months before the nightly days. */
const HISTORY_START = "2025-11-01";
const HISTORY_END = "2026-11-01";

const flatStream: StreamDefinition = {
  ...(cdrsStream as StreamDefinition),
  name: "cdrs_flat",
  table: { ...cdrsStream.table, name: "bench.cdrs_flat", partitionedByMonth: false },
};
const layouts = [
  { label: "partitioned", stream: cdrsStream as StreamDefinition, table: "platform.cdrs" },
  { label: "flat", stream: flatStream, table: "bench.cdrs_flat" },
] as const;

/** Appends history rows numbered from..to (exclusive) to `table`, spread evenly over the 12 months. */
async function growHistory(warehouse: Warehouse, table: string, from: number, to: number): Promise<void> {
  const spanSeconds =
    (Date.parse(`${HISTORY_END}T00:00:00Z`) - Date.parse(`${HISTORY_START}T00:00:00Z`)) / 1000;
  await sql`
    INSERT INTO ${sql.raw(table)} (_account, direction, uuid, date, from_number, to_number, disposition, duration,
      destination, per_minute, charge, sip_trunk, answered_by, _run_id, _extracted_at)
    SELECT 'acct' || (i % ${ACCOUNTS}), CASE WHEN i % 5 < 3 THEN 'placed' ELSE 'received' END, md5(i::text),
      ${HISTORY_START}::timestamptz + ((i::bigint * 7919) % ${spanSeconds}) * interval '1 second',
      '1555' || (i % 9999999), '1666' || (i % 7777777), 'answered', i % 900, 'United States', 0.0100,
      round((i % 900) * 0.0100 / 60, 6), 'trunk' || (i % 20), 'human', 1, now()
    FROM generate_series(${from}::bigint, ${to - 1}::bigint) i`.execute(warehouse.db);
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** The rows of one account's nightly window (`day`), `changed` of them altered from the first load. */
function windowRows(account: string, day: string, changed: number): LoadRow[] {
  return Array.from({ length: ROWS_PER_WINDOW }, (_, i) => {
    const raw = {
      uuid: `${account}-${day}-${i}`,
      date: `${day}T${String(i % 24).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}:00Z`,
      from: "15551230000",
      to: "15559870000",
      disposition: "answered",
      duration: i < changed ? 999 : 60 + (i % 100),
      destination: "United States",
      per_minute: "0.0100",
      charge: "0.0200",
      sip_trunk: "trunk1",
      parent_uuid: null,
      answered_by: "human",
    };
    return toLoadRow(cdrsStream, cdrSchema.parse(raw), { direction: "placed" });
  });
}

async function loadWindows(warehouse: Warehouse, stream: StreamDefinition, day: string, changed: number) {
  const runId = await startRun(warehouse.db, {
    command: "bench",
    arguments: {},
    host: "bench",
    pid: process.pid,
  });
  const end = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  for (let a = 0; a < ACCOUNTS; a += 1) {
    const rows = windowRows(`acct${a}`, day, changed);
    await loadSlice(warehouse, {
      stream,
      account: `acct${a}`,
      runId,
      extractedAt: new Date(),
      slice: { kind: "window", window: { start: day, end } },
      rows,
      rejects: [],
      stats: { requests: 1, retries: 0, rowsFetched: rows.length, startedAt: new Date() },
      completeWindow: false,
    });
  }
}

async function main(): Promise<void> {
  const bench = await startBenchWarehouse();
  const { warehouse } = bench;
  try {
    await sql`CREATE SCHEMA bench`.execute(warehouse.db);
    await sql`CREATE TABLE bench.cdrs_flat (LIKE platform.cdrs INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`.execute(
      warehouse.db,
    );
    await sql`ALTER TABLE bench.cdrs_flat ADD PRIMARY KEY (_account, direction, uuid)`.execute(warehouse.db);
    await sql`CREATE INDEX cdrs_flat_by_date ON bench.cdrs_flat (_account, date)`.execute(warehouse.db);
    for (let m = 0; m < 13; m += 1) {
      const month = new Date(Date.UTC(2025, 10 + m, 1)).toISOString().slice(0, 10);
      await sql`SELECT etl.ensure_month_partition('platform.cdrs'::regclass, ${month}::date)`.execute(
        warehouse.db,
      );
    }
    console.log(
      `partitioned-landing: 12 months of CDRs, ${ACCOUNTS} accounts; nightly = ${ACCOUNTS} windows x ${ROWS_PER_WINDOW} rows; medians of ${ROUNDS} rounds (ms)`,
    );
    console.log("rows        layout        new window  re-merge  window read  7-day scan");
    let grown = 0;
    let nightlyDay = 0;
    for (const size of SIZES) {
      for (const layout of layouts) {
        await growHistory(warehouse, layout.table, grown, size);
        await sql`VACUUM ANALYZE ${sql.raw(layout.table)}`.execute(warehouse.db);
      }
      grown = size;
      const figures: Record<string, number[]> = {};
      for (const layout of layouts) {
        const measured = {
          fresh: [] as number[],
          merge: [] as number[],
          read: [] as number[],
          scan: [] as number[],
        };
        for (let round = 0; round < ROUNDS; round += 1) {
          const day = new Date(Date.UTC(2026, 10, 1 + nightlyDay + round)).toISOString().slice(0, 10);
          measured.fresh.push(await timed(() => loadWindows(warehouse, layout.stream, day, 0)));
          measured.merge.push(
            await timed(() => loadWindows(warehouse, layout.stream, day, Math.floor(ROWS_PER_WINDOW / 10))),
          );
          measured.read.push(
            await timed(async () => {
              for (let a = 0; a < ACCOUNTS; a += 1) {
                await sql`SELECT count(*), sum(duration) FROM ${sql.raw(layout.table)}
                  WHERE _account = ${`acct${a}`} AND date >= '2026-10-20'::date AND date < '2026-10-21'::date`.execute(
                  warehouse.db,
                );
              }
            }),
          );
          measured.scan.push(
            await timed(() =>
              sql`SELECT _account, count(*), sum(charge) FROM ${sql.raw(layout.table)}
                WHERE date >= '2026-10-25'::date GROUP BY 1`.execute(warehouse.db),
            ),
          );
        }
        const row = [
          median(measured.fresh),
          median(measured.merge),
          median(measured.read),
          median(measured.scan),
        ];
        figures[layout.label] = row;
        console.log(
          `${String(size).padEnd(11)} ${layout.label.padEnd(13)} ${row.map((v) => v.toFixed(0).padStart(10)).join("  ")}`,
        );
      }
      const analyze = async (table: string) => {
        const times: number[] = [];
        for (let round = 0; round < ROUNDS; round += 1)
          times.push(await timed(() => sql`ANALYZE ${sql.raw(table)}`.execute(warehouse.db)));
        return median(times);
      };
      console.log(
        `${String(size).padEnd(11)} ANALYZE: whole partitioned table ${(await analyze("platform.cdrs")).toFixed(0)} ms, ` +
          `its nightly month ${(await analyze("platform.cdrs_p2026_11")).toFixed(0)} ms, flat table ${(await analyze("bench.cdrs_flat")).toFixed(0)} ms`,
      );
      const ratio = figures.partitioned!.map((v, i) => v / figures.flat![i]!);
      console.log(
        `${String(size).padEnd(11)} ${"ratio p/f".padEnd(13)} ${ratio.map((v) => v.toFixed(2).padStart(10)).join("  ")}`,
      );
      nightlyDay += ROUNDS;
    }
    const dropMs = await timed(() => sql`DROP TABLE platform.cdrs_p2025_11`.execute(warehouse.db));
    let deletedRows = 0;
    const deleteMs = await timed(async () => {
      const deleted = await sql`DELETE FROM bench.cdrs_flat WHERE date < '2025-12-01'::date`.execute(
        warehouse.db,
      );
      deletedRows = Number(deleted.numAffectedRows ?? 0);
    });
    console.log(
      `retire the oldest month (${deletedRows} rows): partition drop ${dropMs.toFixed(0)} ms, flat DELETE ${deleteMs.toFixed(0)} ms`,
    );
  } finally {
    await bench.stop();
  }
}

await main();
