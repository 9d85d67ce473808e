/**
 * Load efficiency: rows/s of the load path (zod validation with the platform CDR schema, row
 * mapping, loadSlice: one transaction per window with rows, run_slices and state) divided by rows/s
 * of a plain COPY of the same rows into a same-shaped table (same indexes), in the same database
 * and run. Target ≥ 0.7. Also measured: the load path forced through stage + merge for new windows,
 * and a re-load where every row is unchanged (the nightly lookback case). Usage: node dist/bench/load-efficiency.js [--rows 200000] [--rounds 5] [--window-rows 20000]
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { cdrSchema } from "@telecom-etl/platform";
import { sql } from "kysely";
import { silentLogger } from "../src/core/log.js";
import { addDays, dayToMs } from "../src/core/utc-days.js";
import { cdrsStream } from "../src/streams/cdrs.js";
import { type LoadRow, toLoadRow } from "../src/streams/load-row.js";
import { connectWarehouse } from "../src/warehouse/connection/connect-warehouse.js";
import { startEmbeddedWarehouse } from "../src/warehouse/connection/embedded-postgres.js";
import { migrateToLatest } from "../src/warehouse/connection/migrate.js";
import { loadSlice } from "../src/warehouse/load/load-slice.js";
import { RunWrittenKeys } from "../src/warehouse/load/run-written-keys.js";
import { startRun } from "../src/warehouse/state/run-records.js";
import { median } from "./median.js";
import { plainCopy } from "./plain-copy.js";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "200000" },
    rounds: { type: "string", default: "5" },
    "window-rows": { type: "string", default: "20000" },
  },
});
const ROWS = Number(args.rows);
const ROUNDS = Number(args.rounds);
const WINDOW_ROWS = Number(args["window-rows"]);
const FIRST_DAY = "2026-06-01";

/** A small deterministic PRNG (mulberry32), so every run loads the same rows. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const DESTINATIONS = [
  "United States",
  "Mexico - Mobile Telcel",
  "Canada - Toronto",
  "United Kingdom - Mobile",
  "Germany",
];
const DISPOSITIONS = ["answered", "answered", "answered", "noanswer", "busy", "failed"] as const;

/** CDR objects as the platform's list endpoint serves them (both directions), one day per window. */
function generateCdrs(count: number): { raw: Record<string, unknown>; direction: string; day: number }[] {
  const random = prng(20260601);
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join("");
  const rows: { raw: Record<string, unknown>; direction: string; day: number }[] = [];
  for (let i = 0; i < count; i += 1) {
    const day = Math.floor(i / WINDOW_ROWS);
    const placed = random() < 0.6;
    const disposition = DISPOSITIONS[Math.floor(random() * DISPOSITIONS.length)]!;
    const duration = disposition === "answered" ? 1 + Math.floor(random() * 900) : 0;
    const perMinute = (0.004 + Math.floor(random() * 200) / 10_000).toFixed(4);
    const when = dayToMs(addDays(FIRST_DAY, day)) + Math.floor(random() * 86_400) * 1000;
    const raw: Record<string, unknown> = {
      date: `${new Date(when).toISOString().slice(0, 19)}Z`,
      from: `1${2_000_000_000 + Math.floor(random() * 7_000_000_000)}`,
      to: `1${2_000_000_000 + Math.floor(random() * 7_000_000_000)}`,
      disposition,
      duration,
      destination: placed
        ? DESTINATIONS[Math.floor(random() * DESTINATIONS.length)]!
        : "sip:trunk1@example.com",
      per_minute: disposition === "answered" ? perMinute : null,
      charge:
        disposition === "answered" ? ((Number(perMinute) * Math.ceil(duration / 6)) / 10).toFixed(6) : null,
      sip_trunk: placed ? `trunk${Math.floor(random() * 20)}` : null,
    };
    if (!placed && random() < 0.2) raw.forward_fee = "0.0050";
    raw.uuid = `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
    raw.parent_uuid = random() < 0.05 ? `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}` : null;
    raw.answered_by = disposition === "answered" ? (random() < 0.9 ? "human" : "machine") : null;
    rows.push({ raw, direction: placed ? "placed" : "received", day });
  }
  return rows;
}

function byWindow<T extends { day: number }>(rows: readonly T[]): T[][] {
  const windows: T[][] = [];
  for (const row of rows) {
    const window = windows[row.day] ?? [];
    window.push(row);
    windows[row.day] = window;
  }
  return windows;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), "load-bench-"));
  // Run as root, the server runs as user postgres, which must be able to reach its data directory.
  await chmod(dir, 0o755);
  const embedded = await startEmbeddedWarehouse({ dir, log: silentLogger });
  const warehouse = await connectWarehouse(embedded.url, { max: 4 });
  try {
    await migrateToLatest(warehouse.db);
    await sql`CREATE SCHEMA bench`.execute(warehouse.db);
    await sql`CREATE TABLE bench.cdrs_copy (LIKE platform.cdrs INCLUDING ALL)`.execute(warehouse.db);
    const runId = await startRun(warehouse.db, {
      command: "bench",
      arguments: {},
      host: "bench",
      pid: process.pid,
    });

    const generated = generateCdrs(ROWS);
    const windows = byWindow(generated);
    const validatedOnce = windows.map((w) =>
      w.map((g) => toLoadRow(cdrsStream, cdrSchema.parse(g.raw), { direction: g.direction })),
    );
    console.log(
      `load-efficiency: ${ROWS} CDRs in ${windows.length} windows of ${WINDOW_ROWS}, ${ROUNDS} rounds`,
    );

    const results = {
      copy: [] as number[],
      load: [] as number[],
      validate: [] as number[],
      write: [] as number[],
      staged: [] as number[],
      rerun: [] as number[],
    };
    const rate = (ms: number) => (ROWS / ms) * 1000;
    const fresh = async () => {
      await sql`TRUNCATE bench.cdrs_copy, platform.cdrs, etl.run_slices, etl.stream_state`.execute(
        warehouse.db,
      );
      await sql`CHECKPOINT`.execute(warehouse.db);
    };
    /** The load path over every window: validate + map, then loadSlice; returns [total, validate, write] ms. */
    const loadPath = async (insertFastPath: boolean): Promise<[number, number, number]> => {
      let validateMs = 0;
      let writeMs = 0;
      // One run's memory of the keys it wrote, as the pipeline keeps it per account and stream.
      const writtenKeys = new RunWrittenKeys("bench", () => 1);
      const started = performance.now();
      for (const [index, window] of windows.entries()) {
        const t0 = performance.now();
        const rows: LoadRow[] = [];
        const rejects: { raw: unknown; issues: unknown }[] = [];
        for (const g of window) {
          const parsed = cdrSchema.safeParse(g.raw);
          if (parsed.success) rows.push(toLoadRow(cdrsStream, parsed.data, { direction: g.direction }));
          else rejects.push({ raw: g.raw, issues: parsed.error.issues });
        }
        const t1 = performance.now();
        const start = addDays(FIRST_DAY, index);
        await loadSlice(warehouse, {
          stream: cdrsStream,
          account: "bench",
          runId,
          extractedAt: new Date(),
          slice: { kind: "window", window: { start, end: addDays(start, 1) } },
          rows,
          rejects,
          stats: { requests: 0, retries: 0, rowsFetched: window.length, startedAt: new Date() },
          completeWindow: true,
          insertFastPath,
          writtenKeys,
        });
        validateMs += t1 - t0;
        writeMs += performance.now() - t1;
      }
      return [performance.now() - started, validateMs, writeMs];
    };
    const timed = async (work: () => Promise<unknown>) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };

    for (let round = 1; round <= ROUNDS; round += 1) {
      // Alternate which goes first, so neither always meets a freshly checkpointed server.
      let copyMs = 0;
      if (round % 2 === 1) {
        await fresh();
        copyMs = await timed(() => plainCopy(warehouse, validatedOnce));
      }
      await fresh();
      const [totalMs, validateMs, writeMs] = await loadPath(true);
      const rerunMs = await timed(() => loadPath(true));
      await fresh();
      const [stagedMs] = await loadPath(false);
      if (round % 2 === 0) {
        await fresh();
        copyMs = await timed(() => plainCopy(warehouse, validatedOnce));
      }
      results.copy.push(rate(copyMs));
      results.load.push(rate(totalMs));
      results.validate.push(rate(validateMs));
      results.write.push(rate(writeMs));
      results.staged.push(rate(stagedMs));
      results.rerun.push(rate(rerunMs));
      console.log(
        `round ${round}: plain COPY ${rate(copyMs).toFixed(0)} rows/s; load path ${rate(totalMs).toFixed(0)} rows/s ` +
          `= ${(copyMs / totalMs).toFixed(2)} ` +
          `(validate ${rate(validateMs).toFixed(0)}, write ${rate(writeMs).toFixed(0)}); ` +
          `forced stage+merge ${rate(stagedMs).toFixed(0)}; re-load unchanged ${rate(rerunMs).toFixed(0)} rows/s`,
      );
    }
    // Paired per-round ratios are steadier than a ratio of medians on a busy machine.
    const ratio = (values: readonly number[]) =>
      median(values.map((v, i) => v / results.copy[i]!)).toFixed(2);
    const line = (label: string, values: readonly number[], withRatio = true) =>
      console.log(
        `${label.padEnd(42)} ${median(values).toFixed(0).padStart(7)} rows/s${withRatio ? `  ratio ${ratio(values)}` : ""}`,
      );
    line("median plain COPY:", results.copy, false);
    console.log("(ratio = median over rounds of rows/s ÷ the same round's plain COPY rows/s)");
    line("median load path, new windows:", results.load);
    line("  validate (zod + mapping) alone:", results.validate, false);
    line("  write (loadSlice) alone:", results.write);
    line("median load path, forced stage + merge:", results.staged);
    line("median re-load, every row unchanged:", results.rerun);
    console.log("target: load path / plain COPY >= 0.70");
  } finally {
    await warehouse.close();
    await embedded.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
