/**
 * The evidence a rate budget keeps to tell a 429 at random (a platform that also refuses whatever
 * our rate) from a 429 for a real limit: the latest outcomes, and the outcomes of "calm" calls, started
 * well under a limit already found, which a real limit does not refuse. Pure: time comes in as values.
 */

/**
 * After a 429 taken for a limit, calls are "calm" once this long has passed (the platform's own bucket,
 * drained by our overshoot, has refilled) while the rate is still at most the recovery target: a real
 * limit does not refuse them. Shorter waits let the tail of the overshoot count as calm refusals.
 */
const CALM_AFTER_MS = 1_000;
/** Calm outcomes kept; one 429 among them shows that the platform (also) refuses at random. */
const CALM_OUTCOMES = 200;
/** The latest outcomes kept (calm or not), and how many are needed before their share is trusted. */
const RECENT_OUTCOMES = 100;
const MIN_RECENT_OUTCOMES = 20;
/**
 * Above this share of 429s among the latest outcomes we are over a limit, random 429s or not (11 or
 * more of 100 when 3% are refused at random is a 0.1% event).
 */
const LIMIT_SHARE = 0.1;

/** Outcomes of one budget's calls, and whether its 429s look random or like a limit. */
export class ThrottleEvidence {
  /**
   * Set once a limit was found (see {@link ThrottleEvidence.limitFound}): calls started from `from`
   * at a rate of at most `rate` are calm.
   */
  #calmBelow: { rate: number; from: number } | undefined;
  /** Latest outcomes (true: success, false: 429), oldest first. */
  #recent: boolean[] = [];
  /** Latest outcomes of calm calls (started well under the known limit), oldest first. */
  #calm: boolean[] = [];

  /** True when a call starting at `now` at `rate` requests/s is well under the known limit, which should not refuse it. */
  isCalm(now: number, rate: number): boolean {
    const calm = this.#calmBelow;
    return calm !== undefined && now >= calm.from && rate <= calm.rate;
  }

  /** Records the outcome of a call (`ok` false: a 429); `calm` is what {@link ThrottleEvidence.isCalm} said when it started. */
  record(ok: boolean, calm: boolean): void {
    push(this.#recent, ok, RECENT_OUTCOMES);
    if (calm) push(this.#calm, ok, CALM_OUTCOMES);
  }

  /**
   * True when a 429 is better taken for noise than for a limit: a calm call was refused lately (so
   * the platform refuses at random, whatever our rate) and refusals are not frequent (so we are not
   * far over a limit either).
   */
  looksRandom(): boolean {
    if (!this.#calm.includes(false)) return false;
    return !this.manyRefused();
  }

  /** True when enough of the latest outcomes are known and too many of them are 429s: we are over a limit. */
  manyRefused(): boolean {
    return this.#recent.length >= MIN_RECENT_OUTCOMES && refusedShare(this.#recent) > LIMIT_SHARE;
  }

  /**
   * Drops the calm outcomes: when many calls are refused the limit has moved down, and the calm 429s
   * were that move, not noise. (A platform that refuses at random will show it again under the new limit.)
   */
  forgetCalm(): void {
    this.#calm = [];
  }

  /** A limit was found at `now`: calls started a while later at no more than `calmRate` requests/s are calm. */
  limitFound(calmRate: number, now: number): void {
    this.#calmBelow = { rate: calmRate, from: now + CALM_AFTER_MS };
  }
}

/** Appends to a window of the latest values, dropping the oldest beyond `size`. */
function push<T>(window: T[], value: T, size: number): void {
  window.push(value);
  if (window.length > size) window.shift();
}

/** Share of `false` (429) among outcomes; 0 for none. */
function refusedShare(outcomes: readonly boolean[]): number {
  return outcomes.length === 0 ? 0 : outcomes.filter((ok) => !ok).length / outcomes.length;
}
