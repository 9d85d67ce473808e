/**
 * The adaptive rate of one budget: how fast to send, given what the platform answered. A 429 only
 * lowers the rate when it is consistent with a limit: several 429s cluster in the sliding window, or
 * the call was sent above the rate a limit was last found at. The cut goes to just under the rate
 * the platform was measured to accept, not blindly by half; an isolated 429 (a platform that also
 * refuses at random) costs its retry and nothing else. After a cut the rate recovers quickly to just
 * under the limit found, then probes beyond it once in a while, in growing steps. Pure: time comes in as values.
 */
import { ThrottleWindow } from "./throttle-window.js";

/** A cut goes to this fraction of the accepted rate; recovery aims at this fraction of the limit found. */
const BELOW_LIMIT = 0.95;
/** Beyond the recovery target, one probe (a step up) at most this often. */
const PROBE_EVERY_MS = 2_000;
/** The first probe adds this fraction of the limit found; each further one in a row twice the last. */
const PROBE_STEP = 0.02;
/** After a change of rate, a 429 of a call sent under the limit found counts as random only this much later. */
const CALM_AFTER_MS = 1_000;
/** This many such 429s show that the platform refuses at random. */
const CALM_REFUSALS_FOR_NOISE = 2;
/** A lone 429 beyond the limit found lowers that limit to no less than this fraction of it. */
const BEYOND_LIMIT_CUT = 0.97;
/** One cut never takes more than this fraction of the rate away (an estimate can be wrong). */
const MAX_CUT = 0.5;

/** Knobs of an {@link AdaptiveRate}. */
export interface AdaptiveRateOptions {
  readonly maxRatePerSecond: number;
  readonly minRatePerSecond: number;
  readonly initialRatePerSecond: number;
  /** Successes in a row (of calls sent since the last cut) that earn one increase. */
  readonly successesPerIncrease: number;
  /** Smallest increase, in requests/s. */
  readonly increaseStep: number;
}

/** What a call carried when it was sent: the rate and the cut epoch then. */
export interface CallStart {
  readonly epoch: number;
  readonly rate: number;
}

/** What a 429 did: nothing to the rate (`isolated`, or `stale`: sent before the last cut), or a cut. */
export type ThrottleVerdict = "isolated" | "stale" | "limit";

/** The rate controller of one budget. */
export class AdaptiveRate {
  readonly #options: AdaptiveRateOptions;
  readonly #window = new ThrottleWindow();
  #rate: number;
  /** Bumped on every cut; outcomes of calls sent before it say nothing about the new rate. */
  #epoch = 0;
  /** The accepted rate when a limit was last found. */
  #ceiling: number | undefined;
  /** The limit found was measured (not guessed as half the rate, for want of a second of outcomes). */
  #measured = false;
  /** Probes beyond the limit found since the last cut. */
  #probes = 0;
  /** 429s of calls sent well under the limit found, once the platform had had time to recover. */
  #calmRefusals = 0;
  #successRun = 0;
  #lastChangeAt = Number.NEGATIVE_INFINITY;
  #lastCutAt = Number.NEGATIVE_INFINITY;

  constructor(options: AdaptiveRateOptions) {
    this.#options = options;
    this.#rate = options.initialRatePerSecond;
  }

  /** The rate now, in requests/s. */
  get rate(): number {
    return this.#rate;
  }

  /** The limit found (the platform's accepted rate at the last cut), if any. */
  get ceiling(): number | undefined {
    return this.#ceiling;
  }

