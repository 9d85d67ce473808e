/**
 * Exit codes of every command (documented in docs/reference/exit-codes.md) and the one function that turns a thrown
 * error into one. It sits below the CLI so the pipeline can record the code a failed run ends with
 * without depending on `src/cli`.
 */
import { CommanderError } from "commander";
import { AuthError, LockHeldError, UsageError } from "./errors.js";

/** Exit codes of every command, documented in docs/reference/exit-codes.md. */
export const EXIT = {
  /** Everything asked for was done. */
  ok: 0,
  /** Some work failed: its data was not loaded and its state not advanced; the rest was. */
  workFailed: 1,
  /** Usage, configuration or credentials error: nothing was done. */
  usage: 2,
  /** Finished, but some rows were quarantined in etl.rejects. */
  quarantined: 3,
  /** Another run holds the lock of a stream this run needs, or another transform is building the marts. */
  locked: 4,
  /**
   * The marts were not published: a model or an error-level test failed, or the publication could
   * not be committed. BI still sees the previous marts; the loaded data is intact.
   */
  transformFailed: 5,
  /** `dbt source freshness` found a landing table older than its error_after limit. */
  sourcesStale: 6,
  /** Interrupted by SIGINT/SIGTERM; completed windows are kept, the rest stays open. */
  interrupted: 130,
} as const;

/** One of the values of {@link EXIT}. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * Every exit code from the mildest to the worst, for commands that chain steps (`nightly`): a step
 * that did nothing at all (usage, lock, interruption) outranks one that did part of its work, a
 * broken mart build outranks a failed load window (BI sees it at once), and a stale source or a few
 * quarantined rows rank below both.
 */
export const EXIT_SEVERITY: readonly ExitCode[] = [
  EXIT.ok,
  EXIT.quarantined,
  EXIT.sourcesStale,
  EXIT.workFailed,
  EXIT.transformFailed,
  EXIT.locked,
  EXIT.usage,
  EXIT.interrupted,
];

/** The worst of several steps' exit codes, by {@link EXIT_SEVERITY}; `ok` when there are none. */
export function worstExitCode(codes: readonly ExitCode[]): ExitCode {
  return codes.reduce<ExitCode>(
    (worst, code) => (EXIT_SEVERITY.indexOf(code) > EXIT_SEVERITY.indexOf(worst) ? code : worst),
    EXIT.ok,
  );
}

/**
 * Maps anything a command threw to an exit code; an interruption (SIGINT/SIGTERM) wins over the
 * error it caused. The only error-to-exit-code mapping: the CLI and the run records both use it.
 */
export function exitCodeFor(error: unknown, interrupted = false): ExitCode {
  if (interrupted) return EXIT.interrupted;
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof UsageError || error instanceof AuthError) return EXIT.usage;
  if (error instanceof LockHeldError) return EXIT.locked;
  return EXIT.workFailed;
}
