/**
 * The rate budget of one API key, shared by every stream that uses the key: a token bucket
 * (requests per second + burst) and a concurrency limit, at an adaptive rate (`adaptive-rate.ts`)
 * that is cut to just under what the platform accepts when its 429s look like a limit, ignores 429s
 * that look random, and recovers after runs of successes, never above the configured maximum.
 *
 * With a `sharedBucket` (distributed workers, see shared-token-bucket.ts) the tokens come from the
 * key's bucket in the warehouse instead, shared by every process using the key; this budget's cuts
 * and raises are published to it, and a rate another process published is followed. The
 * concurrency limit stays per process: N processes may have N × `concurrency` requests in flight,
 * though never more than one bucket's rate per second between them.
 */
import pLimit, { type LimitFunction } from "p-limit";
import { describeError, EtlError, RetryableError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import type { Clock, Sleep } from "../core/ports.js";
import { AdaptiveRate, type CallStart } from "./adaptive-rate.js";
import type { SharedTokenBucket } from "./shared-token-bucket.js";

/** Knobs of a {@link RateBudget}; only `maxRatePerSecond`, `clock` and `sleep` are required. */
export interface RateBudgetOptions {
  /** The configured maximum rate; the adaptive rate never goes above it. */
  readonly maxRatePerSecond: number;
  /** Tokens the bucket holds when idle (requests that may start back to back). Default 1. */
  readonly burst?: number;
  /** Requests in flight at once for this key. Default 4. */
  readonly concurrency?: number;
  /** Rate to start at. Default `maxRatePerSecond`. */
  readonly initialRatePerSecond?: number;
  /** The rate is never cut below this. Default 0.5 (or the max, if lower). */
  readonly minRatePerSecond?: number;
  /** Smallest increase after a run of successes, in requests/s. Default max(0.1, max/40). */
  readonly increaseStep?: number;
  /** Consecutive successes (of calls sent since the last cut) that earn one increase. Default 5. */
  readonly successesPerIncrease?: number;
  /** Which failures of a scheduled call mean "slow down". Default: an EtlError whose context.status is 429. */
  readonly isThrottle?: (error: unknown) => boolean;
  /**
   * The key's token bucket shared with other processes (in the warehouse); default: a bucket in
   * this process's memory. Concurrency stays a limit of this process either way.
   */
  readonly sharedBucket?: SharedTokenBucket;
  /** Label used in log lines (for example the account name; never the key). */
  readonly label?: string;
  readonly clock: Clock;
  readonly sleep: Sleep;
  readonly log?: Logger;
}

/** Counters of a budget, for logs and run summaries. */
export interface RateBudgetStats {
  readonly currentRate: number;
  readonly maxRate: number;
  readonly scheduled: number;
  readonly succeeded: number;
  readonly throttled: number;
  readonly decreases: number;
  readonly increases: number;
}

/** One object per API key; every request made with that key goes through {@link RateBudget.schedule}. */
export interface RateBudget {
  /** The adaptive rate now, in requests per second. */
  readonly currentRate: number;
  /** The concurrency limit (requests in flight). */
  readonly concurrency: number;
  /** Runs `fn` when a concurrency slot and a token are free; its outcome feeds the adaptive rate. */
  schedule<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Counters so far. */
  stats(): RateBudgetStats;
}

/** True when a failure is the platform asking us to slow down (HTTP 429). */
export function isThrottleError(error: unknown): boolean {
  return error instanceof EtlError && error.context.status === 429;
}

/** Creates the rate budget of one API key. */
export function createRateBudget(options: RateBudgetOptions): RateBudget {
  return new AdaptiveRateBudget(options);
}

/** Token bucket + p-limit + the adaptive rate. Time only through the injected clock and sleep. */
class AdaptiveRateBudget implements RateBudget {
  readonly concurrency: number;
  readonly #maxRate: number;
  readonly #burst: number;
  readonly #isThrottle: (error: unknown) => boolean;
  readonly #limit: LimitFunction;
  readonly #options: RateBudgetOptions;
  readonly #adaptive: AdaptiveRate;
  /** Tokens may go negative: a negative balance is the queue of reservations already handed out. */
  #tokens: number;
  #refilledAt: number;
  /** The rate the bucket was last refilled at (changes apply from the next refill on). */
  #bucketRate: number;
  #scheduled = 0;
  #succeeded = 0;
  #throttled = 0;
  #decreases = 0;
  #increases = 0;
  /** Rate changes of this budget handed to the shared bucket, and how many of them it has applied. */
  #ratesQueued = 0;
  #ratesPublished = 0;
  /** Publishes in order, one at a time: a raise never overtakes the cut before it. */
  #publishing: Promise<void> = Promise.resolve();

  constructor(options: RateBudgetOptions) {
    const max = options.maxRatePerSecond;
    if (!(max > 0) || !Number.isFinite(max)) throw new RangeError(`maxRatePerSecond must be > 0, got ${max}`);
    this.#options = options;
    this.#maxRate = max;
    const min = Math.min(max, options.minRatePerSecond ?? 0.5);
    this.#burst = Math.max(1, options.burst ?? 1);
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
    this.#isThrottle = options.isThrottle ?? isThrottleError;
    this.#adaptive = new AdaptiveRate({
      maxRatePerSecond: max,
      minRatePerSecond: min,
      initialRatePerSecond: clamp(options.initialRatePerSecond ?? max, min, max),
      successesPerIncrease: Math.max(1, Math.floor(options.successesPerIncrease ?? 5)),
      increaseStep: options.increaseStep ?? Math.max(0.1, max / 40),
    });
    this.#bucketRate = this.#adaptive.rate;
    this.#tokens = this.#burst;
    this.#refilledAt = options.clock.now();
    this.#limit = pLimit(this.concurrency);
  }

  get currentRate(): number {
    return this.#adaptive.rate;
  }

  schedule<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    this.#scheduled++;
    return this.#limit(async () => {
      signal?.throwIfAborted();
      const shared = this.#options.sharedBucket;
      const waitMs = shared === undefined ? this.#reserve() : await this.#reserveShared(shared);
      if (waitMs > 0) await this.#options.sleep(waitMs, signal);
      const start = this.#adaptive.start();
      try {
        const result = await fn();
        this.#onSuccess(start);
        return result;
      } catch (error) {
        if (this.#isThrottle(error)) this.#onThrottle(start);
        throw error;
      }
    });
  }

  stats(): RateBudgetStats {
    return {
      currentRate: this.#adaptive.rate,
      maxRate: this.#maxRate,
      scheduled: this.#scheduled,
      succeeded: this.#succeeded,
      throttled: this.#throttled,
      decreases: this.#decreases,
      increases: this.#increases,
    };
  }

  /** Takes one token and returns how long to wait until it is really ours (0 when one was in the bucket). */
  #reserve(): number {
    this.#refill();
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens / this.#bucketRate) * 1000);
  }

  /**
   * Takes a token of the shared bucket (a RetryableError when it cannot be read). Follows the rate
   * found there unless a change of our own was on its way meanwhile: the bucket's answer may
   * predate it, and would undo it.
   */
  async #reserveShared(shared: SharedTokenBucket): Promise<number> {
    const queued = this.#ratesQueued;
    const settled = queued === this.#ratesPublished;
    let waitMs: number;
    try {
      waitMs = await shared.take();
    } catch (error) {
      // The warehouse is away for a moment: worth another attempt, after the retry policy's backoff.
      throw new RetryableError(
        `rate budget: the key's shared token bucket could not be read: ${describeError(error)}`,
        {},
        { cause: error },
      );
    }
    const rate = shared.sharedRate;
    if (settled && queued === this.#ratesQueued && rate !== undefined) {
      if (this.#adaptive.follow(rate, this.#options.clock.now())) this.#bucketRate = this.#adaptive.rate;
    }
    return waitMs;
  }

  /** Hands a change of the adaptive rate to the shared bucket (a raise from `from`, or a cut). */
  #publish(from: number): void {
    const shared = this.#options.sharedBucket;
    if (shared === undefined) return;
    const rate = this.#adaptive.rate;
    this.#ratesQueued++;
    this.#publishing = this.#publishing
      .then(() => shared.publishRate(rate, from))
      .catch((error: unknown) => {
        this.#options.log?.warn(
          { budget: this.#options.label, rate: round(rate), error: describeError(error) },
          "rate budget: could not publish the rate to the shared bucket (the next change tries again)",
        );
      })
      .finally(() => {
        this.#ratesPublished++;
      });
  }

  #refill(): void {
    const now = this.#options.clock.now();
    const elapsed = Math.max(0, now - this.#refilledAt);
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsed / 1000) * this.#bucketRate);
    this.#refilledAt = now;
    this.#bucketRate = this.#adaptive.rate;
  }

  #onSuccess(start: CallStart): void {
    this.#succeeded++;
    this.#refill();
    const from = this.#adaptive.rate;
    if (!this.#adaptive.succeeded(start, this.#options.clock.now())) return;
    this.#bucketRate = this.#adaptive.rate;
    this.#increases++;
    this.#publish(from);
    this.#options.log?.debug(
      { budget: this.#options.label, rate: round(this.#adaptive.rate) },
      "rate budget: raised rate",
    );
  }

  #onThrottle(start: CallStart): void {
    this.#throttled++;
    this.#refill();
    const now = this.#options.clock.now();
    const verdict = this.#adaptive.throttled(start, now);
    if (verdict !== "limit") {
      if (verdict === "isolated") {
        this.#options.log?.debug(
          { budget: this.#options.label, rate: round(this.#adaptive.rate) },
          "rate budget: platform answered 429 (isolated, rate kept)",
        );
      }
      return;
    }
    this.#bucketRate = this.#adaptive.rate;
    // Saved-up burst would defeat the cut: the next request waits a full interval of the new rate.
    this.#tokens = Math.min(this.#tokens, 0);
    this.#decreases++;
    this.#publish(start.rate);
    this.#options.log?.info(
      {
        budget: this.#options.label,
        rate: round(this.#adaptive.rate),
        refusedAt: round(start.rate),
        limit: round(this.#adaptive.ceiling ?? start.rate),
      },
      "rate budget: 429s look like a limit, rate cut to just under what the platform accepted",
    );
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
