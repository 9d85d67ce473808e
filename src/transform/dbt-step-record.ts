/**
 * What `nightly` keeps of each dbt step it ran, in `etl.runs.dbt`: the verdict, dbt's counts, the
 * failing and warning nodes named in one line each, and how long it took. Plain data, so
 * `telecom-etl runs` reads it back and alerts name what failed.
 */

import type { DbtStepRecord } from "../warehouse/state/dbt-run-record.js";
import { describeNodeProblem } from "./dbt-events.js";
import type { DbtResult } from "./run-dbt.js";

export type { DbtStepRecord, NightlyDbtRecord } from "../warehouse/state/dbt-run-record.js";

/** The record of one dbt step from its result. */
export function dbtStepRecord(step: string, result: DbtResult, durationMs: number): DbtStepRecord {
  return {
    step,
    ok: result.ok,
    dbtExitCode: result.exitCode,
    summary: result.summary,
    failures: result.failures.map(describeNodeProblem),
    warnings: result.warnings.map(describeNodeProblem),
    ...(result.ok || result.generalError === undefined ? {} : { generalError: result.generalError }),
    durationMs,
  };
}

/** `dbt build: PASS=69 WARN=0 ERROR=0 …` or `dbt build failed: test x (…)`, for one line of `runs`. */
export function describeDbtStep(step: DbtStepRecord): string {
  const refreshed =
    step.fullRefreshBecause === undefined ? "" : " (full refresh: older landing rows changed)";
  if (step.ok) return `${step.step}: ${step.summary || "done"}${refreshed}`;
  const why = step.failures.length > 0 ? step.failures.join("; ") : (step.generalError ?? "dbt failed");
  return `${step.step} failed: ${why}`;
}
