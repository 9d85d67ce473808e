/**
 * The dbt half of `telecom-etl check`: dbt installed where the loader runs it (the project's
 * `.venv`, or $DBT_BIN), and `dbt debug` passing with the environment the loader gives dbt (the
 * profile and the project parse, the warehouse answers with the loader's credentials).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { installationKind, setupCommand } from "../core/installation.js";
import { pythonEnvFolder } from "../transform/python-env.js";
import { dbtEnvironment, dbtExecutable, dbtWorkFolder, projectRoot } from "../transform/run-dbt.js";
import type { CheckItem } from "./check-item.js";

const subject = "dbt";

/** Output and exit code of one dbt invocation (at most `timeoutMs`). */
async function runQuietly(
  dbt: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(dbt, args, { env, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => {
    child.on("close", (exit) => resolve(exit));
    child.on("error", () => resolve(null));
  });
  return { code, output };
}

/** The check's environment for dbt: the loader's, without the anonymous usage ping. */
function dbtEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra, DBT_SEND_ANONYMOUS_USAGE_STATS: "false", DBT_VERSION_CHECK: "false" };
}

/**
 * `installed` and `profile`: whether dbt runs, its version, and whether `dbt debug` passes against
 * the warehouse at `databaseUrl` (the loader's URL, password included: it goes to dbt's
 * environment only, as for a build).
 */
export async function checkDbt(databaseUrl: string, biReaderRole: string | undefined): Promise<CheckItem[]> {
  const root = projectRoot();
  const dbt = dbtExecutable(root);
  if (dbt === undefined) {
    return [
      {
        subject,
        item: "installed",
        status: "fail",
        detail: `no dbt in ${path.join(pythonEnvFolder(root), "bin")}: run ${setupCommand(root)} (installs dbt from dbt/requirements.lock), or set DBT_BIN`,
      },
    ];
  }
  const version = await runQuietly(dbt, ["--version"], dbtEnv(), 60_000);
  const installed = /installed:\s*(\S+)/.exec(version.output)?.[1];
  if (version.code !== 0 || installed === undefined) {
    return [
      {
        subject,
        item: "installed",
        status: "fail",
        detail: `${dbt} --version failed (${lastLine(version.output)}): reinstall it: ${installationKind(root) === "clone" ? "rm -rf .venv && make setup" : "telecom-etl setup --force"}`,
      },
    ];
  }
  const items: CheckItem[] = [
    { subject, item: "installed", status: "ok", detail: `dbt ${installed} (${dbt})` },
  ];
  const logs = path.join(dbtWorkFolder(databaseUrl), "logs");
  const debug = await runQuietly(
    dbt,
    [
      "debug",
      "--project-dir",
      path.join(root, "dbt"),
      "--profiles-dir",
      path.join(root, "dbt"),
      "--log-path",
      logs,
      "--no-use-colors",
    ],
    dbtEnv(dbtEnvironment(databaseUrl, undefined, biReaderRole)),
    120_000,
  );
  items.push(
    debug.code === 0
      ? {
          subject,
          item: "profile",
          status: "ok",
          detail: "dbt debug passed: profiles.yml and dbt_project.yml parse, the warehouse answers",
        }
      : {
          subject,
          item: "profile",
          status: "fail",
          detail: `dbt debug failed: ${debugFailure(debug.output)} (dbt's log: ${path.join(logs, "dbt.log")})`,
        },
  );
  return items;
}

/** What `dbt debug` said went wrong: the lines naming an error, joined on one line. */
export function debugFailure(output: string): string {
  const lines = output.split("\n").map((line) => line.replace(/^\S*\d{2}:\d{2}:\d{2}\s+/, "").trim());
  const errors = lines.filter(
    (line) => /ERROR|[Ee]rror|not found|could not|failed/.test(line) && !/^\d+ checks? failed/.test(line),
  );
  return (errors.length > 0 ? errors.slice(0, 3).join("; ") : lastLine(output)).slice(0, 500);
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1)?.trim() ?? "no output";
}
