/**
 * What `nightly` keeps of each dbt step it ran, in `etl.runs.dbt`: the verdict, dbt's counts, the
 * failing and warning nodes named in one line each, and how long it took. Plain data, so
 * `telecom-etl runs` reads it back and alerts name what failed.
 */
import { describeNodeProblem } from "./dbt-events.js";
import type { DbtResult } from "./run-dbt.js";

/** One dbt step (`dbt build`, `dbt source freshness`) as recorded. */
export interface DbtStepRecord {
  readonly step: string;
  readonly ok: boolean;
  /** dbt's own exit status (null: killed by a signal, or it could not start). */
  readonly dbtExitCode: number | null;
  /** dbt's counts line: `PASS=69 WARN=0 ERROR=0 SKIP=0 NO-OP=0 TOTAL=69`. */
  readonly summary: string;
  /** Failing nodes, one line each: `test not_null_fct_calls_call_uuid (Got 3 results, …)`. */
  readonly failures: readonly string[];
  /** Nodes that only warned (a source past `warn_after`, a warn-level test). */
  readonly warnings: readonly string[];
  /** dbt's own error when no node is to blame. */
  readonly generalError?: string;
  readonly durationMs: number;
  /** Why a build the command did not ask to be a full refresh was one (older landing rows changed). */
  readonly fullRefreshBecause?: string;
}

/** What `etl.runs.dbt` holds for a `nightly`: its dbt steps and the exit code of the whole command. */
export interface NightlyDbtRecord {
  readonly command: string;
  /** The command's exit code: the worst of the load's and the dbt steps' (README "Exit codes"). */
  readonly exitCode: number;
  readonly steps: readonly DbtStepRecord[];
}

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
