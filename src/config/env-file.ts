/**
 * Reading the `.env` file beside the config: only the variables the config refers to (see
 * src/config/env-variables.ts), never over one already set, never printed. Parsed by Node's own
 * `util.parseEnv`; a line it would skip silently, or a file others can read, is refused instead.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parseEnv } from "node:util";
import { UsageError } from "../core/errors.js";

/** The env file's name, looked for in the config file's folder. */
export const ENV_FILE_NAME = ".env";

/** What was taken from an env file: variable names only, never a value. */
export interface EnvFileUse {
  readonly path: string;
  /** Variables set from the file (the config refers to them and the environment did not set them). */
  readonly loaded: readonly string[];
  /** Variables the file sets that were not taken: the config does not refer to them, or the environment set them. */
  readonly ignored: readonly string[];
}

/** The largest env file read: a few variables take a few hundred bytes; anything past this is not one. */
export const MAX_ENV_FILE_BYTES = 64 * 1024;

const ASSIGNMENT = /^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=(.*)$/;

/**
 * The 1-based number of the first line `util.parseEnv` would drop silently (not blank, a comment, or
 * `NAME=value`, nor inside a quoted value running over several lines); undefined when there is none.
 */
export function malformedEnvLine(text: string): number | undefined {
  let openQuote: string | undefined;
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (openQuote !== undefined) {
      if (line.includes(openQuote)) openQuote = undefined;
      continue;
    }
    if (/^\s*(#.*)?$/.test(line)) continue;
    const value = ASSIGNMENT.exec(line)?.[1];
    if (value === undefined) return index + 1;
    const quote = /^\s*(["'`])/.exec(value)?.[1];
    if (quote !== undefined && !value.trim().slice(1).includes(quote)) openQuote = quote;
  }
  return undefined;
}

/** Refuses an env file that other users may read or write (ssh refuses a private key so): one line naming the fix. */
function refuseOpenMode(file: string, mode: number): void {
  if ((mode & 0o077) === 0) return;
  const octal = (mode & 0o777).toString(8).padStart(4, "0");
  throw new UsageError(
    `${ENV_FILE_NAME}: ${file} has mode ${octal}: other users can read the secrets in it; run chmod 600 ${file}`,
  );
}

/**
 * Sets in `env` the variables of `names` that `dir`/.env gives and `env` does not have yet (an
 * environment variable set, even empty, wins). Undefined when there is no such file. A file others
 * can read, or a line that is not `NAME=value`, is a UsageError naming the line, never its text.
 */
export async function applyEnvFile(
  dir: string,
  names: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<EnvFileUse | undefined> {
  const file = path.resolve(dir, ENV_FILE_NAME);
  const stats = await stat(file).catch(() => undefined);
  if (stats === undefined) return undefined;
  if (!stats.isFile())
    throw new UsageError(`${ENV_FILE_NAME}: ${file} is not a file; remove it or make it one`);
  refuseOpenMode(file, stats.mode);
  if (stats.size > MAX_ENV_FILE_BYTES) {
    throw new UsageError(
      `${ENV_FILE_NAME}: ${file} is ${stats.size} bytes, more than the ${MAX_ENV_FILE_BYTES} an env file may have; keep only NAME=value lines in it`,
    );
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new UsageError(`${ENV_FILE_NAME}: cannot read ${file}; check its owner and permissions`);
  }
  const bad = malformedEnvLine(text);
  if (bad !== undefined) {
    throw new UsageError(
      `${ENV_FILE_NAME}: ${file} line ${bad} is not NAME=value (nor a comment); fix or remove that line`,
    );
  }
  const given = parseEnv(text);
  const loaded = names.filter((name) => env[name] === undefined && given[name] !== undefined);
  for (const name of loaded) env[name] = given[name];
  return { path: file, loaded, ignored: Object.keys(given).filter((name) => !loaded.includes(name)) };
}
