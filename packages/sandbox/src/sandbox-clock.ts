import { Duration } from "luxon";
import type { Clock } from "./ports.js";

/**
 * The sandbox's notion of "now": fixed (moves only when told) or the wall clock shifted by an
 * offset. Nothing in the world exists after it. Controlled through `POST /_sandbox/clock`.
 */
export class SandboxClock implements Clock {
  private fixedMs: number | null;
  private offsetMs = 0;

  constructor(initial: number | "real") {
    this.fixedMs = initial === "real" ? null : initial;
  }

  /** True when the clock follows the wall clock. */
  get isReal(): boolean {
    return this.fixedMs === null;
  }

  /** Current sandbox time, epoch ms. */
  now(): number {
    return this.fixedMs ?? Date.now() + this.offsetMs;
  }

  /** Jumps to `ms` (a real clock keeps ticking from there). */
  set(ms: number): void {
    if (this.fixedMs === null) this.offsetMs = ms - Date.now();
    else this.fixedMs = ms;
  }

  /** Moves forward (or back, for a negative amount) by `ms`. */
  advance(ms: number): void {
    this.set(this.now() + ms);
  }
}

/** Parses an ISO 8601 duration (`PT24H`, `P1D`, `PT90M`) to ms, or null. */
export function parseIsoDuration(text: string): number | null {
  const duration = Duration.fromISO(text);
  return duration.isValid ? duration.toMillis() : null;
}

/** An instant as an HTTP-date (`Sun, 06 Nov 1994 08:49:37 GMT`), the format of the `Date` header. */
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}
