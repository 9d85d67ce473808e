/**
 * Timing helpers of the dbt benchmarks: a build and publication as `transform` makes them, the
 * slowest nodes of the last dbt invocation, and the clean-up autovacuum does between two nights.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { sql } from "kysely";
import { silentLogger } from "../src/core/log.js";
import { buildAndPublishMarts } from "../src/transform/build-marts.js";
import type { Warehouse } from "../src/warehouse/connection/connect-warehouse.js";

/** Rows in platform.cdrs (call legs landed). */
export async function countCalls(warehouse: Warehouse): Promise<number> {
  const row = await warehouse.db
    .selectFrom("platform.cdrs" as never)
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number((row as { n: string }).n);
}

/** The dbt nodes (models, tests) that took longest in the last invocation, from its run_results.json. */
export async function slowestNodes(workDir: string, count: number): Promise<string> {
  return [...(await nodeSeconds(workDir))]
    .toSorted((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`)
    .join(", ");
}

/** Seconds a database-wide `VACUUM (ANALYZE)` and a `CHECKPOINT` took. */
export async function settleWarehouse(warehouse: Warehouse): Promise<number> {
  const started = performance.now();
  await sql`VACUUM (ANALYZE)`.execute(warehouse.db);
  await sql`CHECKPOINT`.execute(warehouse.db);
  return (performance.now() - started) / 1000;
}

/** Seconds a build and publication took, as `transform` makes them; throws with dbt's last lines when it failed. */
export async function timedDbt(warehouse: Warehouse, workDir: string, dbtArgs: string[]): Promise<number> {
  const started = performance.now();
  const { dbt: result, publication } = await buildAndPublishMarts(warehouse, {
    log: silentLogger,
    args: dbtArgs,
    workDir,
  });
  const seconds = (performance.now() - started) / 1000;
  if (!result.ok || !publication)
    throw new Error(`dbt ${dbtArgs.join(" ")} failed:\n${result.tail.join("\n")}`);
  console.log(`  dbt ${dbtArgs.join(" ")}: ${seconds.toFixed(1)} s (${result.summary})`);
  console.log(`    slowest: ${await slowestNodes(workDir, 8)}`);
  const warned = await nodesWithStatus(workDir, "warn");
  if (warned.length > 0) console.log(`    warned: ${warned.join(", ")}`);
  return seconds;
}

/** The nodes of the last dbt invocation whose status was `status` (e.g. a warn-severity test that found rows), from its run_results.json. */
async function nodesWithStatus(workDir: string, status: string): Promise<string[]> {
  return (await runResults(workDir)).filter((r) => r.status === status).map((r) => nodeName(r.unique_id));
}

interface RunResult {
  readonly unique_id: string;
  readonly execution_time: number;
  readonly status: string;
}

async function runResults(workDir: string): Promise<RunResult[]> {
  const text = await readFile(path.join(workDir, "target", "run_results.json"), "utf8");
  return (JSON.parse(text) as { results: RunResult[] }).results;
}

/** A node's name without its resource type and project (`fct_calls`, `column_rules_fct_calls.abc123`). */
function nodeName(uniqueId: string): string {
  return uniqueId.split(".").slice(2).join(".");
}

/** Seconds each node (model, seed, snapshot, test, hook) of the last dbt invocation took, by name, from its run_results.json. */
export async function nodeSeconds(workDir: string): Promise<Map<string, number>> {
  return new Map((await runResults(workDir)).map((r) => [nodeName(r.unique_id), r.execution_time]));
}
