import type { Command } from "commander";
import { UsageError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { generateDbtDocs, serveDbtDocs } from "../transform/dbt-docs.js";
import { describeDbtFailure } from "../transform/run-dbt.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";

interface DocsOptions {
  readonly generateOnly?: boolean;
  readonly port: string;
  readonly host: string;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port: expected a TCP port from 0 to 65535, got "${value}"`);
  return port;
}

/**
 * `telecom-etl docs`: generates dbt's documentation site of the marts (every model and column
 * described, tests, lineage from the landing tables) against the warehouse, then serves it until
 * Ctrl-C; `--generate-only` writes it and stops.
 */
export function registerDocsCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("docs")
    .description(
      "generate dbt's documentation site of the marts (models, columns, tests, lineage) and serve it until Ctrl-C",
    )
    .option("--generate-only", "write the site (index.html, catalog.json, static_index.html) and stop")
    .option("--port <port>", "port to serve on (0: any free port)", "8080")
    .option("--host <host>", "interface to serve on", "127.0.0.1")
    .action(async (options: DocsOptions, cmd: Command) => {
      const port = parsePort(options.port);
      const global = globalOptions(cmd);
      let site: string | undefined;
      const code = await withCommandContext(
        global,
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          const generated = await generateDbtDocs({
            databaseUrl: ctx.warehouse.url,
            log: ctx.log,
            signal: ctx.signal,
            biReaderRole: ctx.config.biReaderRole,
          });
          if (ctx.signal.aborted) return EXIT.interrupted;
          if (!generated.result.ok) {
            process.stderr.write(
              `telecom-etl: ${describeDbtFailure("dbt docs generate", generated.result)}\n`,
            );
            return EXIT.transformFailed;
          }
          site = generated.site;
          ctx.out(`docs: ${site} (open static_index.html without a server)`);
          return EXIT.ok;
        },
      );
      runtime.setExitCode(code);
      if (code !== EXIT.ok || site === undefined || options.generateOnly) return;
      // The warehouse is closed by now: the site is files only.
      runtime.endsOnSignal();
      const served = await serveDbtDocs(site, { host: options.host, port });
      runtime.onCleanup(
        () =>
          new Promise<void>((resolve) => {
            served.server.close(() => resolve());
            served.server.closeAllConnections();
          }),
      );
      process.stdout.write(`docs served at ${served.url}\n`);
      process.stderr.write("press Ctrl-C to stop serving the docs\n");
      await new Promise<void>((resolve) =>
        runtime.signal.addEventListener("abort", () => resolve(), { once: true }),
      );
    });
  withExample(
    command,
    "telecom-etl docs",
    "telecom-etl docs --port 8081 --host 0.0.0.0",
    "telecom-etl docs --generate-only",
  );
}
