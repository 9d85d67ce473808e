import type { Command } from "commander";
import { loadConfig } from "../config.js";
import { UsageError } from "../errors.js";
import { EXIT } from "../exit-codes.js";
import { setUpBiReaderRole } from "../warehouse/bi-reader-role.js";
import { connectWarehouse } from "../warehouse/connect-warehouse.js";
import { runningEmbeddedUrl, startEmbeddedWarehouse } from "../warehouse/embedded-postgres.js";
import { migrateToLatest } from "../warehouse/migrate.js";
import type { Runtime } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";

/** `telecom-etl warehouse up|url`: run the embedded warehouse in the foreground, or print where it is. */
export function registerWarehouseCommand(program: Command, runtime: Runtime): void {
  const warehouse = program.command("warehouse").description("the embedded PostgreSQL warehouse");
  withExample(warehouse, "telecom-etl warehouse up", "telecom-etl warehouse url");

  const up = warehouse
    .command("up")
    .description("start the embedded warehouse, migrate it, print its URL and keep it running until Ctrl-C")
    .action(async (_options, cmd: Command) => {
      const options = globalOptions(cmd);
      runtime.endsOnSignal();
      const log = runtime.logger(options);
      const config = await loadConfig(
        { file: options.config, requireAccounts: false },
        { ...process.env, DATABASE_URL: "" },
      );
      const embedded = await startEmbeddedWarehouse({ dir: config.embeddedDir, log });
      runtime.onCleanup(() => embedded.stop());
      if (!embedded.owned) throw new UsageError(`the embedded warehouse is already running: ${embedded.url}`);
      const opened = await connectWarehouse(embedded.url);
      try {
        await migrateToLatest(opened.db);
        await setUpBiReaderRole(opened.db, { role: config.biReaderRole, log });
      } finally {
        await opened.close();
      }
      process.stdout.write(`${options.json ? JSON.stringify({ url: embedded.url }) : embedded.url}\n`);
      process.stderr.write("warehouse is up; press Ctrl-C to stop it\n");
      await new Promise<void>((resolve) =>
        runtime.signal.addEventListener("abort", () => resolve(), { once: true }),
      );
      await embedded.stop();
      runtime.setExitCode(EXIT.ok);
    });
  withExample(up, "telecom-etl warehouse up", 'psql "$(telecom-etl warehouse url)"');

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
          "the embedded warehouse is not running; start it with: telecom-etl warehouse up",
        );
      }
      process.stdout.write(`${options.json ? JSON.stringify({ url: found }) : found}\n`);
      runtime.setExitCode(EXIT.ok);
    });
  withExample(url, "telecom-etl warehouse url");
}
