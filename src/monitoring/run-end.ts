/**
 * How a loading command (`run`, `backfill`, `nightly`) ended, as its alert and its metrics see it:
 * the command, the exit code, the run's result when it got that far, the error that stopped it
 * when it did not, and the dbt steps a `nightly` ran.
 */
import type { ExitCode } from "../core/exit-codes.js";
import type { PipelineResult } from "../pipeline/run/run-pipeline.js";
import type { DbtStepRecord } from "../transform/dbt-step-record.js";

/** The end of one loading command. */
export interface RunEnd {
  /** `run`, `backfill` or `nightly`. */
  readonly command: string;
  readonly host: string;
  /** The command's exit code (a nightly's: the worst of its steps). */
  readonly exitCode: ExitCode;
  /** When the command started and ended (epoch ms). */
  readonly startedAt: number;
  readonly endedAt: number;
  /** What the load did; undefined when it could not start (another run's lock, a bad selection). */
  readonly result?: PipelineResult;
  /** The one line that stopped the command, when it threw. */
  readonly error?: string;
  readonly dbtSteps: readonly DbtStepRecord[];
}
