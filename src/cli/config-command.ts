import type { Command } from "commander";
import { stringify } from "yaml";
import { loadConfig, redactedConfig } from "../config/config.js";
import { EXIT } from "../core/exit-codes.js";
import type { Runtime } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";

/** `telecom-etl config show`: the effective configuration, secrets replaced by `***`. */
export function registerConfigCommand(program: Command, runtime: Runtime): void {
  const config = program.command("config").description("inspect the configuration");
  withExample(config, "telecom-etl config show");
  const show = config
    .command("show")
    .description("print the effective configuration (file + environment), never a secret")
    .action(async (_options, cmd: Command) => {
      const options = globalOptions(cmd);
      const effective = await loadConfig({
        file: options.config,
        databaseUrl: options.databaseUrl,
        requireAccounts: false,
      });
      const view = redactedConfig(effective);
      process.stdout.write(options.json ? `${JSON.stringify(view)}\n` : stringify(view));
      runtime.setExitCode(EXIT.ok);
    });
  withExample(show, "telecom-etl config show", "telecom-etl --config telecom-etl.yaml --json config show");
}
