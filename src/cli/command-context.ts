import { readFile } from "node:fs/promises";
import os from "node:os";
import { type EtlConfig, loadConfig } from "../config/config.js";
import { envVariablesOf } from "../config/env-variables.js";
import { UsageError } from "../core/errors.js";
import type { ExitCode } from "../core/exit-codes.js";
import type { KnownSecrets } from "../core/known-secrets.js";
import type { LogFormat, Logger, LogLevel } from "../core/log.js";
import { printable } from "../core/terminal-text.js";
import { setUpBiReaderRole } from "../warehouse/admin/bi-reader-role.js";
import { connectWarehouse, type Warehouse } from "../warehouse/connection/connect-warehouse.js";
import { type EmbeddedWarehouse, startEmbeddedWarehouse } from "../warehouse/connection/embedded-postgres.js";
import { type MigrateResult, migrateToLatest } from "../warehouse/connection/migrate.js";

/** Options every command accepts (see `telecom-etl --help`). */
export interface GlobalOptions {
  readonly config?: string;
  readonly databaseUrl?: string;
  readonly logLevel: LogLevel;
  /** `--log-format` / `TELECOM_ETL_LOG_FORMAT`; by default pretty on a terminal, JSON elsewhere. */
  readonly logFormat: LogFormat;
  readonly json: boolean;
}

/** What a command body works with: nothing global, everything passed in. */
export interface CommandContext {
  readonly config: EtlConfig;
  readonly warehouse: Warehouse;
  readonly log: Logger;
  /** Aborted on SIGINT/SIGTERM: stop at the next safe point (between transactions). */
  readonly signal: AbortSignal;
  readonly json: boolean;
  readonly host: string;
  /** The migrations this command applied before starting (empty when the schema was current). */
  readonly migrated: MigrateResult | undefined;
  /** The secrets the process knows (the accounts' keys, and what a run sees): masked in logs and stored rows. */
  readonly secrets: KnownSecrets;
  /** Writes a line of the command's result to stdout. */
  out(line: string): void;
}

/** How a command wants its context set up. */
export interface ContextNeeds {
  /** The command talks to the platform, so at least one account with its key must be configured. */
  readonly accounts: boolean;
  /** Apply pending migrations first (data commands); false leaves the schema alone. */
  readonly migrate: boolean;
  /** The accounts the command works on (`--accounts`): only their keys must be set. Absent: every account. */
  readonly touchedAccounts?: readonly string[] | undefined;
}

/** Process-wide pieces the CLI entry point owns: the abort signal and the resources to release on exit. */
export interface Runtime {
  readonly signal: AbortSignal;
  /** The process's known secrets, shared by its logger (which masks them) and the command. */
  readonly secrets: KnownSecrets;
  /** Registers a cleanup run on exit, including after SIGINT/SIGTERM; returns an unregister function. */
  onCleanup(cleanup: () => Promise<void>): () => void;
  /** The logger, created from the global options the first time it is asked for. */
  logger(options: GlobalOptions): Logger;
  /** Records the command's exit code (the entry point exits with it). */
  setExitCode(code: ExitCode): void;
  /** Declares that SIGINT/SIGTERM is this command's normal way to end (`warehouse up`), not an interruption. */
  endsOnSignal(): void;
}

/**
 * Writes one line (or a few, joined by newlines) of a command's result to stdout: every known
 * secret masked, and what a terminal would act on (escape sequences, control characters, from
 * platform text) removed.
 */
export function printLine(secrets: KnownSecrets, line: string): void {
  process.stdout.write(`${printable(secrets.maskText(line))}\n`);
}

/**
 * Remembers the secrets a config refers to, so no log line or output shows them: the accounts' keys
 * and every secret variable it names (the BI role's password), whether from the environment or `.env`.
 */
export function rememberConfigSecrets(
  config: EtlConfig,
  secrets: KnownSecrets,
  env: NodeJS.ProcessEnv,
): void {
  for (const variable of envVariablesOf(config.accounts))
    if (variable.secret) secrets.add(env[variable.name]);
}

/** Opens the warehouse the config names, or starts (or joins) the embedded one. */
export async function openWarehouse(
  config: EtlConfig,
  log: Logger,
  runtime: Runtime,
): Promise<{ warehouse: Warehouse; embedded: EmbeddedWarehouse | undefined }> {
  if (config.databaseUrl) {
    const password = await readDatabasePassword(config);
    if (password !== undefined) runtime.secrets.add(password);
    return { warehouse: await connectWarehouse(config.databaseUrl, { password }), embedded: undefined };
  }
  const embedded = await startEmbeddedWarehouse({ dir: config.embeddedDir, log });
  const unregister = runtime.onCleanup(() => embedded.stop());
  try {
    const warehouse = await connectWarehouse(embedded.url);
    const stop = async () => {
      unregister();
      await embedded.stop();
    };
    return { warehouse, embedded: { ...embedded, stop } };
  } catch (error) {
    unregister();
    await embedded.stop();
    throw error;
  }
}

/**
 * The password of `database_password_file` (its first line), for a warehouse URL without one;
 * undefined when no file is configured. A URL with a password of its own and a file as well is
 * refused: which one is meant would be a guess.
 */
export async function readDatabasePassword(config: EtlConfig): Promise<string | undefined> {
  const file = config.databasePasswordFile;
  if (file === undefined) return undefined;
  if (config.databaseUrl !== undefined && /^[^:/]+:\/\/[^/@]*:[^/@]+@/.test(config.databaseUrl)) {
    throw new UsageError(
      `DATABASE_URL carries a password and database_password_file (${file}) is set as well: keep one of them`,
    );
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new UsageError(`database_password_file: cannot read ${file}; check the path and its permissions`);
  }
  const password = text.split(/\r?\n/)[0] ?? "";
  if (password === "")
    throw new UsageError(`database_password_file: ${file} is empty; its first line is the password`);
  return password;
}

/**
 * Runs a command body with its context: config loaded and validated, warehouse open (embedded when
 * no DATABASE_URL), schema migrated if asked (and the warehouse's BI role set up, its password from the environment), and everything released afterwards, on errors and
 * on interruption alike.
 */
export async function withCommandContext(
  options: GlobalOptions,
  runtime: Runtime,
  needs: ContextNeeds,
  body: (context: CommandContext) => Promise<ExitCode>,
): Promise<ExitCode> {
  const log = runtime.logger(options);
  const config = await loadConfig({
    file: options.config,
    databaseUrl: options.databaseUrl,
    requireAccounts: needs.accounts,
    touchedAccounts: needs.touchedAccounts,
  });
  rememberConfigSecrets(config, runtime.secrets, process.env);
  const { warehouse, embedded } = await openWarehouse(config, log, runtime);
  const unregister = runtime.onCleanup(() => warehouse.close());
  try {
    const migrated = needs.migrate ? await migrateToLatest(warehouse.db) : undefined;
    if (migrated?.applied.length) log.info({ applied: migrated.applied }, "applied migrations");
    if (needs.migrate) await setUpBiReaderRole(warehouse.db, { role: config.biReaderRole, log });
    return await body({
      config,
      warehouse,
      log,
      signal: runtime.signal,
      json: options.json,
      host: os.hostname(),
      migrated,
      secrets: runtime.secrets,
      out: (line) => printLine(runtime.secrets, line),
    });
  } finally {
    unregister();
    await warehouse.close();
    await embedded?.stop();
  }
}
