/**
 * The rate budget of one API key, shared by every stream that uses the key: a token bucket
 * (requests per second + burst) and a concurrency limit, with an adaptive rate (AIMD) that backs off
 * when the platform answers 429 and creeps back up after runs of successes. 429s that do not follow
 * our rate (a platform that also refuses at random) are told apart and do not lower the learnt limit.
 */
import pLimit, { type LimitFunction } from "p-limit";
import { EtlError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Clock, Sleep } from "../ports.js";
import { ThrottleEvidence } from "./throttle-evidence.js";

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
  /** Multiplicative decrease on a 429 when no limit is known yet (or it moved down). Default 0.5. */
  readonly decreaseFactor?: number;
  /** Multiplicative decrease on a 429 near the rate of the previous 429 (a limit already found). Default 0.9. */
  readonly nearLimitDecreaseFactor?: number;
  /** Additive increase after a run of successes, in requests/s. Default max(0.1, max/40); 1% of a known limit at most. */
  readonly increaseStep?: number;
  /** Consecutive successes that earn one increase. Default 10. */
  readonly successesPerIncrease?: number;
  /** Which failures of a scheduled call mean "slow down". Default: an EtlError whose context.status is 429. */
  readonly isThrottle?: (error: unknown) => boolean;
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

/** After a 429, increases close in fast up to this fraction of the refused rate. */
const RECOVERY_TARGET = 0.95;
/** Beyond that, each increase adds at most this fraction of the refused rate. */
const PROBE_STEP = 0.01;
/** A 429 at or above this fraction of the previous refused rate counts as the same limit. */
const NEAR_LIMIT = 0.8;
/** Successes are counted over this window to estimate the rate the platform accepts. */
const ACCEPTED_WINDOW_MS = 2_000;
/** When refused often before a whole window has passed, the accepted rate is measured from the first 429 once this long. */
const MIN_ACCEPTED_SPAN_MS = 500;
/** On a 429 the rate goes no higher than this fraction of the accepted rate (when measurable). */
const BELOW_ACCEPTED = 0.95;

/** True when a failure is the platform asking us to slow down (HTTP 429). */
export function isThrottleError(error: unknown): boolean {
  return error instanceof EtlError && error.context.status === 429;
}

/** Creates the rate budget of one API key. */
export function createRateBudget(options: RateBudgetOptions): RateBudget {
  return new AdaptiveRateBudget(options);
}

/** Token bucket + p-limit + AIMD. Time only through the injected clock and sleep. */
class AdaptiveRateBudget implements RateBudget {
  readonly concurrency: number;
  readonly #maxRate: number;
  readonly #minRate: number;
  readonly #burst: number;
  readonly #decreaseFactor: number;
  readonly #nearLimitDecreaseFactor: number;
  readonly #increaseStep: number;
  readonly #successesPerIncrease: number;
  readonly #isThrottle: (error: unknown) => boolean;
  readonly #limit: LimitFunction;
  readonly #options: RateBudgetOptions;
  #rate: number;
  /** Tokens may go negative: a negative balance is the queue of reservations already handed out. */
  #tokens: number;
  #refilledAt: number;
  /** Bumped on every decrease; 429s of calls started in an older epoch do not cut again. */
  #epoch = 0;
  /** Limit learnt from the last 429 taken for one; increases are quick up to just below it and cautious beyond. */
  #ceiling: number | undefined;
  /** Increases in a row above the refused rate. */
  #beyondCeiling = 0;
  /** Rate before the cut for a 429 taken for noise: the next increase goes straight back to it. */
  #restoreTo: number | undefined;
  /** Tells 429s at random from 429s for a limit. */
  readonly #evidence = new ThrottleEvidence();
  #successRun = 0;
  /** Times of recent successes (oldest first), for the accepted-rate estimate. */
  #successTimes: number[] = [];
  #startedAt: number;
  /** Time of the first 429, from which the accepted rate is measured during the first window. */
  #firstThrottleAt: number | undefined;
  #scheduled = 0;
  #succeeded = 0;
  #throttled = 0;
  #decreases = 0;
  #increases = 0;

