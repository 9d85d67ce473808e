/**
 * Pieces the pipeline benchmarks share: the sandbox in a child process (so it has its own core and
 * heap and the loader's peak RSS is the loader's alone), a throw-away embedded warehouse, and a
 * config pointing at the sandbox. Forked with BENCH_SANDBOX_OPTIONS set, this module serves.
 */
import { type ChildProcess, fork } from "node:child_process";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SandboxOptions } from "@telecom-etl/sandbox/sandbox-options.js";
import { startSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { defaultFileSettings, type EtlConfig } from "../src/config/config.js";
import { silentLogger } from "../src/core/log.js";
import { Secret } from "../src/core/secret.js";
import { type PipelineResult, runPipeline } from "../src/pipeline/run/run-pipeline.js";
import { setUpBiReaderRole } from "../src/warehouse/admin/bi-reader-role.js";
import { connectWarehouse, type Warehouse } from "../src/warehouse/connection/connect-warehouse.js";
import { startEmbeddedWarehouse } from "../src/warehouse/connection/embedded-postgres.js";
import { migrateToLatest } from "../src/warehouse/connection/migrate.js";

/** A sandbox running in a child process. */
export interface ForkedSandbox {
  readonly url: string;
  /** The sandbox process's id (for its CPU time). */
  readonly pid: number;
  readonly accounts: readonly { readonly name: string; readonly apiKey: string }[];
  readonly start: string;
  /** `GET /_sandbox/stats`: requests by route and status, injected faults by kind. */
  stats(): Promise<{
    total: number;
    routes: Record<string, Record<string, number>>;
    faults: Record<string, number>;
  }>;
  /** Sets the sandbox clock (`POST /_sandbox/clock`). */
  setClock(iso: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts the sandbox with `options` in a child process. */
export async function forkSandbox(options: SandboxOptions): Promise<ForkedSandbox> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, BENCH_SANDBOX_OPTIONS: JSON.stringify(options) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = await new Promise<{
    url: string;
    accounts: { name: string; apiKey: string }[];
    start: string;
  }>((resolve, reject) => {
    child.once("message", (message) => resolve(message as never));
    child.once("exit", (code) => reject(new Error(`sandbox child exited with ${code}`)));
  });
  return {
    ...ready,
    pid: child.pid!,
    stats: async () => (await (await fetch(`${ready.url}/_sandbox/stats`)).json()) as never,
    setClock: async (iso) => {
      const response = await fetch(`${ready.url}/_sandbox/clock`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ now: iso }),
      });
      if (!response.ok) throw new Error(`sandbox clock: HTTP ${response.status}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** A migrated embedded warehouse in a temporary directory, removed by `stop`. */
export async function startBenchWarehouse(): Promise<{ warehouse: Warehouse; stop(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "pipeline-bench-"));
  await chmod(dir, 0o755);
  const embedded = await startEmbeddedWarehouse({ dir, log: silentLogger });
  const warehouse = await connectWarehouse(embedded.url, { max: 12 });
  await migrateToLatest(warehouse.db);
  await setUpBiReaderRole(warehouse.db, { log: silentLogger });
  return {
    warehouse,
    stop: async () => {
      await warehouse.close();
      await embedded.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A nightly `run` of `config`, its run clock at `at` (ISO; set the sandbox clock to it first). */
export function runNightlyAt(
  warehouse: Warehouse,
  config: EtlConfig,
  at: string,
  streams?: readonly string[],
): Promise<PipelineResult> {
  return runPipeline(
    {
      config,
      warehouse,
      log: silentLogger,
      signal: new AbortController().signal,
      host: "bench",
      runStartedAt: Date.parse(at),
    },
    { command: "run", ...(streams === undefined ? {} : { streams }) },
  );
}

/** An EtlConfig reading every account of `sandbox` with the given rate, and the defaults a user runs with. */
export function benchConfig(
  sandbox: ForkedSandbox,
  rate: { requestsPerSecond: number; burst: number; concurrency: number },
  overrides: Partial<EtlConfig> = {},
): EtlConfig {
  return {
    accounts: sandbox.accounts.map((a) => ({
      name: a.name,
      baseUrl: sandbox.url,
      apiKeyEnv: `BENCH_KEY_${a.name}`,
      apiKey: new Secret(a.apiKey),
      rate,
      streams: ["cdrs"],
    })),
    ...defaultFileSettings(),
    startDate: sandbox.start,
    databaseUrl: undefined,
    embeddedDir: ".telecom-etl/unused",
    source: undefined,
    ...overrides,
  };
}

/** CPU seconds (user + system) process `pid` and its waited-for children have used so far (Linux /proc). */
export async function cpuSecondsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are 14-17 (1-based).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
  return ticks / 100;
}

/** Peak resident set size of this process so far, in MB. */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

if (process.env.BENCH_SANDBOX_OPTIONS !== undefined && process.send !== undefined) {
  const sandbox = await startSandbox(JSON.parse(process.env.BENCH_SANDBOX_OPTIONS) as SandboxOptions);
  process.on("SIGTERM", () => void sandbox.close().then(() => process.exit(0)));
  process.send({
    url: sandbox.url,
    accounts: sandbox.world.accounts.map((a) => ({ name: a.name, apiKey: a.apiKey })),
    start: sandbox.world.start,
  });
}
