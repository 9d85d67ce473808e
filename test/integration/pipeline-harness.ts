/**
 * Shared pieces of the pipeline's integration tests: a sandbox (behind a fault proxy when asked)
 * with a fresh database, a config pointing at it, one pipeline run through the library, the sandbox's truth export, and the landing tables read back in a form
 * that compares with the truth (Dates as epoch ms, numbers as numbers, money as its text).
 */
import { Writable } from "node:stream";
import { sql } from "kysely";
import { pino } from "pino";
import { configFileSchema, type EtlConfig } from "../../src/config.js";
import type { Logger } from "../../src/log.js";
import { parseRow } from "../../src/pipeline/parse-rows.js";
import { readStreamProgress } from "../../src/pipeline/read-progress.js";
import { type PipelineRequest, type PipelineResult, runPipeline } from "../../src/pipeline/run-pipeline.js";
import type { SandboxOptions } from "../../src/sandbox/sandbox-options.js";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/start-sandbox.js";
import { Secret } from "../../src/secret.js";
import { getStream } from "../../src/streams/registry.js";
import type { StreamDefinition } from "../../src/streams/stream-definition.js";
import type { Warehouse } from "../../src/warehouse/connect-warehouse.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { type FaultRule, startFaultProxy } from "./fault-proxy.js";

/** Every landing stream, in a fixed order. */
export const ALL_STREAMS = ["cdrs", "short_link_metrics", "invoices"] as const;

/** What a config file that says nothing gets (window, lookback, page size, attempts). */
const DEFAULTS = configFileSchema.parse({});

/** A sandbox and a fresh test database for one test file, with the fault proxy in front when a rule is given. */
export interface SandboxRig {
  readonly sandbox: RunningSandbox;
  readonly db: TestDatabase;
  /** Where accounts point: the proxy when there is one, else the sandbox. */
  readonly apiUrl: string;
  /** Stops the proxy and the sandbox and drops the database. */
  close(): Promise<void>;
}

/** Starts a sandbox with `options`, a proxy applying `rule` in front of it (if given) and a test database. */
export async function startSandboxRig(options: SandboxOptions, rule?: FaultRule): Promise<SandboxRig> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    const sandbox = await startSandbox(options);
    closers.push(() => sandbox.close());
    const proxy = rule === undefined ? undefined : await startFaultProxy(sandbox.url, rule);
    if (proxy !== undefined) closers.push(() => proxy.close());
    const db = await createTestDatabase();
    closers.push(() => db.drop());
    return { sandbox, db, apiUrl: proxy?.url ?? sandbox.url, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * An EtlConfig for the sandbox's accounts (all of them unless `accountNames` names some), each
 * reading `baseUrl` (default the sandbox itself; a fault proxy's URL puts the proxy in between).
 */
export function sandboxConfig(
  sandbox: RunningSandbox,
  overrides: Partial<EtlConfig> & {
    accountNames?: readonly string[];
    keys?: Readonly<Record<string, string>>;
    baseUrl?: string;
  } = {},
): EtlConfig {
  const { accountNames, keys, baseUrl, ...rest } = overrides;
  const accounts = sandbox.world.accounts
    .filter((a) => accountNames === undefined || accountNames.includes(a.name))
    .map((a) => ({
      name: a.name,
      baseUrl: baseUrl ?? sandbox.url,
      apiKeyEnv: `KEY_${a.name.toUpperCase().replace(/-/g, "_")}`,
      apiKey: new Secret(keys?.[a.name] ?? a.apiKey),
      rate: { requestsPerSecond: 500, burst: 100, concurrency: 4 },
      streams: [...ALL_STREAMS],
    }));
  return {
    accounts,
    startDate: sandbox.world.start,
    windowDays: DEFAULTS.window_days,
    lookbackDays: DEFAULTS.lookback_days,
    perPage: DEFAULTS.per_page,
    // Shorter than the defaults: a test against a local sandbox that hangs should fail fast.
    timeouts: { connectMs: 5_000, totalMs: 20_000 },
    retry: { maxAttempts: DEFAULTS.retry.max_attempts, maxTotalWaitMs: 30_000 },
    databaseUrl: undefined,
    embeddedDir: ".telecom-etl/unused",
    source: undefined,
    ...rest,
  };
}

/** A pino logger writing JSON lines into `lines` (to look for secrets and messages). */
export function capturingLogger(lines: string[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") lines.push(line);
      done();
    },
  });
  return pino({ level: "debug" }, sink);
}