  constructor(options: RateBudgetOptions) {
    const max = options.maxRatePerSecond;
    if (!(max > 0) || !Number.isFinite(max)) throw new RangeError(`maxRatePerSecond must be > 0, got ${max}`);
    this.#options = options;
    this.#maxRate = max;
    this.#minRate = Math.min(max, options.minRatePerSecond ?? 0.5);
    this.#burst = Math.max(1, options.burst ?? 1);
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
    this.#decreaseFactor = factor("decreaseFactor", options.decreaseFactor ?? 0.5);
    this.#nearLimitDecreaseFactor = factor("nearLimitDecreaseFactor", options.nearLimitDecreaseFactor ?? 0.9);
    this.#increaseStep = options.increaseStep ?? Math.max(0.1, max / 40);
    this.#successesPerIncrease = Math.max(1, Math.floor(options.successesPerIncrease ?? 10));
    this.#isThrottle = options.isThrottle ?? isThrottleError;
    this.#rate = clamp(options.initialRatePerSecond ?? max, this.#minRate, max);
    this.#tokens = this.#burst;
    this.#refilledAt = options.clock.now();
    this.#startedAt = this.#refilledAt;
    this.#limit = pLimit(this.concurrency);
  }

  get currentRate(): number {
    return this.#rate;
  }

