/**
 * What a finished work unit reports back through the queue (stored as the job's output): the
 * unit's own run and its stream summaries, as an in-process run would have summed them.
 */
import type { PipelineResult } from "../pipeline/run/run-pipeline.js";

/** A unit's result: its run, how it ended, its streams, budgets and notes; where it ran. */
export type UnitOutcome = Pick<
  PipelineResult,
  "runId" | "exitCode" | "status" | "streams" | "budgets" | "notes"
> & {
  /** `pid@host` of the worker that did it. */
  readonly worker: string;
};

/** The outcome of a unit's pipeline result. */
export function unitOutcomeOf(result: PipelineResult, worker: string): UnitOutcome {
  return {
    runId: result.runId,
    exitCode: result.exitCode,
    status: result.status,
    streams: result.streams,
    budgets: result.budgets,
    notes: result.notes,
    worker,
  };
}

/** The first line of why a unit failed, from the output pg-boss stored for its failed attempt. */
export function failureReason(output: unknown): string {
  if (output !== null && typeof output === "object") {
    const message = (output as { message?: unknown }).message;
    if (typeof message === "string" && message !== "") return message.split("\n")[0]!;
  }
  return "the unit failed without a reason (its worker stopped answering)";
}
