/**
 * The command that finishes what an interrupted `run`, `nightly` or `backfill` left: the same
 * command line (a run reads every window not settled yet; a backfill skips the ones settled),
 * a backfill's `--from` moved up to the first window of its range that is still to read.
 */
import type { Command } from "commander";
import { settingsOf } from "../config/config.js";
import { planBackfillWindows } from "../pipeline/plan/plan-windows.js";
import { readStreamProgress } from "../pipeline/plan/read-progress.js";
import { selectRunTargets } from "../pipeline/plan/select-targets.js";
import type { PipelineRequest, PipelineResult } from "../pipeline/run/run-pipeline.js";
import type { CommandContext } from "./command-context.js";

/** The program's own name, as the README and `--help` write commands. */
const PROGRAM = "telecom-etl";

/** `arg` as a POSIX shell word: left alone when it has no special character, else single-quoted. */
export function shellWord(arg: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * The user arguments the program was started with: commander keeps those it parsed on the root
 * command (`rawArgs`, not in its typings); else the process's own.
 */
export function commandLineOf(command: Command): readonly string[] {
  let root = command;
  while (root.parent) root = root.parent;
  return (root as Command & { rawArgs?: string[] }).rawArgs ?? process.argv.slice(2);
}

/** `argv` as one shell line of `telecom-etl`, with the value of `--from` replaced when `from` is given. */
export function resumeCommandLine(argv: readonly string[], from?: string): string {
  const args = [...argv];
  if (from !== undefined) {
    const at = args.findIndex((a) => a === "--from" || a.startsWith("--from="));
    if (at >= 0 && args[at] === "--from") args[at + 1] = from;
    else if (at >= 0) args[at] = `--from=${from}`;
  }
  return [PROGRAM, ...args.map(shellWord)].join(" ");
}

/**
 * The first day a backfill still has to read after `result`: the earliest window of its range, over
 * its (account, stream)s, that is not settled now; undefined when every window is.
 */
export async function backfillResumeFrom(
  ctx: CommandContext,
  request: Extract<PipelineRequest, { command: "backfill" }>,
  result: PipelineResult,
): Promise<string | undefined> {
  let first: string | undefined;
  for (const target of selectRunTargets(ctx.config, request.accounts, request.streams)) {
    for (const stream of target.streams) {
      if (stream.slicing !== "date_window") continue;
      const { completed } = await readStreamProgress(ctx.warehouse.db, target.account.name, stream.name);
      const [next] = planBackfillWindows({
        from: request.from,
        to: request.to,
        windowDays: ctx.config.windowDays,
        today: result.today,
        readAt: result.runStartedAt.getTime(),
        settleHours: settingsOf(ctx.config, stream.name).settleHours,
        completed,
      });
      if (next !== undefined && (first === undefined || next.start < first)) first = next.start;
    }
  }
  return first;
}

/** The one line an interrupted load's summary ends with: what is left and the command that finishes it. */
export async function resumeLine(
  ctx: CommandContext,
  request: PipelineRequest,
  result: PipelineResult,
  argv: readonly string[],
): Promise<string> {
  const notRun = result.streams.reduce((n, s) => n + s.windowsNotRun, 0);
  const from = request.command === "backfill" ? await backfillResumeFrom(ctx, request, result) : undefined;
  return `interrupted with ${notRun} window(s) not run; to finish, run: ${resumeCommandLine(argv, from)}`;
}
