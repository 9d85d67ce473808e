import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The built CLI (`npm run build` / `make` builds it before the suite runs). */
export const CLI_PATH = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../dist/src/cli/bin.js",
);

/** Output and exit code of one CLI invocation. */
export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of a CLI invocation: extra env (merged over a minimal env), working directory, time limit. */
export interface CliOptions {
  readonly env?: Record<string, string | undefined>;
  readonly cwd?: string;
  readonly timeoutMs?: number;
}

/** Starts the CLI as a child process (not on a terminal, so logs are JSON lines on stderr). */
export function spawnCli(args: readonly string[], options: CliOptions = {}): ChildProcess {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run npm run build first`);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" };
  for (const [key, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[key] = value;
  // The tests play sandboxes whose clock is in 2026-08, months behind this machine's: a past
  // TELECOM_ETL_NOW is intended there (a test naming the variable, even as undefined, decides).
  if (env.TELECOM_ETL_NOW !== undefined && !Object.hasOwn(options.env ?? {}, "TELECOM_ETL_ALLOW_PAST_NOW"))
    env.TELECOM_ETL_ALLOW_PAST_NOW = "1";
  return spawn(process.execPath, [CLI_PATH, ...args], {
    cwd: options.cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Collects a child's output until it exits. */
export function collect(child: ChildProcess, timeoutMs = 120_000): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`CLI did not finish within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs the CLI to completion. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return collect(spawnCli(args, options), options.timeoutMs);
}

/** Resolves when `predicate` holds for the child's accumulated stdout. */
export function waitForOutput(
  child: ChildProcess,
  predicate: (stdout: string) => boolean,
  timeoutMs = 60_000,
): Promise<string> {
  let seen = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no expected output within ${timeoutMs} ms: ${seen}`)),
      timeoutMs,
    );
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (predicate(seen)) {
        clearTimeout(timer);
        resolve(seen);
      }
    });
  });
}

/** Resolves once the child's stderr holds a line matching `pattern`, with that line; rejects when it exits first. */
export function stderrLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  let seen = "";
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const line = seen.split("\n").find((l) => pattern.test(l));
      if (line !== undefined) resolve(line);
    });
    child.on("close", () => reject(new Error(`exited before writing ${pattern}: ${seen.slice(-1500)}`)));
  });
}

/** The lines of a CLI's stderr that are not JSON log lines: what an operator reads. */
export function operatorLines(stderr: string): string[] {
  return stderr
    .trim()
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("{"));
}

/** Pids of postgres servers running on a data directory under `dir`. */
export async function postgresPidsUnder(dir: string): Promise<number[]> {
  const { readdir, readFile } = await import("node:fs/promises");
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, "utf8")).split("\0");
      if (cmdline[0]?.endsWith("/postgres") && cmdline.some((arg) => arg.startsWith(dir)))
        pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}