/** One run or backfill through the library, "today" taken from the sandbox clock. */
export async function runAt(
  warehouse: Warehouse,
  config: EtlConfig,
  sandbox: RunningSandbox,
  request: PipelineRequest,
  options: { log?: Logger; signal?: AbortSignal } = {},
): Promise<PipelineResult> {
  return runPipeline(
    {
      config,
      warehouse,
      log: options.log ?? pino({ level: "silent" }),
      signal: options.signal ?? new AbortController().signal,
      host: "test",
      runStartedAt: sandbox.runtime.clock.now(),
    },
    request,
  );
}

/** Sets the sandbox clock through its admin API. */
export async function setSandboxClock(sandbox: RunningSandbox, iso: string): Promise<void> {
  const response = await fetch(`${sandbox.url}/_sandbox/clock`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ now: iso }),
  });
  if (!response.ok) throw new Error(`setting the sandbox clock failed: ${response.status}`);
}

/** Raw records of `/_sandbox/truth/{stream}` (or `/malformed`) for one account. */
export async function truthRecords(
  sandbox: RunningSandbox,
  stream: string,
  account: string,
  range: { from?: string; to?: string } = {},
  suffix = "",
): Promise<Record<string, unknown>[]> {
  const query = new URLSearchParams({ account, ...range });
  const response = await fetch(`${sandbox.url}/_sandbox/truth/${stream}${suffix}?${query}`);
  if (!response.ok) throw new Error(`truth ${stream}${suffix} for ${account}: HTTP ${response.status}`);
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A typed column's value in comparable form. */
function normalize(pgType: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (pgType === "timestamptz") return value instanceof Date ? value.getTime() : Date.parse(String(value));
  if (pgType === "integer" || pgType === "bigint" || pgType === "double precision") return Number(value);
  if (pgType === "numeric") return String(value);
  return value;
}

function comparable(stream: StreamDefinition, columns: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(stream.columns.map((c) => normalize(c.pgType, columns[c.name])));
}

/** The truth of `stream` for `account`, as sorted comparable rows (what a perfect loader holds). */
export async function expectedRows(
  sandbox: RunningSandbox,
  streamName: string,
  account: string,
  range: { from?: string; to?: string } = {},
): Promise<string[]> {
  const stream = getStream(streamName);
  const records = await truthRecords(sandbox, streamName, account, range);
  return records
    .map((record) => {
      const { direction, ...raw } = record;
      const implied: Record<string, string> = typeof direction === "string" ? { direction } : {};
      const parsed = parseRow(stream, raw, implied);
      if (!parsed.ok)
        throw new Error(
          `truth row of ${streamName} does not validate: ${JSON.stringify(parsed.reject.issues)}`,
        );
      return comparable(stream, parsed.row.columns);
    })
    .sort();
}

/** The UTC day placing a row of a windowed stream in its window. */
const WINDOW_DAY: Readonly<Record<string, string>> = {
  cdrs: `("date" AT TIME ZONE 'UTC')::date`,
  short_link_metrics: "created_date",
};

/** The landing table of `stream` for `account` (rows of `window` only, when given), as sorted comparable rows. */
export async function loadedRows(
  warehouse: Warehouse,
  streamName: string,
  account: string,
  window?: { start: string; end: string },
): Promise<string[]> {
  const stream = getStream(streamName);
  const day = sql.raw(WINDOW_DAY[streamName] ?? "NULL::date");
  const inWindow = window ? sql`AND ${day} >= ${window.start}::date AND ${day} < ${window.end}::date` : sql``;
  const result = await sql<Record<string, unknown>>`
    SELECT * FROM ${sql.table(stream.table)} WHERE _account = ${account} ${inWindow}`.execute(warehouse.db);
  return result.rows.map((row) => comparable(stream, row)).sort();
}

/** Rows per key in a merge stream's table that occur more than once (must be none). */
export async function duplicateKeys(warehouse: Warehouse, streamName: string): Promise<number> {
  const stream = getStream(streamName);
  const key = stream.key.map((k) => sql.ref(k));
  const result = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM ${sql.table(stream.table)} GROUP BY ${sql.join(key)} HAVING count(*) > 1) d`.execute(
    warehouse.db,
  );
  return result.rows[0]?.n ?? 0;
}

/** Completed windows of (account, stream), as `start..end` labels, oldest first. */
export async function completedLabels(
  warehouse: Warehouse,
  account: string,
  stream: string,
): Promise<string[]> {
  const { completed } = await readStreamProgress(warehouse.db, account, stream);
  return completed.map((w) => `${w.start}..${w.end}`);
}
