/**
 * dbt's Python environment: a virtualenv installed from the hash-pinned `dbt/requirements.lock`.
 * A clone has it at `.venv` (`make setup`); a package creates it on first use, or by `telecom-etl
 * setup`, in its state folder, one folder per lock (an upgrade that changes the lock gets a new one).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { UsageError } from "../core/errors.js";
import { installationKind, programFolder, setupCommand, stateFolder } from "../core/installation.js";
import type { Logger } from "../core/log.js";

const run = promisify(execFile);

/** Written last into a package's environment: the lock's digest, so a half-made environment never counts. */
const STAMP = "telecom-etl-lock.sha256";

/** The lock dbt's environment is installed from. */
function lockFile(root: string): string {
  return path.join(root, "dbt", "requirements.lock");
}

function lockDigest(root: string): string {
  return createHash("sha256")
    .update(readFileSync(lockFile(root)))
    .digest("hex");
}

/** Where the environment is, and (for a package) the lock digest its stamp must hold. */
interface PythonEnv {
  readonly folder: string;
  /** The lock's digest; undefined in a clone, whose `.venv` make keeps in step with the lock. */
  readonly digest: string | undefined;
}

/** The environment of the program at `root`: a clone's `.venv`; a package's `<state>/python-<lock digest>`. */
function pythonEnvOf(root: string): PythonEnv {
  if (installationKind(root) === "clone") return { folder: path.join(root, ".venv"), digest: undefined };
  const digest = lockDigest(root);
  return { folder: path.join(stateFolder(root), `python-${digest.slice(0, 12)}`), digest };
}

/** Whether `env` is complete: it has dbt, and a package's also has the lock's stamp. */
function isReady({ folder, digest }: PythonEnv): boolean {
  if (!existsSync(path.join(folder, "bin", "dbt"))) return false;
  if (digest === undefined) return true;
  const stamp = path.join(folder, STAMP);
  return existsSync(stamp) && readFileSync(stamp, "utf8").trim() === digest;
}

/** The environment's folder: a clone's `.venv`; a package's `<state>/python-<lock digest>`. */
export function pythonEnvFolder(root: string = programFolder()): string {
  return pythonEnvOf(root).folder;
}

/** Whether the environment is complete: a clone's has dbt; a package's also has the lock's stamp. */
export function pythonEnvReady(root: string = programFolder()): boolean {
  return isReady(pythonEnvOf(root));
}

/** The environment's `tool` (`dbt`, `mf`) when the environment is ready; undefined otherwise. */
export function pythonEnvTool(tool: string, root: string = programFolder()): string | undefined {
  const env = pythonEnvOf(root);
  return isReady(env) ? path.join(env.folder, "bin", tool) : undefined;
}

/** The last line a failed command printed, for a one-line message. */
function lastLine(error: unknown): string {
  const { stderr, stdout, message } = error as { stderr?: string; stdout?: string; message?: string };
  const text = `${stdout ?? ""}\n${stderr ?? ""}`.trim() || (message ?? String(error));
  return (
    text
      .split("\n")
      .filter((line) => line.trim() && !line.startsWith("WARNING"))
      .at(-1) ?? text
  );
}

/**
 * Creates the environment from the lock (`python3 -m venv`, then `pip install --require-hashes`),
 * unless it is ready (or `force`). Returns its folder. Throws UsageError naming what failed and how to fix it.
 */
export async function createPythonEnv(options: {
  readonly log: Logger;
  readonly root?: string;
  readonly python?: string;
  /** Installs again even when the environment is ready. */
  readonly force?: boolean;
}): Promise<string> {
  const root = options.root ?? programFolder();
  const env = pythonEnvOf(root);
  const { folder } = env;
  if (options.force !== true && isReady(env)) return folder;
  const python = options.python ?? (process.env.PYTHON || "python3");
  const started = Date.now();
  options.log.info(
    { folder },
    "creating dbt's Python environment from dbt/requirements.lock (about a minute)",
  );
  await rm(folder, { recursive: true, force: true });
  try {
    await run(python, ["-m", "venv", folder], { maxBuffer: 4 << 20 });
  } catch (error) {
    throw new UsageError(
      `${python} -m venv failed (${lastLine(error)}): install Python 3 with venv, or name it with PYTHON=<python3>`,
    );
  }
  const pip = path.join(folder, "bin", "pip");
  const args = [
    "install",
    "--quiet",
    "--disable-pip-version-check",
    "--require-hashes",
    "-r",
    lockFile(root),
  ];
  try {
    await run(pip, args, { maxBuffer: 16 << 20 });
  } catch (error) {
    throw new UsageError(
      `installing dbt from ${lockFile(root)} failed (${lastLine(error)}): check the network or a pip index (PIP_INDEX_URL), then run ${setupCommand(root)} again`,
    );
  }
  if (env.digest !== undefined) await writeFile(path.join(folder, STAMP), `${env.digest}\n`);
  options.log.info(
    { folder, seconds: Math.round((Date.now() - started) / 1000) },
    "dbt's Python environment is ready",
  );
  return folder;
}
