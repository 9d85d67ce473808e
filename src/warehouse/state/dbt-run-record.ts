/**
 * What `etl.runs.dbt` holds of a `nightly`'s dbt steps: plain data, written by the transform
 * (src/transform/dbt-step-record.ts) and read back by `telecom-etl runs` and the alerts. Declared
 * here, with the tables it is stored in, so the warehouse needs nothing of the transform.
 */

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
  /** The command's exit code: the worst of the load's and the dbt steps' (docs/reference/exit-codes.md). */
  readonly exitCode: number;
  readonly steps: readonly DbtStepRecord[];
}

/**
 * The command a run is shown as: a nightly records its load as a `run` (its windows plan as a
 * run's) and its dbt steps in `etl.runs.dbt`, whose `command` names the whole: `nightly`.
 */
export function shownCommand(command: string, dbt: unknown): string {
  const named = (dbt as Partial<NightlyDbtRecord> | null | undefined)?.command;
  return typeof named === "string" ? named : command;
}