  /** True for a 429 long enough after the last cut for a limit's bucket to have refilled. */
  #calm(now: number): boolean {
    return now - this.#lastCutAt >= CALM_AFTER_MS;
  }

  /** What a call sent now carries. */
  start(): CallStart {
    return { epoch: this.#epoch, rate: this.#rate };
  }

  /** A call sent with `start` succeeded at `now`; returns true when that raised the rate. */
  succeeded(start: CallStart, now: number): boolean {
    this.#window.record(true, now);
    if (start.epoch !== this.#epoch) return false;
    if (++this.#successRun < this.#options.successesPerIncrease) return false;
    this.#successRun = 0;
    const { maxRatePerSecond: max, increaseStep } = this.#options;
    if (this.#rate >= max) return false;
    const ceiling = this.#ceiling;
    const target = ceiling === undefined ? max : Math.min(max, ceiling * BELOW_LIMIT);
    if (this.#rate < target) {
      // Quick recovery: half the gap to the target at once (the target is known to be accepted).
      this.#rate = Math.min(target, this.#rate + Math.max(increaseStep, (target - this.#rate) / 2));
    } else {
      // At the limit found: a step beyond it now and then, doubling while no 429 says it is the
      // limit still (it has risen, or the cut was for noise after all).
      if (now - this.#lastChangeAt < PROBE_EVERY_MS) return false;
      const step = (ceiling ?? max) * PROBE_STEP * 2 ** this.#probes++;
      this.#rate = Math.min(max, this.#rate + Math.max(increaseStep / 4, step));
    }
    this.#lastChangeAt = now;
    return true;
  }

  /**
   * Another process sharing the key set the shared rate to `rate` (see shared-token-bucket.ts):
   * adopt it, within this budget's bounds; returns true when that changed the rate. A lower rate
   * is taken as that process's cut: calls sent before it say nothing of the new rate, and recovery
   * aims no higher than it (beyond it only by probes), as after a cut of our own.
   */
  follow(rate: number, now: number): boolean {
    const { minRatePerSecond: min, maxRatePerSecond: max } = this.#options;
    const adopted = Math.min(max, Math.max(min, rate));
    if (Math.abs(adopted - this.#rate) <= adopted * 1e-9) return false;
    if (adopted < this.#rate) {
      this.#ceiling = Math.min(this.#ceiling ?? Number.POSITIVE_INFINITY, adopted / BELOW_LIMIT);
      this.#probes = 0;
      this.#epoch++;
      this.#window.forgetRefusals();
      this.#successRun = 0;
      this.#lastCutAt = now;
    }
    this.#rate = adopted;
    this.#lastChangeAt = now;
    return true;
  }

  /** A call sent with `start` was answered 429 at `now`: cuts the rate only if that looks like a limit. */
  throttled(start: CallStart, now: number): ThrottleVerdict {
    if (start.epoch !== this.#epoch) return "stale";
    this.#window.record(false, now);
    const ceiling = this.#ceiling;
    // Only under a measured limit: under a guessed one, the next cluster is the way to measure it.
    const underLimit = this.#measured && ceiling !== undefined && start.rate <= ceiling * BELOW_LIMIT;
    const cluster = this.#window.looksLikeLimit(now, underLimit);
    if (!cluster && underLimit && this.#calm(now)) this.#calmRefusals++;
    // Sent above the limit found: our doing, unless the platform was seen refusing calls well under
    // it too (it refuses at random, so a lone 429 while probing says nothing; clusters still do).
    const beyondLimit =
      ceiling !== undefined && start.rate > ceiling && this.#calmRefusals < CALM_REFUSALS_FOR_NOISE;
    if (!cluster && !beyondLimit) return "isolated";
    const measured = this.#window.acceptedRate(now);
    const accepted = measured ?? start.rate * MAX_CUT;
    let limit = Math.min(start.rate, Math.max(start.rate * MAX_CUT, accepted));
    // A lone 429 beyond the limit found lowers it a little at most: what the platform accepts is a
    // little under what we send whenever it also refuses at random, and would ratchet it down.
    if (!cluster && ceiling !== undefined) limit = Math.max(limit, ceiling * BEYOND_LIMIT_CUT);
    // A cluster means the limit is where the platform says (it may have moved): the 429s seen under
    // the old one were that move, not noise.
    if (cluster) this.#calmRefusals = 0;
    this.#ceiling = limit;
    this.#measured = measured !== undefined || (!cluster && this.#measured);
    this.#probes = 0;
    const { minRatePerSecond: min, maxRatePerSecond: max } = this.#options;
    this.#rate = Math.min(max, Math.max(min, Math.min(start.rate, limit) * BELOW_LIMIT));
    this.#epoch++;
    this.#window.forgetRefusals();
    this.#successRun = 0;
    this.#lastChangeAt = now;
    this.#lastCutAt = now;
    return "limit";
  }
}
