/**
 * The recent outcomes of one rate budget's calls, kept over a sliding window of time: what the
 * platform accepted (requests/s that succeeded) and whether its latest 429s cluster the way a limit's
 * do. Random 429s are a small, steady share of the calls; a limit refuses a large share at once.
 * Pure: time comes in as values.
 */

/** Outcomes older than this are forgotten. */
export const WINDOW_MS = 20_000;
/** At most this many of the latest outcomes are weighed when telling a limit from noise. */
const WINDOW_OUTCOMES = 50;
/**
 * A limit needs at least this many 429s in the window making at least this share of its latest
 * outcomes. A platform refusing 11% at random (the sandbox's `hostile`) does that about once in
 * a hundred windows of 50 calls (more often in short windows: a false cut costs ~15% for a few
 * seconds); an overshoot to twice a limit within a few calls. Under the limit found lately, where
 * a limit refuses nothing unless it moved down, more 429s are needed.
 */
const CLUSTER = { minRefused: 6, share: 0.25 } as const;
const CLUSTER_UNDER_LIMIT = { minRefused: 8, share: 0.25 } as const;
/** Successes over this span (or since the first outcome, if less) give the accepted rate. */
export const ACCEPTED_SPAN_MS = 2_000;
const MIN_ACCEPTED_SPAN_MS = 1_000;

interface Outcome {
  readonly at: number;
  readonly ok: boolean;
}

/** Sliding window of call outcomes (success or 429), oldest first. */
export class ThrottleWindow {
  #outcomes: Outcome[] = [];
  /** Index of the oldest outcome still in the window (the array is compacted now and then). */
  #head = 0;
  /** Index of the first outcome that counts towards a cluster (set when a limit was acted on). */
  #clusterFrom = 0;
  #firstAt: number | undefined;

  /** Records that a call ended at `at`: `ok` true for a success, false for a 429. */
  record(ok: boolean, at: number): void {
    this.#firstAt ??= at;
    this.#outcomes.push({ at, ok });
    this.#forget(at);
  }

  /**
   * True when the 429s of the window are consistent with a limit rather than with noise: several of
   * them, and a large share of the latest outcomes; `underLimit` (the call was sent under the limit
   * found lately) asks for more of both.
   */
  looksLikeLimit(now: number, underLimit = false): boolean {
    this.#forget(now);
    const from = Math.max(this.#head, this.#clusterFrom, this.#outcomes.length - WINDOW_OUTCOMES);
    const latest = this.#outcomes.slice(from);
    const refused = latest.filter((o) => !o.ok).length;
    const bar = underLimit ? CLUSTER_UNDER_LIMIT : CLUSTER;
    return refused >= bar.minRefused && refused / latest.length >= bar.share;
  }

  /**
   * Requests/s that succeeded over the last {@link ACCEPTED_SPAN_MS} (or since the first outcome):
   * while a limit refuses us, about the limit. Undefined before a second of outcomes.
   */
  acceptedRate(now: number): number | undefined {
    if (this.#firstAt === undefined) return undefined;
    const span = Math.min(ACCEPTED_SPAN_MS, now - this.#firstAt);
    // Under a second the count is mostly noise (and the platform's burst): no estimate.
    if (span < MIN_ACCEPTED_SPAN_MS) return undefined;
    this.#forget(now);
    const since = now - span;
    let accepted = 0;
    for (let i = this.#head; i < this.#outcomes.length; i++) {
      const outcome = this.#outcomes[i]!;
      if (outcome.ok && outcome.at >= since) accepted++;
    }
    return accepted / (span / 1000);
  }

  /** Outcomes so far no longer count towards a cluster: the rate was cut for them. */
  forgetRefusals(): void {
    this.#clusterFrom = this.#outcomes.length;
  }

  #forget(now: number): void {
    const from = now - WINDOW_MS;
    while (this.#head < this.#outcomes.length && this.#outcomes[this.#head]!.at < from) this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#outcomes.length) {
      this.#outcomes = this.#outcomes.slice(this.#head);
      this.#clusterFrom = Math.max(0, this.#clusterFrom - this.#head);
      this.#head = 0;
    }
  }
}
