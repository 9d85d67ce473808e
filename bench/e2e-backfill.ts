/**
 * End-to-end backfill: CDRs from the sandbox (no faults, no latency, in its own process) through
 * the whole pipeline (pages, completeness, zod, COPY + merge, state) into an embedded Postgres.
 * Prints rows/s and the loader's peak RSS for about 1M rows and, unless --skip-4m, about 4M rows
 * (the same daily volume over 4x the days), and whether 4M stays within 20% of 1M's rate.
 * Targets: >= 30,000 rows/s, peak RSS <= 300 MB. Usage: node dist/bench/e2e-backfill.js [--rows 1000000] [--skip-4m]
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { silentLogger } from "../src/core/log.js";
import { addDays } from "../src/core/utc-days.js";
import { runPipeline } from "../src/pipeline/run/run-pipeline.js";
import { benchConfig, forkSandbox, peakRssMb, startBenchWarehouse } from "./e2e-harness.js";

const CALLS_PER_DAY = 20_000;
/** CDR rows a 20,000-calls day yields, roughly (placed + received legs). */
const ROWS_PER_DAY = 20_500;

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    "skip-4m": { type: "boolean", default: false },
    child: { type: "string" },
  },
});

interface Measurement {
  readonly rows: number;
  readonly seconds: number;
  readonly rowsPerSecond: number;
  readonly requests: number;
  readonly peakRssMb: number;
  readonly exitCode: number;
}

/** One backfill of `targetRows` in this process (a fresh process per size, so peak RSS is per size). */
async function measure(targetRows: number): Promise<Measurement> {
  const days = Math.ceil(targetRows / ROWS_PER_DAY);
  const sandbox = await forkSandbox({
    seed: 1,
    start: "2026-01-01",
    days,
    accounts: 1,
    callsPerDay: CALLS_PER_DAY,
  });
  const { warehouse, stop } = await startBenchWarehouse();
  try {
    const config = benchConfig(sandbox, { requestsPerSecond: 5_000, burst: 200, concurrency: 8 });
    const started = performance.now();
    const result = await runPipeline(
      { config, warehouse, log: silentLogger, signal: new AbortController().signal, host: "bench" },
      { command: "backfill", streams: ["cdrs"], from: sandbox.start, to: addDays(sandbox.start, days - 1) },
    );
    const seconds = (performance.now() - started) / 1000;
    const cdrs = result.streams[0]!;
    return {
      rows: cdrs.rowsFetched,
      seconds,
      rowsPerSecond: cdrs.rowsFetched / seconds,
      requests: cdrs.requests,
      peakRssMb: peakRssMb(),
      exitCode: result.exitCode,
    };
  } finally {
    await stop();
    await sandbox.close();
  }
}

/** Runs `measure` in a child process of this script and returns its figures. */
function inChild(rows: number): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--child", String(rows)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split("\n").at(-1)!) as Measurement)
        : reject(new Error(`exit ${code}`)),
    );
  });
}

function line(label: string, m: Measurement): string {
  return `${label}: ${m.rows.toLocaleString("en-US")} CDR rows in ${m.seconds.toFixed(1)} s = ${Math.round(m.rowsPerSecond).toLocaleString("en-US")} rows/s, ${m.requests} requests, peak RSS ${m.peakRssMb.toFixed(0)} MB, exit ${m.exitCode}`;
}

if (args.child !== undefined) {
  process.stdout.write(`${JSON.stringify(await measure(Number(args.child)))}\n`);
} else {
  const rows = Number(args.rows);
  const small = await inChild(rows);
  console.log(line("e2e backfill ~1x", small));
  console.log(
    `  target: >= 30,000 rows/s and peak RSS <= 300 MB: ${small.rowsPerSecond >= 30_000 && small.peakRssMb <= 300 ? "met" : "NOT met"}`,
  );
  if (!args["skip-4m"]) {
    const large = await inChild(rows * 4);
    console.log(line("e2e backfill ~4x", large));
    const ratio = large.rowsPerSecond / small.rowsPerSecond;
    console.log(
      `  4x rate / 1x rate = ${ratio.toFixed(2)} (target within 20%: ${Math.abs(1 - ratio) <= 0.2 ? "met" : "NOT met"}), peak RSS ${large.peakRssMb.toFixed(0)} MB`,
    );
  }
}
