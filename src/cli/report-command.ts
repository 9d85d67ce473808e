import type { Command } from "commander";
import { describeError } from "../core/errors.js";
import { EXIT, type ExitCode, worstExitCode } from "../core/exit-codes.js";
import { systemClock } from "../core/ports.js";
import { checkReportPath, DEFAULT_REPORT_PATH } from "../report/report-path.js";
import type { WrittenReport } from "../report/write-night-report.js";
import { sweepAbandonedRuns } from "../warehouse/coordination/abandoned-runs.js";
import { type CommandContext, type Runtime, withCommandContext } from "./command-context.js";
import { globalOptions, withExample } from "./global-options.js";
import { parsePositiveInteger } from "./parse-flags.js";

/**
 * Writes the night's page for a command and prints one line saying where. The renderer (ECharts)
 * is loaded only here, so commands that write no page do not pay for it.
 */
export async function writeReportFor(
  ctx: CommandContext,
  file: string,
  runId?: number,
): Promise<WrittenReport> {
  const { writeNightReport } = await import("../report/write-night-report.js");
  const written = await writeNightReport(ctx.warehouse, ctx.config, {
    file,
    now: systemClock.now(),
    ...(runId === undefined ? {} : { runId }),
  });
  const about = written.runId === null ? "no run yet" : `run ${written.runId}`;
  const marts = written.martsBuilt ? "" : "; the marts are not built yet (telecom-etl transform)";
  if (ctx.json) ctx.out(JSON.stringify({ step: "report", ...written }));
  else ctx.out(`report: ${written.path} (${about}${marts})`);
  return written;
}

/**
 * `nightly --report`: writes the page once the night's steps are done (unless interrupted). The
 * night's data is in the warehouse whatever happens here, so a page that cannot be written is one
 * line on stderr and exit 1 at least, never a lost night.
 */
export async function reportAfterNight(ctx: CommandContext, file: string, code: ExitCode): Promise<ExitCode> {
  if (ctx.signal.aborted) return code;
  try {
    await writeReportFor(ctx, file);
    return code;
  } catch (error) {
    process.stderr.write(`telecom-etl: report not written to ${file}: ${describeError(error)}\n`);
    return worstExitCode([code, EXIT.workFailed]);
  }
}

/** The file `--report [file]` names: the default when given without one, undefined when not given. */
export function reportFileOption(value: unknown): string | undefined {
  if (value === undefined || value === false) return undefined;
  return value === true ? DEFAULT_REPORT_PATH : String(value);
}

/** `telecom-etl report`: the night as one self-contained HTML page. */
export function registerReportCommand(program: Command, runtime: Runtime): void {
  const command = program
    .command("report")
    .description(
      "write the night as one self-contained HTML page: per account and stream rows, requests, 429s, retries, rejects, held windows, settled through, freshness; calls, ASR, cost, sentiment, campaign funnel, invoice variances from the marts",
    )
    .option("--out <file>", "where to write the page", DEFAULT_REPORT_PATH)
    .option("--run <id>", "the run to show (default: the latest that loaded anything)")
    .action(async (options: { out: string; run?: string }, cmd: Command) => {
      const runId = parsePositiveInteger("--run", options.run, "a run id (a whole number >= 1)");
      await checkReportPath(options.out);
      const global = globalOptions(cmd);
      const code = await withCommandContext(
        global,
        runtime,
        { accounts: false, migrate: true },
        async (ctx) => {
          // A run killed without recording its end would otherwise show as running.
          await sweepAbandonedRuns(ctx.warehouse.db, { host: ctx.host, log: ctx.log });
          await writeReportFor(ctx, options.out, runId);
          return EXIT.ok;
        },
      );
      runtime.setExitCode(code);
    });
  withExample(
    command,
    "telecom-etl report",
    "telecom-etl report --out /var/www/etl/night.html",
    "telecom-etl report --run 41 --out run-41.html",
  );
}
