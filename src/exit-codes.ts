/**
 * Exit codes of every command (documented in the README) and the one function that turns a thrown
 * error into one. It sits below the CLI so the pipeline can record the code a failed run ends with
 * without depending on `src/cli`.
 */
import { CommanderError } from "commander";
import { AuthError, LockHeldError, UsageError } from "./errors.js";

/** Exit codes of every command, documented in the README. */
export const EXIT = {
  /** Everything asked for was done. */
  ok: 0,
  /** Some work failed: its data was not loaded and its state not advanced; the rest was. */
  workFailed: 1,
  /** Usage, configuration or credentials error: nothing was done. */
  usage: 2,
  /** Finished, but some rows were quarantined in etl.rejects. */
  quarantined: 3,
  /** Another run holds the lock of a stream this run needs. */
  locked: 4,
  /** Interrupted by SIGINT/SIGTERM; completed windows are kept, the rest stays open. */
  interrupted: 130,
} as const;

/** One of the values of {@link EXIT}. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

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