  schedule<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    this.#scheduled++;
    return this.#limit(async () => {
      signal?.throwIfAborted();
      const waitMs = this.#reserve();
      if (waitMs > 0) await this.#options.sleep(waitMs, signal);
      const epoch = this.#epoch;
      const calm = this.#evidence.isCalm(this.#options.clock.now(), this.#rate);
      try {
        const result = await fn();
        this.#onSuccess(epoch, calm);
        return result;
      } catch (error) {
        if (this.#isThrottle(error)) this.#onThrottle(epoch, calm);
        throw error;
      }
    });
  }

  stats(): RateBudgetStats {
    return {
      currentRate: this.#rate,
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
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens / this.#rate) * 1000);
  }

  #refill(): void {
    const now = this.#options.clock.now();
    const elapsed = Math.max(0, now - this.#refilledAt);
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsed / 1000) * this.#rate);
    this.#refilledAt = now;
  }

  /**
   * Requests/s that succeeded over the last window: what the platform actually accepts while it
   * throttles us. Undefined until a whole window has passed (too little evidence), unless `early`:
   * then, before that, the successes since the first 429 once that span is long enough (a burst the
   * platform allows at first is spent by then, and would inflate the figure).
   */
  #acceptedRate(early = false): number | undefined {
    const now = this.#options.clock.now();
    let since = now - ACCEPTED_WINDOW_MS;
    if (now - this.#startedAt < ACCEPTED_WINDOW_MS) {
      const first = this.#firstThrottleAt;
      if (!early || first === undefined || now - first < MIN_ACCEPTED_SPAN_MS) return undefined;
      since = first;
    }
    const recent = this.#successTimes.filter((t) => t > since).length;
    return recent > 0 ? recent / ((now - since) / 1000) : undefined;
  }

  #onSuccess(epoch: number, calm: boolean): void {
    this.#succeeded++;
    this.#evidence.record(true, calm);
    this.#successTimes.push(this.#options.clock.now());
    if (this.#successTimes.length > 4096) this.#successTimes.splice(0, 2048);
    if (epoch !== this.#epoch) return;
    this.#successRun++;
    if (this.#successRun < this.#successesPerIncrease || this.#rate >= this.#maxRate) return;
    this.#successRun = 0;
    const ceiling = this.#ceiling;
    let step = this.#increaseStep;
    if (ceiling !== undefined) {
      // Close half the gap to just below the last refused rate at once, then probe by 1% steps; past
      // the refused rate itself the limit was underestimated (or has risen): double the step each time.
      const target = ceiling * RECOVERY_TARGET;
      const probe = Math.min(this.#increaseStep, ceiling * PROBE_STEP);
      if (this.#rate < target) step = Math.max(probe, (target - this.#rate) / 2);
      else if (this.#rate < ceiling) step = probe;
      else step = Math.min(this.#increaseStep, probe * 2 ** ++this.#beyondCeiling);
    }
    // After a cut for a 429 taken for noise, one run of successes earns the whole cut back.
    const restoreTo = this.#restoreTo ?? 0;
    this.#restoreTo = undefined;
    this.#setRate(Math.min(this.#maxRate, Math.max(restoreTo, this.#rate + step)));
    this.#increases++;
    this.#options.log?.debug(
      { budget: this.#options.label, rate: round(this.#rate) },
      "rate budget: raised rate",
    );
  }

  #onThrottle(epoch: number, calm: boolean): void {
    this.#throttled++;
    this.#successRun = 0;
    this.#evidence.record(false, calm);
    this.#firstThrottleAt ??= this.#options.clock.now();
    if (epoch !== this.#epoch) return;
    this.#epoch++;
    const refusedAt = this.#rate;
    if (this.#evidence.looksRandom()) {
      // Random 429s say nothing of the limit: lowering the remembered limit on each of them is what
      // ratcheted the rate down to its floor. Cut gently (in case) and take the cut back after one
      // run of successes; the limit stays, and the rate may probe beyond it as usual.
      this.#restoreTo = Math.max(this.#restoreTo ?? 0, refusedAt);
      this.#setRate(Math.max(this.#minRate, refusedAt * this.#nearLimitDecreaseFactor));
      this.#decreases++;
      this.#options.log?.debug(
        { budget: this.#options.label, rate: round(this.#rate), refusedAt: round(refusedAt) },
        "rate budget: platform answered 429 (looks random), rate cut for a while",
      );
      return;
    }
    this.#restoreTo = undefined;
    // Many 429s lately: the limit has moved down, and the calm 429s were that move, not noise.
    const manyRefused = this.#evidence.manyRefused();
    if (manyRefused) this.#evidence.forgetCalm();
    // Refused again near the last refused rate: the limit is known, a gentle cut keeps most of the throughput.
    // Refused far below it (or for the first time), or often lately (we are well over the limit, which
    // moved or was overestimated, for example from the platform's burst at the start): cut hard.
    const nearKnownLimit = this.#ceiling !== undefined && refusedAt >= this.#ceiling * NEAR_LIMIT;
    const cut = nearKnownLimit && !manyRefused ? this.#nearLimitDecreaseFactor : this.#decreaseFactor;
    // A gentle cut can still sit above the real limit when the refused rate overshot it: never stay
    // above what the platform was seen to accept just now, and recover towards that, not the overshoot.
    // Refused often at the start, before a whole window: a limit taken from the refused rate alone
    // would be far too high (and recovery fast towards it), so count the successes since the first 429.
    const accepted = this.#acceptedRate(manyRefused);
    this.#ceiling = accepted === undefined ? refusedAt : Math.min(refusedAt, accepted);
    this.#beyondCeiling = 0;
    const next =
      accepted === undefined ? refusedAt * cut : Math.min(refusedAt * cut, accepted * BELOW_ACCEPTED);
    this.#setRate(Math.max(this.#minRate, next));
    const now = this.#options.clock.now();
    // Only once the accepted rate was measurable over a whole window is the limit trusted for calm calls.
    if (accepted !== undefined && now - this.#startedAt >= ACCEPTED_WINDOW_MS) {
      this.#evidence.limitFound(this.#ceiling * RECOVERY_TARGET, now);
    }
    // Saved-up burst would defeat the cut: the next request waits a full interval of the new rate.
    this.#tokens = Math.min(this.#tokens, 0);
    this.#decreases++;
    this.#options.log?.info(
      { budget: this.#options.label, rate: round(this.#rate), refusedAt: round(refusedAt) },
      "rate budget: platform answered 429, rate cut",
    );
  }

  #setRate(rate: number): void {
    this.#refill();
    this.#rate = rate;
  }
}

function factor(name: string, value: number): number {
  if (!(value > 0 && value < 1)) throw new RangeError(`${name} must be in (0, 1), got ${value}`);
  return value;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
