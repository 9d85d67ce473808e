import type { Command } from "commander";
import { EXIT } from "../core/exit-codes.js";
import { installationKind } from "../core/installation.js";
import { createPythonEnv, pythonEnvReady } from "../transform/python-env.js";
import type { Runtime } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";

/**
 * `telecom-etl setup`: installs dbt's Python environment from the hash-pinned lock (a package does
 * it on first use anyway; this does it ahead, e.g. while building an image). Needs no config.
 */
export function registerSetupCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("setup")
    .description(
      "install dbt's Python environment from the hash-pinned dbt/requirements.lock (python3 -m venv + pip)",
    )
    .option("--force", "install again even when it is ready")
    .option("--python <exe>", "the Python 3 to create it with (default: $PYTHON, else python3)")
    .action(async (options: { force?: boolean; python?: string }, cmd: Command) => {
      const global = globalOptions(cmd);
      const log = runtime.logger(global);
      const wasReady = pythonEnvReady();
      const folder = await createPythonEnv({
        log,
        force: options.force === true,
        ...(options.python === undefined ? {} : { python: options.python }),
      });
      const state = wasReady && options.force !== true ? "already installed" : "installed";
      const where = installationKind() === "clone" ? "this clone" : "this package";
      if (global.json) process.stdout.write(`${JSON.stringify({ folder, state })}\n`);
      else process.stdout.write(`dbt's Python environment for ${where}: ${state} in ${folder}\n`);
      runtime.setExitCode(EXIT.ok);
    });
  withExample(command, "telecom-etl setup", "PYTHON=python3.12 telecom-etl setup --force");
}
