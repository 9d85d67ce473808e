import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "../errors.js";
import type { Logger } from "../log.js";
import { findProjectFolder } from "../project-files.js";

/** The project folder holding `dbt/dbt_project.yml`, found by climbing from this file (src/ or dist/src/). */
export function projectRoot(): string {
  return findProjectFolder("dbt/dbt_project.yml");
}

/** Result of a dbt invocation: its exit status and the counts line (`PASS=32 WARN=0 ERROR=0 ...`). */
export interface DbtResult {
  readonly ok: boolean;
  readonly exitCode: number | null;
  readonly summary: string;
  /** dbt's selection matched no node, so it did nothing (it still exits 0). */
  readonly selectedNothing: boolean;
  /** The last lines dbt printed, for a failure message. */
  readonly tail: readonly string[];
}

/** The DBT_* variables profiles.yml reads, from a warehouse URL (the password goes only to the child). */
export function dbtEnvironment(databaseUrl: string, schema = "analytics"): Record<string, string> {
  const url = new URL(databaseUrl);
  return {
    DBT_HOST: url.hostname || "127.0.0.1",
    DBT_PORT: url.port || "5432",
    DBT_USER: decodeURIComponent(url.username || "postgres"),
    DBT_PASSWORD: decodeURIComponent(url.password),
    DBT_DBNAME: decodeURIComponent(url.pathname.replace(/^\//, "")) || "postgres",
    DBT_SCHEMA: schema,
  };
}

/**
 * Runs `dbt <args>` (default `build`) on the project's dbt folder against `databaseUrl`, with the
 * virtualenv's dbt (or $DBT_BIN). Output goes to the debug log; target and logs go to
 * `.telecom-etl/dbt/` so concurrent runs on other databases do not collide if given distinct `workDir`s.
 */
export async function runDbt(options: {
  databaseUrl: string;
  log: Logger;
  args?: readonly string[];
  workDir?: string;
  signal?: AbortSignal;
}): Promise<DbtResult> {
  const root = projectRoot();
  const dbt = process.env.DBT_BIN ?? path.join(root, ".venv", "bin", "dbt");
  if (!process.env.DBT_BIN && !existsSync(dbt)) {
    throw new UsageError("dbt is not installed: run `make setup` (creates .venv from dbt/requirements.txt)");
  }
  const workDir = options.workDir ?? path.join(root, ".telecom-etl", "dbt");
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
  ];
  const child = spawn(dbt, args, {
    env: { ...process.env, ...dbtEnvironment(options.databaseUrl), DBT_SEND_ANONYMOUS_USAGE_STATS: "false" },
    stdio: ["ignore", "pipe", "pipe"],
    signal: options.signal,
  });
  const lines: string[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > 200) lines.shift();
      options.log.debug({ dbt: line }, "dbt");
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exitCode = await new Promise<number | null>((resolve) => {
    child.on("close", (code) => resolve(code));
    child.on("error", () => resolve(null));
  });
  const summary = lines.findLast((line) => line.includes("PASS=")) ?? "";
  return {
    ok: exitCode === 0,
    exitCode,
    summary: summary.replace(/^.*Done\.\s*/, "").trim(),
    // dbt's own words when no node is selected ("Nothing to do. Try checking your model configs ...").
    selectedNothing: summary === "" && lines.some((line) => /\bNothing to do\./.test(line)),
    tail: lines.slice(-15),
  };
}
