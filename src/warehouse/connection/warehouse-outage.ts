/**
 * Riding out a warehouse outage (a restart, a failover, a cut network path) in a process that only
 * reads and records, such as the distributed coordinator: a step whose connection is lost, or that
 * cannot connect, is tried again until the warehouse answers, within a bound. The in-process load
 * does the same per window (load-slice.ts) and per lock session (lock-session.ts).
 */
import { describeError, EtlError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import { type Clock, realSleep, type Sleep, systemClock } from "../../core/ports.js";
import { exponentialBackoff, type RetryLoopPolicy, retryLoop } from "../../core/retry.js";
import { isConnectionLoss } from "./connection-loss.js";

/** Longest a warehouse outage is ridden out: a restart or a managed failover (seconds to 2 minutes) fits. */
export const WAREHOUSE_OUTAGE_LIMIT_MS = 300_000;

/** Error codes of a connection that cannot be made (the server down or restarting) or was cut. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH"]);

/**
 * True when `error` says the warehouse is not reachable now (the connection lost, refused, timed
 * out while connecting, the server starting up or shutting down), not that the statement was wrong.
 */
export function isWarehouseUnreachable(error: unknown): boolean {
  if (isConnectionLoss(error, { lost: false })) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return true;
  const inner = (error as { errors?: unknown } | null)?.errors;
  if (Array.isArray(inner) && inner.some(isWarehouseUnreachable)) return true;
  return /ECONNREFUSED|timeout exceeded when trying to connect|Connection terminated|the database system is (starting up|shutting down|in recovery mode)/i.test(
    describeError(error),
  );
}

/** What riding out an outage needs: a logger, and the clock and sleep tests may replace. */
export interface OutageOptions {
  readonly log: Logger;
  readonly clock?: Clock;
  readonly sleep?: Sleep;
  /** Default {@link WAREHOUSE_OUTAGE_LIMIT_MS}. */
  readonly limitMs?: number;
}

/**
 * Retries of a step while the warehouse is unreachable: 250 ms doubling to 5 s, no jitter, for as
 * long as {@link WAREHOUSE_OUTAGE_LIMIT_MS} (from the first failure, on the clock) allows.
 */
const WAREHOUSE_OUTAGE_RETRY: RetryLoopPolicy = {
  maxAttempts: Number.POSITIVE_INFINITY,
  delayMs: exponentialBackoff({ firstMs: 250, maxMs: 5_000, jitter: "none" }),
  retryable: isWarehouseUnreachable,
  maxElapsedMs: WAREHOUSE_OUTAGE_LIMIT_MS,
};

/**
 * Runs `step` (`what` it does, for the log); while it fails because the warehouse is unreachable,
 * waits (250 ms, doubling, at most 5 s) and runs it again, one warning when the outage starts and
 * one line when the warehouse answers again. An outage longer than the limit throws an EtlError
 * (exit 1) naming it. `step` must be safe to run again (a read, or a write that is idempotent).
 */
export async function acrossOutage<T>(
  what: string,
  step: () => Promise<T>,
  options: OutageOptions,
): Promise<T> {
  const clock = options.clock ?? systemClock;
  let since: number | undefined;
  const result = await retryLoop(
    step,
    { ...WAREHOUSE_OUTAGE_RETRY, maxElapsedMs: options.limitMs ?? WAREHOUSE_OUTAGE_LIMIT_MS },
    {
      clock,
      sleep: options.sleep ?? realSleep,
      onRetry: ({ attempt, error }) => {
        if (attempt > 1) return;
        since = clock.now();
        options.log.warn(
          { what, error: describeError(error) },
          "the warehouse connection was lost; trying again until it answers",
        );
      },
      giveUp: ({ error, elapsedMs }) =>
        new EtlError(
          `the warehouse has not answered for ${Math.round(elapsedMs / 1000)} s (${what}): ${describeError(error)}; check that it is up and reachable from this machine`,
          {},
          { cause: error },
        ),
    },
  );
  if (since !== undefined)
    options.log.info(
      { what, outageSeconds: Math.round((clock.now() - since) / 1000) },
      "the warehouse answers again",
    );
  return result;
}
