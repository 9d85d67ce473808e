import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "../core/errors.js";
import { installationKind, stateFolder } from "../core/installation.js";
import type { Logger } from "../core/log.js";
import { findProjectFolder } from "../core/project-files.js";
import { biReaderRoleFor, databaseOfUrl } from "../warehouse/admin/bi-reader-role.js";
import {
  type DbtNodeProblem,
  type DbtNodeProgress,
  describeNodeProblem,
  digestDbtEvents,
  nodeProgressOf,
} from "./dbt-events.js";
import { createPythonEnv, pythonEnvTool } from "./python-env.js";

/** The project folder holding `dbt/dbt_project.yml`, found by climbing from this file (src/ or dist/src/). */
export function projectRoot(): string {
  return findProjectFolder("dbt/dbt_project.yml");
}

/**
 * The dbt-core version the hash-pinned lock installs (`dbt/requirements.lock`), as `--version`
 * prints it; "unknown" when the lock names none.
 */
export function pinnedDbtVersion(root = projectRoot()): string {
  const lock = readFileSync(path.join(root, "dbt", "requirements.lock"), "utf8");
  return /^dbt-core==([^\s\\]+)/m.exec(lock)?.[1] ?? "unknown";
}

/**
 * The dbt the loader runs: $DBT_BIN, else the one in dbt's Python environment (a clone's `.venv`,
 * a package's own, see python-env.ts); undefined when that is not installed.
 */
export function dbtExecutable(root = projectRoot()): string | undefined {
  if (process.env.DBT_BIN) return process.env.DBT_BIN;
  return pythonEnvTool("dbt", root);
}

/**
 * The dbt to run, installing dbt's Python environment first where this is a package that has none
 * yet (first use); in a clone, a missing dbt is a UsageError naming `make setup`.
 */
async function dbtToRun(root: string, log: Logger): Promise<string> {
  const dbt = dbtExecutable(root);
  if (dbt !== undefined) return dbt;
  if (installationKind(root) === "clone") {
    throw new UsageError("dbt is not installed: run `make setup` (creates .venv from dbt/requirements.lock)");
  }
  const folder = await createPythonEnv({ log, root });
  return path.join(folder, "bin", "dbt");
}

/** dbt's work folders (target, logs) of the warehouse at `databaseUrl`, under the state folder. */
export function dbtWorkFolder(databaseUrl: string, kind: "dbt" | "dbt-docs" = "dbt"): string {
  return path.join(stateFolder(projectRoot()), kind, warehouseFolder(databaseUrl));
}

/** Result of a dbt invocation: its exit status, the counts line (`PASS=32 WARN=0 ERROR=0 ...`) and what failed. */
export interface DbtResult {
  readonly ok: boolean;
  readonly exitCode: number | null;
  readonly summary: string;
  /** dbt's selection matched no node, so it did nothing (it still exits 0). */
  readonly selectedNothing: boolean;
  /** The last lines dbt printed. */
  readonly tail: readonly string[];
  /** Nodes that failed (models, tests, stale sources) and nodes that only warned. */
  readonly failures: readonly DbtNodeProblem[];
  readonly warnings: readonly DbtNodeProblem[];
  /** dbt's own error when no node is to blame (the project does not parse, dbt could not start). */
  readonly generalError: string | undefined;
  /** dbt's full log of this invocation and the ones before it (text). */
  readonly logPath: string;
  /** dbt's target folder of this invocation (manifest.json, run_results.json). */
  readonly targetPath: string;
  /** dbt's id of this invocation (in its log and run_results.json); undefined when dbt printed no event. */
  readonly invocationId: string | undefined;
}

/**
 * One line saying why dbt failed: the failing nodes (at most three named, then a count), or dbt's
 * own error, and where its full log is. `what` names the step: "dbt build", "dbt source freshness".
 */
export function describeDbtFailure(what: string, result: DbtResult): string {
  const shown = result.failures.slice(0, 3).map(describeNodeProblem);
  const more = result.failures.length > 3 ? ` and ${result.failures.length - 3} more` : "";
  const cause =
    shown.length > 0
      ? `${shown.join("; ")}${more}`
      : (result.generalError ?? `dbt exited with ${result.exitCode ?? "a signal"}`);
  return `${what} failed: ${cause} (details: ${result.logPath})`;
}

/**
 * The DBT_* variables profiles.yml and dbt_project.yml read, from a warehouse URL (the password goes
 * only to the child) and the warehouse's BI role (default derived from the database, as the loader
 * creates it), which the marts are granted to.
 */
