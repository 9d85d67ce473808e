import type { Command } from "commander";
import { sharedRateBuckets } from "../api/shared-token-bucket.js";
import { DEFAULT_DISTRIBUTED } from "../config/config.js";
import { UsageError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { requireSameSchema } from "../distributed/schema-version.js";
import { openUnitQueue } from "../distributed/unit-queue.js";
import { connectionsForUnits, workUnits } from "../distributed/work-units.js";
import { connectWarehouse } from "../warehouse/connection/connect-warehouse.js";
import { type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";
import { parsePositiveInteger } from "./parse-flags.js";

/** Longest a stopping worker waits for its units in hand to reach a safe point. */
const STOP_GRACE_MS = 60_000;

/** `--units N`: a whole number from 1 to 64. */
function parseUnits(text: string | undefined): number | undefined {
  const n = parsePositiveInteger("--units", text, "a whole number from 1 to 64");
  if (n !== undefined && n > 64)
    throw new UsageError(`--units: expected a whole number from 1 to 64, got "${text}"`);
  return n;
}

/**
 * `telecom-etl worker`: takes the work units of distributed runs (`nightly --distributed`,
 * `backfill --distributed`) from the warehouse's queue until SIGTERM/SIGINT, which it answers by
 * stopping its units at their next safe point (each is then given to another worker). It refuses
 * to start (exit 2) when the warehouse's schema is not the one this release was built for.
 */
export function registerWorkerCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("worker")
    .description(
      "take work units of distributed runs from the warehouse's queue and load them, until SIGTERM/SIGINT",
    )
    .option("--units <n>", "units (accounts) this worker loads at once (default: distributed.worker_units)")
    .action(async (flags: { units?: string }, cmd: Command) => {
      const units = parseUnits(flags.units);
      runtime.endsOnSignal();
      const code = await withCommandContext(
        globalOptions(cmd),
        runtime,
        { accounts: true, migrate: false },
        async (ctx) => {
          const schemaVersion = await requireSameSchema(ctx.warehouse);
          const configured = ctx.config.distributed ?? DEFAULT_DISTRIBUTED;
          const settings = { ...configured, workerUnits: units ?? configured.workerUnits };
          const queue = await openUnitQueue(ctx.warehouse, settings, {
            log: ctx.log,
            schemaVersion,
            instanceName: `telecom-etl worker ${process.pid}@${ctx.host}`,
          });
          // A pool sized for the units in hand (the command's own pool is for one run).
          const warehouse = await connectWarehouse(ctx.warehouse.url, {
            max: connectionsForUnits(settings.workerUnits),
          });
          try {
            await workUnits(
              {
                config: ctx.config,
                warehouse,
                host: ctx.host,
                log: ctx.log,
                secrets: ctx.secrets,
                signal: ctx.signal,
                settings,
                // One token bucket per key across every worker: N workers never send more than one would.
                pipeline: { sharedRateBuckets: sharedRateBuckets(warehouse.db) },
              },
              queue,
            );
            ctx.log.info(
              { queue: queue.name, units: settings.workerUnits, schemaVersion },
              "worker started: taking work units",
            );
            await new Promise<void>((resolve) => {
              if (ctx.signal.aborted) resolve();
              ctx.signal.addEventListener("abort", () => resolve(), { once: true });
            });
            ctx.log.info(
              { queue: queue.name },
              "worker stopping: units in hand stop at their next safe point",
            );
          } finally {
            await queue.close({ graceful: true, timeoutMs: STOP_GRACE_MS });
            await warehouse.close();
          }
          return EXIT.ok;
        },
      );
      runtime.setExitCode(code);
    });
  withExample(
    command,
    "telecom-etl worker",
    "telecom-etl worker --units 4",
    "DATABASE_URL=postgres://etl@warehouse/etl telecom-etl worker",
  );
}
