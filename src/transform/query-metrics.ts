/**
 * The semantic layer's metrics (dbt/models/marts/semantic/*.yml) asked of MetricFlow (the
 * `dbt-metricflow` package in the project's venv, kept running by metricflow-process.ts) against
 * one warehouse's published marts.
 *
 * `mf` reads the semantic manifest from `<project dir>/target/semantic_manifest.json` only, and
 * that manifest names every mart with the warehouse's database (`"db"."analytics_marts"."fct_calls"`):
 * so each warehouse gets a project folder of its own, `.telecom-etl/dbt/<warehouse>/semantic-layer/`
 * (the project's dbt_project.yml linked in, its `target/` written by `dbt parse` with the marts'
 * published schema), and MetricFlow runs there with the loader's DBT_* connection variables.
 */
import { existsSync } from "node:fs";
import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "../core/errors.js";
import { setupCommand } from "../core/installation.js";
import type { Logger } from "../core/log.js";
import { startMetricflowProcess } from "./metricflow-process.js";
import { pythonEnvTool } from "./python-env.js";
import { type DbtResult, dbtEnvironment, dbtWorkFolder, projectRoot, runDbt } from "./run-dbt.js";

/** What to ask MetricFlow: metric names and group-by items (`metric_time__day`, `campaign`, ...). */
export interface MetricsQuery {
  readonly metrics: readonly string[];
  readonly groupBy?: readonly string[];
  /** MetricFlow's `--where`, e.g. `{{ Dimension('call_leg__direction') }} = 'placed'`. */
  readonly where?: string;
  readonly order?: readonly string[];
}

/** MetricFlow's answer: its columns in order and one record per row (values as `mf query --csv` writes them). */
export interface MetricsAnswer {
  readonly columns: readonly string[];
  readonly rows: readonly Record<string, string>[];
}

/** MetricFlow (or the `dbt parse` before it) failed; the message is one line naming why. */
export class MetricsQueryError extends Error {}

/** The project's `mf`: $MF_BIN, else the one in dbt's Python environment; undefined when not installed. */
export function metricflowExecutable(root = projectRoot()): string | undefined {
  if (process.env.MF_BIN) return process.env.MF_BIN;
  return pythonEnvTool("mf", root);
}

/** The folder `mf` runs in for this warehouse (its `target/semantic_manifest.json` is this warehouse's). */
export function semanticLayerFolder(databaseUrl: string): string {
  return path.join(dbtWorkFolder(databaseUrl), "semantic-layer");
}

/**
 * Writes this warehouse's semantic manifest (`dbt parse`, the marts named in their published
 * schema) into its semantic-layer folder. Returns dbt's result; not ok means the project does not parse.
 */
export async function parseSemanticLayer(options: {
  databaseUrl: string;
  log: Logger;
  biReaderRole?: string | undefined;
}): Promise<DbtResult> {
  const root = projectRoot();
  const folder = semanticLayerFolder(options.databaseUrl);
  await mkdir(folder, { recursive: true });
  const projectFile = path.join(folder, "dbt_project.yml");
  if (!existsSync(projectFile)) await symlink(path.join(root, "dbt", "dbt_project.yml"), projectFile);
  return runDbt({
    databaseUrl: options.databaseUrl,
    log: options.log,
    args: ["parse"],
    workDir: folder,
    ...(options.biReaderRole === undefined ? {} : { biReaderRole: options.biReaderRole }),
  });
}

/** A MetricFlow kept running for one warehouse: each query answers without `mf`'s start-up. */
export interface MetricsSession {
  /** Asks for `query`; throws MetricsQueryError when MetricFlow refuses it or cannot run it. */
  readonly query: (query: MetricsQuery) => Promise<MetricsAnswer>;
  /** Ends the MetricFlow process (the manifest it loaded is the one parsed before it started). */
  readonly close: () => Promise<void>;
}

/** dbt's Python beside `mf` ($MF_BIN's folder, else the project's environment); undefined when not installed. */
function metricflowPython(root: string): string | undefined {
  const mf = metricflowExecutable(root);
  return mf === undefined ? undefined : path.join(path.dirname(mf), "python");
}

/**
 * Starts a MetricFlow process for the warehouse's published marts (parse first with
 * {@link parseSemanticLayer}): MetricFlow and the semantic manifest are loaded once (the 4–7 s
 * every `mf query` spends), then each query is the query's own time. Throws UsageError when
 * MetricFlow is not installed, MetricsQueryError when it cannot start (no manifest, say).
 */
export async function openMetricsSession(options: {
  databaseUrl: string;
  biReaderRole?: string | undefined;
}): Promise<MetricsSession> {
  const root = projectRoot();
  const python = metricflowPython(root);
  if (python === undefined) {
    throw new UsageError(
      `MetricFlow is not installed: run ${setupCommand(root)} (installs dbt-metricflow with dbt)`,
    );
  }
  const folder = semanticLayerFolder(options.databaseUrl);
  const env = {
    ...process.env,
    ...dbtEnvironment(options.databaseUrl, undefined, options.biReaderRole),
    // The marts BI reads, never a build schema.
    DBT_MARTS_BUILD_SCHEMA: "",
    DBT_PROFILES_DIR: path.join(root, "dbt"),
    DBT_PROJECT_DIR: folder,
    DBT_SEND_ANONYMOUS_USAGE_STATS: "false",
  };
  const script = path.join(root, "dbt", "python", "metricflow_server.py");
  const server = await startMetricflowProcess({ python, script, cwd: folder, env }).catch((error: Error) => {
    throw new MetricsQueryError(`MetricFlow did not start: ${error.message}`);
  });
  const query = async (query: MetricsQuery): Promise<MetricsAnswer> => {
    const reply = await server.ask(query).catch((error: Error) => ({ error: error.message }));
    if ("error" in reply) throw new MetricsQueryError(`mf query failed: ${reply.error}`);
    const { columns } = reply;
    return {
      columns,
      rows: reply.rows.map((values) => Object.fromEntries(columns.map((c, i) => [c, values[i] ?? ""]))),
    };
  };
  return { query, close: server.close };
}

/**
 * Asks MetricFlow for one `query` against the warehouse's published marts (parse first with
 * {@link parseSemanticLayer}), in a MetricFlow process of its own (start-up included: for several
 * queries, {@link openMetricsSession}). Throws UsageError when MetricFlow is not installed,
 * MetricsQueryError when MetricFlow refuses the query (an unknown metric, a group-by no metric
 * has) or cannot run it.
 */
export async function queryMetrics(options: {
  databaseUrl: string;
  query: MetricsQuery;
  biReaderRole?: string | undefined;
}): Promise<MetricsAnswer> {
  const session = await openMetricsSession(options);
  try {
    return await session.query(options.query);
  } finally {
    await session.close();
  }
}
