/**
 * The one lifecycle of everything that runs against the warehouse (`run`, `backfill`, `rejects
 * replay`, `state reset`): record the run, mark runs that died unrecorded, take the locks of the
 * streams it touches, do the work, record how it ended with its exit code, let the locks go. A run
 * whose locks are lost for good while it works ends with exit 4, whatever the work returned.
 */
import { describeError } from "../../core/errors.js";
import { exitCodeFor } from "../../core/exit-codes.js";
import type { Logger } from "../../core/log.js";
import { realSleep, type Sleep } from "../../core/ports.js";
import type { Warehouse } from "../../warehouse/connection/connect-warehouse.js";
import { sweepAbandonedRuns } from "../../warehouse/coordination/abandoned-runs.js";
import {
  acquireStreamLocks,
  type StreamLockKey,
  type StreamLocks,
} from "../../warehouse/coordination/stream-locks.js";
import { finishRun, startRun } from "../../warehouse/state/run-records.js";
import type { RunOutcome } from "./run-outcome.js";

/** Process facts and side effects a recorded run works with. */
export interface RecordedRunDeps {
  readonly warehouse: Warehouse;
  readonly log: Logger;
  readonly host: string;
  /** This process's pid (default `process.pid`). */
  readonly pid?: number;
  /** SIGINT/SIGTERM: waiting for a lock ends early. */
  readonly signal?: AbortSignal;
  readonly sleep?: Sleep;
  /** Keep-alive interval of the lock session (tests shorten it). */
  readonly lockHeartbeatMs?: number;
}

/** What is run: the command and its arguments as recorded (never a secret), and the streams it locks. */
export interface RunSpec {
  readonly command: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly locks: readonly StreamLockKey[];
  /** How long to wait for a lock another run holds (0: exit 4 at once). */
  readonly lockTimeoutMs: number;
}

/** What the work gets: its run id and the locks (whose `lost` signal says to stop starting work). */
export interface RecordedRun {
  readonly runId: number;
  readonly locks: StreamLocks;
}

/** What the work returns: its own result and the outcome to record. */
export interface RunEnd<T> {
  readonly result: T;
  readonly outcome: RunOutcome;
}

/**
 * Runs `work` as a recorded run (see the module comment). Resolves to the work's result; throws
 * what the work (or taking the locks) threw, after recording the run as failed or interrupted,
 * and throws the LockLostError when the locks were lost meanwhile.
 */
export async function withRecordedRun<T>(
  deps: RecordedRunDeps,
  spec: RunSpec,
  work: (run: RecordedRun) => Promise<RunEnd<T>>,
): Promise<T> {
  const db = deps.warehouse.db;
  const runId = await startRun(db, {
    command: spec.command,
    arguments: spec.arguments,
    host: deps.host,
    pid: deps.pid ?? process.pid,
  });
  let locks: StreamLocks | undefined;
  try {
    await sweepAbandonedRuns(db, { host: deps.host, pid: deps.pid, log: deps.log });
    locks = await acquireStreamLocks(deps.warehouse, spec.locks, {
      timeoutMs: spec.lockTimeoutMs,
      runId,
      sleep: (ms) => (deps.sleep ?? realSleep)(ms, deps.signal),
      heartbeatMs: deps.lockHeartbeatMs,
      log: deps.log,
    });
    const end = await work({ runId, locks });
    if (locks.lost.aborted) throw locks.lost.reason;
    await finishRun(db, runId, end.outcome);
    return end.result;
  } catch (error) {
    const interrupted = deps.signal?.aborted === true;
    await finishRun(db, runId, {
      status: interrupted ? "interrupted" : "failed",
      exitCode: exitCodeFor(error, interrupted),
    }).catch((finishError: unknown) =>
      deps.log.warn({ error: describeError(finishError) }, "could not record the end of the run"),
    );
    throw error;
  } finally {
    await locks?.release();
  }
}
