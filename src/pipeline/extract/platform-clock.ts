/**
 * The platform's clock, as its `Date` response header tells it, against the run's own clock (the
 * instant the run started, from the system clock or TELECOM_ETL_NOW, plus the time since). A
 * window is only ever completed by a read made after its end on BOTH clocks (the earlier of the
 * two counts), and a skew beyond {@link SKEW_WARN_MS} is logged once per run.
 */
import type { Logger } from "../../core/log.js";
import type { Clock } from "../../core/ports.js";

/** How much earlier a read without the platform's clock counts as made, unless configured. */
export const DEFAULT_MISSING_CLOCK_MARGIN_MS = 24 * 3_600_000;

/** A skew larger than this (either way) is worth a warning. */
export const SKEW_WARN_MS = 5 * 60_000;

/** One reading of the platform's clock: its time, and when (on the local clock) it was received. */
export interface PlatformReading {
  readonly platformMs: number;
  readonly receivedAt: number;
}

/** Parses an HTTP `Date` header (IMF-fixdate); undefined when absent or unreadable. */
export function parseDateHeader(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === "") return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Watches the platform's clock during one run. */
export class PlatformClockWatch {
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #runStartedAt: number;
  readonly #startedOnClock: number;
  readonly #missingClockMarginMs: number;
  #warned = false;
  #warnedMissing = false;

  /**
   * `runStartedAt`: the run's own idea of its start (TELECOM_ETL_NOW or the clock), epoch ms;
   * `missingClockMarginMs`: how much earlier a read without the platform's clock counts as made.
   */
  constructor(options: { log: Logger; clock: Clock; runStartedAt: number; missingClockMarginMs?: number }) {
    this.#log = options.log;
    this.#clock = options.clock;
    this.#runStartedAt = options.runStartedAt;
    this.#startedOnClock = options.clock.now();
    this.#missingClockMarginMs = options.missingClockMarginMs ?? DEFAULT_MISSING_CLOCK_MARGIN_MS;
  }

  /**
   * The instant a read started at local `startedAt` counts as made, for settling: the earlier of
   * the run's clock and the platform's; without the platform's clock, the run's clock less the
   * margin (logged once per run: windows then settle that much later).
   */
  readInstant(reading: PlatformReading | undefined, startedAt: number, account: string): number {
    const runAt = this.runNow(startedAt);
    if (reading !== undefined) return Math.min(runAt, reading.platformMs);
    if (!this.#warnedMissing && this.#missingClockMarginMs > 0) {
      this.#warnedMissing = true;
      const hours = Math.round(this.#missingClockMarginMs / 3_600_000);
      this.#log.warn(
        { account, missingClockMarginHours: hours },
        `the platform sent no Date header, so only this machine's clock says when a read was made: windows settle ${hours} h later than settle_hours says (missing_clock_margin_hours; 0 trusts this clock)`,
      );
    }
    return runAt - this.#missingClockMarginMs;
  }

  /** The run's clock at local instant `at` (default now). */
  runNow(at = this.#clock.now()): number {
    return this.#runStartedAt + (at - this.#startedOnClock);
  }

  /** Notes a reading; logs once per run when it differs from the run's clock by more than 5 minutes. */
  observe(reading: PlatformReading | undefined, account: string): void {
    if (reading === undefined || this.#warned) return;
    const skew = reading.platformMs - this.runNow(reading.receivedAt);
    if (Math.abs(skew) <= SKEW_WARN_MS) return;
    this.#warned = true;
    const minutes = Math.round(Math.abs(skew) / 60_000);
    this.#log.warn(
      { account, skewMs: skew, platformTime: new Date(reading.platformMs).toISOString() },
      `the platform's clock (its Date header) is ${minutes} min ${skew > 0 ? "ahead of" : "behind"} this run's clock; a window completes only once read after its end by both clocks`,
    );
  }
}
