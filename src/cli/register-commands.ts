import type { Command } from "commander";
import type { Runtime } from "./command-context.js";
import { registerConfigCommand } from "./config-command.js";
import { registerMigrateCommand } from "./migrate-command.js";
import { registerWarehouseCommand } from "./warehouse-command.js";

/** Adds every command to the program; one line per command file. */
export function registerCommands(program: Command, runtime: Runtime): void {
  registerMigrateCommand(program, runtime);
  registerWarehouseCommand(program, runtime);
  registerConfigCommand(program, runtime);
}
