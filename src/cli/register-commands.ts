import type { Command } from "commander";
import { registerBackfillCommand } from "./backfill-command.js";
import { registerCheckCommand } from "./check-command.js";
import type { Runtime } from "./command-context.js";
import { registerConfigCommand } from "./config-command.js";
import { registerDemoCommand } from "./demo-command.js";
import { registerDocsCommand } from "./docs-command.js";
import { registerMigrateCommand } from "./migrate-command.js";
import { registerNightlyCommand } from "./nightly-command.js";
import { registerQueueCommand } from "./queue-command.js";
import { registerRecountCommand } from "./recount-command.js";
import { registerRejectsCommand } from "./rejects-command.js";
import { registerReportCommand } from "./report-command.js";
import { registerRunCommand } from "./run-command.js";
import { registerRunsCommand } from "./runs-command.js";
import { registerSandboxCommand } from "./sandbox-command.js";
import { registerSchemaCommand } from "./schema-command.js";
import { registerStateCommand } from "./state-command.js";
import { registerStatusCommand } from "./status-command.js";
import { registerTrackCommand } from "./track-command.js";
import { registerTransformCommand } from "./transform-command.js";
import { registerWarehouseCommand } from "./warehouse-command.js";
import { registerWorkerCommand } from "./worker-command.js";

/** Adds every command to the program; one line per command file. */
export function registerCommands(program: Command, runtime: Runtime): void {
  registerMigrateCommand(program, runtime);
  registerWarehouseCommand(program, runtime);
  registerConfigCommand(program, runtime);
  registerCheckCommand(program, runtime);
  registerRunCommand(program, runtime);
  registerBackfillCommand(program, runtime);
  registerRecountCommand(program, runtime);
  registerStatusCommand(program, runtime);
  registerRunsCommand(program, runtime);
  registerSchemaCommand(program, runtime);
  registerRejectsCommand(program, runtime);
  registerStateCommand(program, runtime);
  registerTrackCommand(program, runtime);
  registerTransformCommand(program, runtime);
  registerNightlyCommand(program, runtime);
  registerReportCommand(program, runtime);
  registerDocsCommand(program, runtime);
  registerSandboxCommand(program, runtime);
  registerDemoCommand(program, runtime);
  registerWorkerCommand(program, runtime);
  registerQueueCommand(program, runtime);
}
