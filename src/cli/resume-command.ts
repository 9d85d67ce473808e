/**
 * The command that finishes what an interrupted `run`, `nightly` or `backfill` left: the same
 * command line (a run reads every window not settled yet; a backfill skips the ones settled),
 * a backfill's `--from` moved up to the first window of its range that it did not finish.
 */
import type { Command } from "commander";
import { settingsOf } from "../config/config.js";
import { planBackfillWindows } from "../pipeline/plan/plan-windows.js";
import { readStreamProgress } from "../pipeline/plan/read-progress.js";
import { selectRunTargets } from "../pipeline/plan/select-targets.js";
import type { PipelineRequest, PipelineResult } from "../pipeline/run/run-pipeline.js";
import { loadedWindowKey, windowsLoadedByRun } from "../warehouse/state/slice-records.js";
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

/** The windows of an interrupted load that it did not finish, and the first day among them. */
export interface UnfinishedWindows {
  /** Windows not loaded (never started, not run, failed or held), over every (account, stream). */
  readonly count: number;
  /** The earliest day of those windows; undefined when there are none. */
  readonly from: string | undefined;
}

/**
 * The windows of a backfill's range that `result`'s run (its distributed units' runs included)
 * did not finish: every window the request covers (all of the range with `--refetch`, else those
 * not settled now) but those the run loaded. The resume command reads from the first of them with
 * the request's own flags (`--refetch` kept), so it covers each of them, started or not.
 */
export async function unfinishedBackfillWindows(
  ctx: CommandContext,
  request: Extract<PipelineRequest, { command: "backfill" }>,
  result: PipelineResult,
): Promise<UnfinishedWindows> {
  const loaded = await windowsLoadedByRun(ctx.warehouse.db, result.runId);
  let first: string | undefined;
  let count = 0;
  for (const target of selectRunTargets(ctx.config, request.accounts, request.streams)) {
    for (const stream of target.streams) {
      if (stream.slicing !== "date_window") continue;
      // With --refetch every window of the range counts: the settled ones need not be read.
      const completed = request.refetch
        ? []
        : (await readStreamProgress(ctx.warehouse.db, target.account.name, stream.name)).completed;
      const windows = planBackfillWindows({
        from: request.from,
        to: request.to,
        windowDays: ctx.config.windowDays,
        today: result.today,
        readAt: result.runStartedAt.getTime(),
        settleHours: settingsOf(ctx.config, stream.name).settleHours,
        completed,
      });
      for (const w of windows) {
        if (loaded.has(loadedWindowKey(target.account.name, stream.name, `${w.start}..${w.end}`))) continue;
        count++;
        if (first === undefined || w.start < first) first = w.start;
      }
    }
  }
  return { count, from: first };
}

/**
 * The one line an interrupted load's summary ends with: what is left and the command that finishes
 * it. A backfill's counts the windows of its range not finished (see
 * {@link unfinishedBackfillWindows}); a `run`'s, the windows its streams did not run (the same
 * command reads every window not settled, and the lookback again).
 */
export async function resumeLine(
  ctx: CommandContext,
  request: PipelineRequest,
  result: PipelineResult,
  argv: readonly string[],
): Promise<string> {
  const left =
    request.command === "backfill"
      ? await unfinishedBackfillWindows(ctx, request, result)
      : { count: result.streams.reduce((n, s) => n + s.windowsNotRun, 0), from: undefined };
  return `interrupted with ${left.count} window(s) not finished; to finish, run: ${resumeCommandLine(argv, left.from)}`;
}
