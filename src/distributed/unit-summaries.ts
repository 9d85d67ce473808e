/**
 * The coordinator's summary of a distributed run, from its units: one stream summary for every
 * (account, stream) it planned, whatever its unit reported (a planned stream no unit loaded fails,
 * saying so), each counting what EVERY attempt of its unit did: a unit whose first worker was
 * killed after two windows made requests, inserted rows and rejected rows that its last attempt
 * never saw. An attempt's figures are those its own run recorded (`etl.runs`, `unit_of_run`): at
 * its end, or summed from its windows when it never recorded its end.
 */
import type { StreamSummary } from "../pipeline/run/run-stream.js";
import { newTally } from "../pipeline/run/run-stream.js";
import type { RunRecord, RunStreamFigures } from "../warehouse/state/run-history.js";
import type { FollowedUnit } from "./follow-units.js";

/** The account a unit's run loaded (a unit's run loads exactly one). */
function accountOf(run: RunRecord): string | undefined {
  const accounts = (run.arguments as { accounts?: unknown } | null)?.accounts;
  return Array.isArray(accounts) && typeof accounts[0] === "string" ? accounts[0] : undefined;
}

/**
 * The summaries of `unit`: its last attempt's streams (a planned stream it did not report failed),
 * or one failed (cancelled: interrupted) summary per planned stream; then the requests, rows and
 * rejects of its other attempts (`runs`: the runs of every unit of the coordinator) added in.
 */
export function unitSummaries(unit: FollowedUnit, runs: readonly RunRecord[]): StreamSummary[] {
  const account = unit.target.account.name;
  const reported = new Map((unit.outcome?.streams ?? []).map((s) => [s.stream, s]));
  const summaries = unit.target.streams.map(
    (stream) => reported.get(stream.name) ?? unloaded(unit, stream.name),
  );
  for (const extra of reported.values())
    if (!unit.target.streams.some((s) => s.name === extra.stream)) summaries.push(extra);
  const earlier = runs.filter((run) => accountOf(run) === account && run.id !== unit.outcome?.runId);
  return summaries.map((summary) =>
    earlier.reduce(
      (sum, run) =>
        addAttempt(
          sum,
          run.streams.find((s) => s.stream === summary.stream),
        ),
      summary,
    ),
  );
}

/** A planned stream its unit did not load: failed, or interrupted when the unit was cancelled. */
function unloaded(unit: FollowedUnit, stream: string): StreamSummary {
  const status = unit.state === "cancelled" ? "interrupted" : "failed";
  const reason =
    unit.outcome !== undefined
      ? `planned by the coordinator, but its work unit (run ${unit.outcome.runId} on worker ${unit.outcome.worker}) did not load it`
      : (unit.failure ?? "cancelled before a worker took it");
  return {
    ...newTally(unit.target.account.name, stream, 0),
    status,
    windowsFailed: status === "failed" ? 1 : 0,
    errors: [`work unit ${unit.state}: ${reason}`],
  };
}

/** `summary` with the requests, rows (deleted ones too) and rejects of another attempt's stream added. */
function addAttempt(summary: StreamSummary, attempt: RunStreamFigures | undefined): StreamSummary {
  if (attempt === undefined) return summary;
  return {
    ...summary,
    requests: summary.requests + attempt.requests,
    throttled: summary.throttled + attempt.throttled,
    rowsFetched: summary.rowsFetched + attempt.rowsFetched,
    inserted: summary.inserted + attempt.rowsInserted,
    updated: summary.updated + attempt.rowsUpdated,
    deleted: summary.deleted + attempt.rowsDeleted,
    rejected: summary.rejected + attempt.rowsRejected,
  };
}

/** A unit's notes, and a note when it needed more than one attempt. */
export function unitNotes(unit: FollowedUnit): string[] {
  const notes = [...(unit.outcome?.notes ?? [])];
  if (unit.attempts > 1)
    notes.push(
      `${unit.target.account.name}: work unit done in ${unit.attempts} attempts (the figures count every attempt's requests, rows and rejects)`,
    );
  return notes;
}
