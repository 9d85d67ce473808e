/**
 * From the per-stream summaries of a run to its exit code and its `etl.runs.status`: pure, so the
 * rules (docs/reference/exit-codes.md) are tested without a database.
 */
import { EXIT, type ExitCode } from "../../core/exit-codes.js";
import type { FinishedRunStatus } from "../../warehouse/state/run-records.js";
import type { StreamSummary } from "./run-stream.js";

/** Exit code and recorded status of a finished run. */
export interface RunOutcome {
  readonly exitCode: ExitCode;
  readonly status: FinishedRunStatus;
}

/** How a stream ends when its whole account stopped: the key refused, the host unreachable. */
export const ACCOUNT_STOPS: readonly StreamSummary["status"][] = ["auth_failed", "unreachable"];

/**
 * 130 when interrupted; 2 when every account was refused its key (or its host could not be
 * reached) and nothing loaded; 1 when any
 * window failed or any stream was skipped or stopped; 3 when all went through but rows were
 * quarantined; else 0. A stream `not_provisioned` (the account lacks the product, e.g. speech
 * analytics) is a warning in the summary, not a failure: nothing was lost.
 */
export function runOutcome(summaries: readonly StreamSummary[], interrupted: boolean): RunOutcome {
  const loaded = summaries.reduce((sum, s) => sum + s.windowsLoaded, 0);
  if (interrupted) return { exitCode: EXIT.interrupted, status: "interrupted" };
  const accounts = new Set(summaries.map((s) => s.account));
  const refused = new Set(summaries.filter((s) => ACCOUNT_STOPS.includes(s.status)).map((s) => s.account));
  if (accounts.size > 0 && refused.size === accounts.size && loaded === 0) {
    return { exitCode: EXIT.usage, status: "failed" };
  }
  if (summaries.some((s) => s.status !== "succeeded" && s.status !== "not_provisioned")) {
    return { exitCode: EXIT.workFailed, status: loaded > 0 ? "partial" : "failed" };
  }
  if (summaries.some((s) => s.rejected > 0)) return { exitCode: EXIT.quarantined, status: "quarantined" };
  return { exitCode: EXIT.ok, status: "succeeded" };
}

/**
 * The outcome of a `recount`: a run's (nothing is loaded), and 1 (`partial`) when a window's counts
 * differed (it was opened again: the next run reads it) or a stream's re-count stopped early.
 */
export function recountOutcome(summaries: readonly StreamSummary[], interrupted: boolean): RunOutcome {
  const outcome = runOutcome(summaries, interrupted);
  if (outcome.exitCode !== EXIT.ok) return outcome;
  const off = summaries.some(
    (s) => s.recount !== null && (s.recount.differing.length > 0 || s.recount.stopped !== undefined),
  );
  return off ? { exitCode: EXIT.workFailed, status: "partial" } : outcome;
}
