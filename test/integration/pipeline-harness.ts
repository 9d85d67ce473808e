/**
 * Shared pieces of the pipeline's integration tests (the sandbox and the database themselves are
 * fixtures, in test/helpers/fixtures.ts): a config pointing at the sandbox, one pipeline run through
 * the library, the sandbox's truth export, and the landing tables read back in a form that compares
 * with the truth (see truth-oracle.ts: the expectation never goes through the loader's parsing).
 */

import type { RunningSandbox } from "@telecom-etl/sandbox/start-sandbox.js";
import { sql } from "kysely";
import { pino } from "pino";
import { expect } from "vitest";
import type { SharedRateBuckets } from "../../src/api/shared-token-bucket.js";
import { defaultFileSettings, type EtlConfig } from "../../src/config/config.js";
import type { KnownSecrets } from "../../src/core/known-secrets.js";
import type { Logger } from "../../src/core/log.js";
import type { Clock } from "../../src/core/ports.js";
import { Secret } from "../../src/core/secret.js";
import { readStreamProgress } from "../../src/pipeline/plan/read-progress.js";
import {
  type PipelineRequest,
  type PipelineResult,
  runPipeline,
} from "../../src/pipeline/run/run-pipeline.js";
import type { ProgressReporter } from "../../src/pipeline/run/run-progress.js";
import { getStream, type StreamName } from "../../src/streams/registry.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { primaryKeyOf } from "../../src/warehouse/connection/landing-table.js";
import { expectedFromTruth, landedRows } from "./truth-oracle.js";

/**
 * The streams a pipeline test reads unless it names others: one of each way a plain list lands, a
 * merged date window (`cdrs`), a replaced date window (`short_link_metrics`) and a whole list merged
 * every run (`invoices`). Not every stream: pipeline-streams-truth.test.ts reads each of the registry.
 */
export const SAMPLE_STREAMS = [
  "cdrs",
  "short_link_metrics",
  "invoices",
] as const satisfies readonly StreamName[];

/**
 * The range of the sandbox's truth a stream's landed rows compare with: the run's days `from`..`to`,
 * or all the account has now for a stream read whole every run (`full_refresh` in the registry).
 */
export function truthRange(stream: string, from: string, to: string): { from?: string; to?: string } {
  return getStream(stream).slicing === "full_refresh" ? {} : { from, to };
}

/** What a config file that says nothing gets (window, lookback, settling, page size, attempts). */
const DEFAULTS = defaultFileSettings();

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
      streams: [...SAMPLE_STREAMS],
    }));
  return {
    accounts,
    ...DEFAULTS,
    startDate: sandbox.world.start,
    // Shorter than the defaults: a test against a local sandbox that hangs should fail fast.
    timeouts: { connectMs: 5_000, headersMs: 5_000, totalMs: 20_000 },
    retry: { maxAttempts: DEFAULTS.retry.maxAttempts, maxTotalWaitMs: 30_000 },
    databaseUrl: undefined,
    embeddedDir: ".telecom-etl/unused",
    source: undefined,
    ...rest,
  };
}

export { capturingLogger } from "../helpers/capturing-logger.js";

/** One run or backfill through the library, "today" taken from the sandbox clock. */
export async function runAt(
  warehouse: Warehouse,
  config: EtlConfig,
  sandbox: RunningSandbox,
  request: PipelineRequest,
  options: {
    log?: Logger;
    signal?: AbortSignal;
    progress?: ProgressReporter;
    secrets?: KnownSecrets;
    sharedRateBuckets?: SharedRateBuckets;
    /** The run's clock (default the machine's): slices' started_at and every read's instant. */
    clock?: Clock;
  } = {},
): Promise<PipelineResult> {
  return runPipeline(
    {
      config,
      warehouse,
      log: options.log ?? pino({ level: "silent" }),
      signal: options.signal ?? new AbortController().signal,
      host: "test",
      runStartedAt: sandbox.runtime.clock.now(),
      ...(options.progress === undefined ? {} : { progress: options.progress }),
      ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
      ...(options.sharedRateBuckets === undefined ? {} : { sharedRateBuckets: options.sharedRateBuckets }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    },
    request,
  );
}

/** Replaces the sandbox's fault profile through its admin API (`{profile}` or `{base, rows, drift…}`). */
export async function swapFaults(sandbox: Pick<RunningSandbox, "url">, profile: unknown): Promise<void> {
  const response = await fetch(`${sandbox.url}/_sandbox/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(profile),
  });
  if (!response.ok) throw new Error(`swapping the sandbox's faults failed: ${response.status}`);
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

/**
 * The truth of `stream` for `account`, as sorted comparable rows (what a perfect loader holds),
 * mapped by the independent oracle of truth-oracle.ts, never by the loader's own parsing.
 */
export async function expectedRows(
  sandbox: RunningSandbox,
  streamName: string,
  account: string,
  range: { from?: string; to?: string } = {},
): Promise<string[]> {
  return expectedFromTruth(streamName, await truthRecords(sandbox, streamName, account, range));
}

/** The landing table of `stream` for `account` (rows of `window` only, when given), as sorted comparable rows. */
export const loadedRows = landedRows;

/** Rows per key in a merge stream's table that occur more than once (must be none). */
export async function duplicateKeys(warehouse: Warehouse, streamName: string): Promise<number> {
  const { table } = getStream(streamName);
  const key = primaryKeyOf(table).map((k) => sql.ref(k));
  const result = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM ${sql.table(table.name)} GROUP BY ${sql.join(key)} HAVING count(*) > 1) d`.execute(
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

/**
 * Asserts no secret (an API key, a trunk's access token) is in any text, varchar or jsonb value of
 * the `platform` and `etl` schemas, nor in a log line.
 */
export async function expectSecretsNowhere(
  warehouse: Warehouse,
  secrets: readonly string[],
  logLines: readonly string[],
): Promise<void> {
  const columns = await sql<{ schema: string; table: string; column: string }>`
    SELECT table_schema AS schema, table_name AS table, column_name AS column
    FROM information_schema.columns
    WHERE table_schema IN ('platform', 'etl') AND data_type IN ('text', 'jsonb', 'character varying')`.execute(
    warehouse.db,
  );
  expect(columns.rows.length).toBeGreaterThan(20);
  for (const { schema, table, column } of columns.rows) {
    const found = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(`${schema}.${table}`)}
      WHERE ${sql.ref(column)}::text LIKE ANY (${secrets.map((secret) => `%${secret}%`)})`.execute(
      warehouse.db,
    );
    expect(found.rows[0]?.n, `${schema}.${table}.${column}`).toBe(0);
  }
  for (const secret of secrets) expect(logLines.join("\n")).not.toContain(secret);
}
