/**
 * The HTTP side of retrying: `Retry-After`, {@link RetryableError} and {@link RetriesExhaustedError},
 * built on the core loop (src/core/retry.ts) that holds the attempts, backoff and budgets. The functions
 * are pure; `withRetry` takes its side effects (`sleep`, `random`) as parameters so tests run
 * instantly. Waits are summed from the delays asked of `sleep`, so a fake sleep gives exact figures;
 * Retry-After dates are resolved by the caller against its clock (see `parseRetryAfter`).
 */
import { RetryableError, SliceError } from "../core/errors.js";
import type { Sleep } from "../core/ports.js";
import { exponentialBackoff, type RetryLoopPolicy, retryLoop } from "../core/retry.js";

/** Bounds of the retry loop of one request. */
export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  readonly maxAttempts: number;
  /** Upper bound of the first backoff; it doubles on every further attempt. */
  readonly baseDelayMs: number;
  /** Upper bound of one backoff (before jitter). */
  readonly maxDelayMs: number;
  /** A `Retry-After` longer than this is cut to it. */
  readonly maxRetryAfterMs: number;
  /** Sum of all waits of one request; when the next wait would pass it, the request gives up. */
  readonly maxTotalWaitMs: number;
}

/** Defaults: 6 attempts, backoff 0.5 s doubling to 30 s, Retry-After capped at 60 s, 3 min of waiting per request. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
  maxTotalWaitMs: 180_000,
};

/**
 * Full-jitter exponential backoff (AWS architecture blog): a uniform draw in
 * [0, min(maxDelay, base * 2^(retry-1))). `retry` counts from 1; `random` returns [0, 1).
 */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number): number {
  return exponentialBackoff({ firstMs: policy.baseDelayMs, maxMs: policy.maxDelayMs, jitter: "full" })(
    retry,
    random,
  );
}

/**
 * Parses a `Retry-After` header (RFC 9110: delay-seconds or an HTTP date) into milliseconds from `nowMs`.
 * Returns undefined when absent or unparseable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Some servers send fractional seconds; accept them rather than ignore the hint.
  if (/^\d+\.\d+$/.test(text)) return Math.ceil(Number(text) * 1000);
  // Only accept things that look like an HTTP date: Date.parse is lenient with garbage like "5x".
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** How long to wait before retry number `retry`: the server's Retry-After (capped) if it gave one, else backoff. */
export function retryDelayMs(
  retry: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  random: () => number,
): number {
  if (retryAfterMs !== undefined) return cappedRetryAfterMs(retryAfterMs, policy);
  return backoffDelayMs(retry, policy, random);
}

/** A server's Retry-After as waited: never negative, at most `maxRetryAfterMs`. */
function cappedRetryAfterMs(retryAfterMs: number, policy: RetryPolicy): number {
  return Math.min(Math.max(0, retryAfterMs), policy.maxRetryAfterMs);
}

/** What `onRetry` is told before each wait. */
export interface RetryEvent {
  /** The attempt that just failed, from 1. */
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: RetryableError;
  /** Waited so far, this wait excluded. */
  readonly waitedMs: number;
}

/** Side effects and knobs of {@link withRetry}. */
export interface RetryOptions {
  readonly sleep: Sleep;
  readonly random?: () => number;
  readonly policy?: Partial<RetryPolicy>;
  readonly signal?: AbortSignal;
  readonly onRetry?: (event: RetryEvent) => void;
}

/** A request that failed with retryable errors until its attempts or its wait budget ran out: the slice fails. */
export class RetriesExhaustedError extends SliceError {
  readonly attempts: number;
  readonly waitedMs: number;
  constructor(last: RetryableError, attempts: number, waitedMs: number, reason: string) {
    const waited = (waitedMs / 1000).toFixed(1);
    super(
      `${last.message} (gave up after ${attempts} attempt(s), ${waited} s of waiting: ${reason})`,
      last.context,
      {
        cause: last,
      },
    );
    this.attempts = attempts;
    this.waitedMs = waitedMs;
  }
}

/** Merges a partial policy over the defaults and checks it makes sense. */
export function resolveRetryPolicy(partial: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...partial };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError(`retry maxAttempts must be an integer >= 1, got ${policy.maxAttempts}`);
  }
  for (const key of ["baseDelayMs", "maxDelayMs", "maxRetryAfterMs", "maxTotalWaitMs"] as const) {
    if (!(policy[key] >= 0)) throw new RangeError(`retry ${key} must be >= 0, got ${policy[key]}`);
  }
  return policy;
}

/**
 * Runs `fn` until it succeeds, throws something that is not a {@link RetryableError}, or the policy's
 * attempts / total wait run out ({@link RetriesExhaustedError}). `fn` receives the attempt number (from 1).
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const policy = resolveRetryPolicy(options.policy);
  const onRetry = options.onRetry;
  return retryLoop(fn, httpRetryLoopPolicy(policy), {
    sleep: options.sleep,
    random: options.random,
    signal: options.signal,
    ...(onRetry && { onRetry: (event) => onRetry({ ...event, error: event.error as RetryableError }) }),
    giveUp: ({ error, attempts, waitedMs, bound }) =>
      new RetriesExhaustedError(
        error as RetryableError,
        attempts,
        waitedMs,
        bound === "attempts"
          ? `${policy.maxAttempts} attempts allowed`
          : `total wait capped at ${policy.maxTotalWaitMs} ms`,
      ),
  });
}

/**
 * A request's retries in the terms of the core loop: only {@link RetryableError}s, full-jitter
 * backoff, the server's Retry-After (capped) demanded as is, the total wait bounded.
 */
function httpRetryLoopPolicy(policy: RetryPolicy): RetryLoopPolicy {
  return {
    maxAttempts: policy.maxAttempts,
    delayMs: (retry, random) => backoffDelayMs(retry, policy, random),
    retryable: (error) => error instanceof RetryableError,
    maxTotalWaitMs: policy.maxTotalWaitMs,
    demandedDelayMs: (error) => {
      const { retryAfterMs } = error as RetryableError;
      return retryAfterMs === undefined ? undefined : cappedRetryAfterMs(retryAfterMs, policy);
    },
  };
}
