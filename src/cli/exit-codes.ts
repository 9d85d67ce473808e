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
