import { createServer } from "node:net";
import type { Command } from "commander";
import { loadConfig } from "../config/config.js";
import { UsageError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { processStderr } from "../core/stderr-lines.js";
import {
  BI_READER_PASSWORD_ENV,
  type BiReaderSetup,
  setUpBiReaderRole,
} from "../warehouse/admin/bi-reader-role.js";
import { connectWarehouse } from "../warehouse/connection/connect-warehouse.js";
import { runningEmbeddedUrl, startEmbeddedWarehouse } from "../warehouse/connection/embedded-postgres.js";
import { migrateToLatest } from "../warehouse/connection/migrate.js";
import { type Runtime, rememberConfigSecrets } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";
import { ownCommand } from "./own-command.js";

/** `--port`: an integer 1..65535, or undefined when not given. */
function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65_535)
    throw new UsageError(`--port: expected a TCP port (1-65535), got "${value}"`);
  return port;
}

/** True when nothing listens on 127.0.0.1:`port` (checked by listening on it for a moment). */
async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** `telecom-etl warehouse up|url`: run the embedded warehouse in the foreground, or print where it is. */
export function registerWarehouseCommand(program: Command, runtime: Runtime): void {
  const warehouse = program.command("warehouse").description("the embedded PostgreSQL warehouse");
  withExample(warehouse, "telecom-etl warehouse up", "telecom-etl warehouse url");

  const up = warehouse
    .command("up")
    .description("start the embedded warehouse, migrate it, print its URL and keep it running until Ctrl-C")
    .option("--port <n>", "TCP port on 127.0.0.1 (default: a free one)")
    .action(async (flags: { port?: string }, cmd: Command) => {
      const options = globalOptions(cmd);
      const port = parsePort(flags.port);
      runtime.endsOnSignal();
      const log = runtime.logger(options);
      // Its own server whatever DATABASE_URL says; the BI role's password may come from .env.
      const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: "" };
      const config = await loadConfig({ file: options.config, requireAccounts: false }, env);
      rememberConfigSecrets(config, runtime.secrets, env);
      if (port !== undefined && !(await portIsFree(port)))
        throw new UsageError(
          `--port ${port}: the port is in use on 127.0.0.1; choose another or leave --port out`,
        );
      const embedded = await startEmbeddedWarehouse({ dir: config.embeddedDir, log, port });
      runtime.onCleanup(() => embedded.stop());
      if (!embedded.owned) throw new UsageError(`the embedded warehouse is already running: ${embedded.url}`);
      const opened = await connectWarehouse(embedded.url);
      let bi: BiReaderSetup;
      try {
        await migrateToLatest(opened.db);
        bi = await setUpBiReaderRole(opened.db, { role: config.biReaderRole, log, env });
      } finally {
        await opened.close();
      }
      process.stdout.write(`${options.json ? JSON.stringify({ url: embedded.url }) : embedded.url}\n`);
      const where = new URL(embedded.url);
      processStderr.write(
        `BI tools: host ${where.hostname}, port ${where.port}, database postgres, user ${bi.role}, ${
          env[BI_READER_PASSWORD_ENV]
            ? `the password in ${BI_READER_PASSWORD_ENV}`
            : `no password yet (set ${BI_READER_PASSWORD_ENV} and start it again)`
        }, schema analytics_marts\nwarehouse is up; press Ctrl-C to stop it\n`,
      );
      await new Promise<void>((resolve) =>
        runtime.signal.addEventListener("abort", () => resolve(), { once: true }),
      );
      await embedded.stop();
      runtime.setExitCode(EXIT.ok);
    });
  withExample(
    up,
    "telecom-etl warehouse up",
    "TELECOM_ETL_BI_READER_PASSWORD=... telecom-etl warehouse up --port 5433",
    'psql "$(telecom-etl warehouse url)"',
  );

  const url = warehouse
    .command("url")
    .description("print the connection URL of the running embedded warehouse (or of DATABASE_URL)")
    .action(async (_options, cmd: Command) => {
      const options = globalOptions(cmd);
      const config = await loadConfig({
        file: options.config,
        databaseUrl: options.databaseUrl,
        requireAccounts: false,
      });
      if (config.databaseUrl) {
        process.stdout.write(`${config.databaseUrl}\n`);
        runtime.setExitCode(EXIT.ok);
        return;
      }
      const found = await runningEmbeddedUrl(config.embeddedDir);
      if (!found) {
        throw new UsageError(
          `the embedded warehouse is not running; start it with: ${ownCommand()} warehouse up`,
        );
      }
      process.stdout.write(`${options.json ? JSON.stringify({ url: found }) : found}\n`);
      runtime.setExitCode(EXIT.ok);
    });
  withExample(url, "telecom-etl warehouse url");
}