export function dbtEnvironment(
  databaseUrl: string,
  schema = "analytics",
  biReaderRole?: string,
): Record<string, string> {
  const url = new URL(databaseUrl);
  return {
    DBT_BI_ROLE: biReaderRoleFor(databaseOfUrl(databaseUrl), biReaderRole),
    DBT_HOST: url.hostname || "127.0.0.1",
    DBT_PORT: url.port || "5432",
    DBT_USER: decodeURIComponent(url.username || "postgres"),
    DBT_PASSWORD: decodeURIComponent(url.password),
    DBT_DBNAME: decodeURIComponent(url.pathname.replace(/^\//, "")) || "postgres",
    DBT_SCHEMA: schema,
  };
}

/**
 * Arguments that leave dbt's unit tests out of a build. Unit tests check the models' logic on fixed
 * inputs (the test suite runs them); a production build checks the data, so `transform` and
 * `nightly` skip them unless `--unit-tests` is given, as dbt recommends.
 */
export const WITHOUT_UNIT_TESTS: readonly string[] = ["--exclude-resource-type", "unit_test"];

/** A folder name for one warehouse: `<database>@<host>-<port>`, safe for any file system. */
export function warehouseFolder(databaseUrl: string): string {
  const { DBT_DBNAME, DBT_HOST, DBT_PORT } = dbtEnvironment(databaseUrl);
  return `${DBT_DBNAME}@${DBT_HOST}-${DBT_PORT}`.replace(/[^A-Za-z0-9@._-]/g, "_");
}

/** dbt's command in its arguments, the words before the first flag: `build`, `source freshness`. */
function commandOf(args: readonly string[]): string {
  const firstFlag = args.findIndex((arg) => arg.startsWith("-"));
  return args.slice(0, firstFlag < 0 ? args.length : firstFlag).join(" ");
}

/** Options of {@link runDbt}. */
export interface DbtRunOptions {
  readonly databaseUrl: string;
  readonly log: Logger;
  readonly args?: readonly string[];
  /** Where dbt keeps its target and logs; default the warehouse's folder (see {@link runDbt}). */
  readonly workDir?: string;
  readonly signal?: AbortSignal;
  /** The warehouse's BI role as configured (`bi_reader_role`); default `<database>_bi_reader`. */
  readonly biReaderRole?: string;
  /**
   * Build the marts in this schema instead of the published one (write-audit-publish, see
   * `src/transform/publish-marts.ts`); unset, dbt builds them in place. dbt reads it while parsing
   * the project, so every invocation in one folder must give the same (`runDbtAsBuild`).
   */
  readonly martsBuildSchema?: string;
  /** Called as each node finishes ("N of M"), while dbt runs. */
  readonly onNode?: (progress: DbtNodeProgress) => void;
}

/**
 * Runs `dbt <args>` (default `build`) on the project's dbt folder against `databaseUrl`, with the
 * virtualenv's dbt (or $DBT_BIN). Output goes to the debug log; dbt's own log file is at info level
 * (`DBT_LOG_LEVEL_FILE=debug` adds every SQL statement); target and logs go to
 * the state folder's `dbt/<database>/` (a clone's `.telecom-etl/`; one folder per warehouse: dbt rewrites its target folder on every
 * invocation, so two builds of different warehouses at once must not share one).
 */
export async function runDbt(options: DbtRunOptions): Promise<DbtResult> {
  const root = projectRoot();
  const dbt = await dbtToRun(root, options.log);
  const workDir = options.workDir ?? dbtWorkFolder(options.databaseUrl);
  await mkdir(workDir, { recursive: true });
  const args = [
    ...(options.args ?? ["build"]),
    "--project-dir",
    path.join(root, "dbt"),
    "--profiles-dir",
    path.join(root, "dbt"),
    "--target-path",
    path.join(workDir, "target"),
    "--log-path",
    path.join(workDir, "logs"),
    "--no-use-colors",
    // Events as JSON on stdout, so failures are read by node, not scraped; the log file stays text.
    "--log-format",
    "json",
    "--log-format-file",
    "text",
  ];
  const child = spawn(dbt, args, {
    env: {
      // dbt's log file at info level unless the operator asks for more (DBT_LOG_LEVEL_FILE=debug logs
      // every SQL statement): the debug events cost a nightly build about a second of dbt's time.
      DBT_LOG_LEVEL_FILE: "info",
      ...process.env,
      ...dbtEnvironment(options.databaseUrl, undefined, options.biReaderRole),
      // Set by this call only: a value inherited from the environment must not route a plain build.
      DBT_MARTS_BUILD_SCHEMA: options.martsBuildSchema ?? "",
      DBT_SEND_ANONYMOUS_USAGE_STATS: "false",
    },
    stdio: ["ignore", "pipe", "pipe"],
    signal: options.signal,
  });
  const lines: string[] = [];
  const partial = { stdout: "", stderr: "" };
  const collect = (stream: keyof typeof partial) => (chunk: Buffer) => {
    const parts = (partial[stream] + chunk.toString()).split("\n");
    partial[stream] = parts.pop() ?? "";
    for (const line of parts) {
      if (!line.trim()) continue;
      lines.push(line);
      if (options.onNode === undefined) continue;
      const progress = nodeProgressOf(line);
      if (progress !== undefined) options.onNode(progress);
    }
  };
  child.stdout.on("data", collect("stdout"));
  child.stderr.on("data", collect("stderr"));
  const exitCode = await new Promise<number | null>((resolve) => {
    child.on("close", (code) => resolve(code));
    child.on("error", () => resolve(null));
  });
  for (const rest of Object.values(partial)) if (rest.trim()) lines.push(rest);
  const digest = digestDbtEvents(lines);
  for (const line of digest.lines) options.log.debug({ dbt: line }, "dbt");
  // A nightly's invocations share one saved parse (`runDbtAsBuild`): a full parse is worth a line.
  if (digest.fullParse !== undefined) {
    options.log.info({ reason: digest.fullParse }, `dbt ${commandOf(args)}: parsed the whole project`);
  }
  return {
    ok: exitCode === 0,
    exitCode,
    summary: digest.summary,
    selectedNothing: digest.selectedNothing,
    tail: digest.lines.slice(-15),
    failures: digest.failures,
    warnings: digest.warnings,
    generalError: digest.generalError,
    logPath: path.join(workDir, "logs", "dbt.log"),
    targetPath: path.join(workDir, "target"),
    invocationId: digest.invocationId,
  };
}
