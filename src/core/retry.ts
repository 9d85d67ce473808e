/**
 * The one retry loop of the loader. Each place that tries something again declares a
 * {@link RetryLoopPolicy} next to itself (how many attempts, which waits, which failures are worth
 * another attempt, the budgets) and runs it through {@link retryLoop}; what a site does when it gives
 * up, and what it logs, stay at the site. Side effects (`sleep`, `random`, `clock`) are parameters,
 * so tests run without waiting. Waits are summed from the delays asked of `sleep`, so a fake sleep
 * gives exact figures. The HTTP layer builds its Retry-After handling on it (api/retry-policy.ts).
 */
import { type Clock, realSleep, type Sleep, systemClock } from "./ports.js";

/** The wait before retry number `retry` (counted from 1); `random` returns [0, 1). */
export type RetryDelay = (retry: number, random: () => number) => number;

/**
 * Exponential backoff: `firstMs` doubling on every further retry, at most `maxMs`. With `jitter:
 * "full"` (AWS architecture blog) the wait is a uniform draw in [0, that bound); with `"none"` it
 * is the bound itself.
 */
export function exponentialBackoff(options: {
  readonly firstMs: number;
  readonly maxMs: number;
  readonly jitter: "full" | "none";
}): RetryDelay {
  return (retry, random) => {
    const exponent = Math.min(Math.max(0, retry - 1), 52);
    const ceiling = Math.min(options.maxMs, options.firstMs * 2 ** exponent);
    return options.jitter === "full" ? Math.floor(random() * ceiling) : ceiling;
  };
}

/** Linear backoff without jitter: `stepMs` times the retry number, at most `maxMs`. */
export function linearBackoff(options: { readonly stepMs: number; readonly maxMs?: number }): RetryDelay {
  return (retry) => Math.min(options.stepMs * retry, options.maxMs ?? Number.POSITIVE_INFINITY);
}

/** The same wait before every retry (0: at once). */
export function fixedDelay(ms: number): RetryDelay {
  return () => ms;
}

/** What one retry site allows. */
export interface RetryLoopPolicy {
  /** Attempts in all, the first one included; `Infinity` retries until a budget or the signal stops it. */
  readonly maxAttempts: number;
  /** The wait before each retry. */
  readonly delayMs: RetryDelay;
  /** Whether a failure is worth another attempt; any other error passes through at once, unchanged. */
  readonly retryable: (error: unknown) => boolean;
  /**
   * Sum of all waits (default unbounded): a backoff that would pass it is shortened to what is left;
   * with nothing left, or a demanded wait that does not fit, the loop gives up.
   */
  readonly maxTotalWaitMs?: number;
  /**
   * Longest time, on the clock, from the first failure to a failure after which the loop gives up
   * (default unbounded). Unlike `maxTotalWaitMs` it counts the attempts' own time as well.
   */
  readonly maxElapsedMs?: number;
  /**
   * A wait the failure itself asks for (a server's Retry-After): used instead of `delayMs`, and never
   * shortened to fit the total-wait budget (retrying sooner would only be refused again).
   */
  readonly demandedDelayMs?: (error: unknown) => number | undefined;
}

/** What `onRetry` is told before each wait. */
export interface RetryLoopEvent {
  /** The attempt that just failed, from 1. */
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: unknown;
  /** Waited so far, this wait excluded. */
  readonly waitedMs: number;
}

/** Which bound ended the retries: the attempts, the total-wait budget or the elapsed-time budget. */
export type RetryBound = "attempts" | "total-wait" | "elapsed";

/** The last failure of a loop that gives up, as `giveUp` is told it. */
export interface RetriesExhausted {
  readonly error: unknown;
  /** Attempts made, the last one included. */
  readonly attempts: number;
  readonly waitedMs: number;
  /** Time on the clock since the first failure. */
  readonly elapsedMs: number;
  readonly bound: RetryBound;
}

/** Side effects and hooks of {@link retryLoop}. */
export interface RetryLoopOptions {
  /** Default: a real timer. */
  readonly sleep?: Sleep;
  readonly random?: () => number;
  /** Measures `maxElapsedMs`; default the wall clock. */
  readonly clock?: Clock;
  /** Checked before every attempt and after every failure: an abort throws its reason. */
  readonly signal?: AbortSignal | undefined;
  /** Told before each wait (a retryable failure that will be tried again). */
  readonly onRetry?: (event: RetryLoopEvent) => void;
  /** The error to throw when the retries run out (default: the last failure itself). */
  readonly giveUp?: (exhausted: RetriesExhausted) => unknown;
}

/**
 * Runs `attempt` (given its number, from 1) until it succeeds, throws an error the policy does not
 * call retryable (thrown as is), or a bound of the policy runs out (then what `giveUp` returns is
 * thrown). Between attempts it waits as the policy says.
 */
export async function retryLoop<T>(
  attempt: (attempt: number) => Promise<T>,
  policy: RetryLoopPolicy,
  options: RetryLoopOptions = {},
): Promise<T> {
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const clock = options.clock ?? systemClock;
  const giveUp = options.giveUp ?? ((exhausted: RetriesExhausted) => exhausted.error);
  let waitedMs = 0;
  let firstFailureAt: number | undefined;
  for (let number = 1; ; number++) {
    options.signal?.throwIfAborted();
    try {
      return await attempt(number);
    } catch (error) {
      if (!policy.retryable(error)) throw error;
      if (options.signal?.aborted) throw options.signal.reason;
      firstFailureAt ??= clock.now();
      const failure = { error, attempts: number, waitedMs, elapsedMs: clock.now() - firstFailureAt };
      const wait = nextWait(policy, failure, random);
      if (typeof wait === "string") throw giveUp({ ...failure, bound: wait });
      options.onRetry?.({ attempt: number, delayMs: wait, error, waitedMs });
      await sleep(wait, options.signal);
      waitedMs += wait;
    }
  }
}

/** The wait before the next attempt after `failure`, or the bound that forbids one. */
function nextWait(
  policy: RetryLoopPolicy,
  failure: Omit<RetriesExhausted, "bound">,
  random: () => number,
): number | RetryBound {
  if (failure.attempts >= policy.maxAttempts) return "attempts";
  if (failure.elapsedMs > (policy.maxElapsedMs ?? Number.POSITIVE_INFINITY)) return "elapsed";
  const remaining = (policy.maxTotalWaitMs ?? Number.POSITIVE_INFINITY) - failure.waitedMs;
  const demanded = policy.demandedDelayMs?.(failure.error);
  const delayMs = demanded ?? policy.delayMs(failure.attempts, random);
  if (delayMs <= remaining) return delayMs;
  return demanded !== undefined || remaining <= 0 ? "total-wait" : remaining;
}
