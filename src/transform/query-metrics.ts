/**
 * The semantic layer's metrics (dbt/models/marts/semantic/*.yml) asked of MetricFlow (`mf query`,
 * from the `dbt-metricflow` package in the project's venv) against one warehouse's published marts.
 *
 * `mf` reads the semantic manifest from `<project dir>/target/semantic_manifest.json` only, and
 * that manifest names every mart with the warehouse's database (`"db"."analytics_marts"."fct_calls"`):
 * so each warehouse gets a project folder of its own, `.telecom-etl/dbt/<warehouse>/semantic-layer/`
 * (the project's dbt_project.yml linked in, its `target/` written by `dbt parse` with the marts'
 * published schema), and `mf` runs there with the loader's DBT_* connection variables.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { UsageError } from "../core/errors.js";
import { setupCommand } from "../core/installation.js";
import type { Logger } from "../core/log.js";
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

/** MetricFlow's answer: its columns in order and one record per row (values as `mf` wrote them). */
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

/**
 * Asks MetricFlow for `query` against the warehouse's published marts (parse first with
 * {@link parseSemanticLayer}). Throws UsageError when `mf` is not installed, MetricsQueryError when
 * MetricFlow refuses the query (an unknown metric, a group-by no metric has) or cannot run it.
 */
export async function queryMetrics(options: {
  databaseUrl: string;
  query: MetricsQuery;
  biReaderRole?: string | undefined;
  signal?: AbortSignal | undefined;
}): Promise<MetricsAnswer> {
  const root = projectRoot();
  const mf = metricflowExecutable(root);
  if (mf === undefined) {
    throw new UsageError(
      `MetricFlow is not installed: run ${setupCommand(root)} (installs dbt-metricflow with dbt)`,
    );
  }
  const folder = semanticLayerFolder(options.databaseUrl);
  const csv = path.join(folder, `answer-${process.pid}-${Date.now()}.csv`);
  const { query } = options;
  const args = ["query", "--quiet", "--metrics", query.metrics.join(","), "--csv", csv];
  if (query.groupBy && query.groupBy.length > 0) args.push("--group-by", query.groupBy.join(","));
  if (query.where !== undefined) args.push("--where", query.where);
  if (query.order && query.order.length > 0) args.push("--order", query.order.join(","));
  const env = {
    ...process.env,
    ...dbtEnvironment(options.databaseUrl, undefined, options.biReaderRole),
    // The marts BI reads, never a build schema.
    DBT_MARTS_BUILD_SCHEMA: "",
    DBT_PROFILES_DIR: path.join(root, "dbt"),
    DBT_PROJECT_DIR: folder,
    DBT_SEND_ANONYMOUS_USAGE_STATS: "false",
  };
  try {
    const { code, output } = await run(mf, args, folder, env, options.signal);
    if (code !== 0 || !existsSync(csv)) {
      throw new MetricsQueryError(`mf query failed: ${lastMeaningfulLine(output)}`);
    }
    return parseCsv(await readFile(csv, "utf8"));
  } finally {
    await rm(csv, { force: true });
  }
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal | undefined,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], signal });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("close", (code) => resolve({ code, output }));
    child.on("error", (error) => resolve({ code: null, output: `${output}\n${error.message}` }));
  });
}

/** MetricFlow's reason, without its spinner frames and blank lines (the last lines say why). */
function lastMeaningfulLine(output: string): string {
  const lines = output
    .split(/\r?\n/)
    .map((line) => stripVTControlCharacters(line).trim())
    .filter((line) => line !== "" && !/Initiating query|^[-\s]+$/.test(line));
  return lines.slice(-3).join(" ") || "no output";
}

/** RFC 4180 CSV (what Python's csv module writes) as columns and records. */
export function parseCsv(text: string): MetricsAnswer {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      record.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      record.push(field);
      records.push(record);
      record = [];
      field = "";
    } else field += ch;
  }
  if (field !== "" || record.length > 0) records.push([...record, field]);
  const [columns = [], ...body] = records;
  return {
    columns,
    rows: body.map((values) => Object.fromEntries(columns.map((c, i) => [c, values[i] ?? ""]))),
  };
}
