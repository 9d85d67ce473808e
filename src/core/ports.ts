/**
 * Narrow ports through which side effects enter the core, so tests can drive time without
 * waiting. Production code gets `systemClock` and `realSleep`; tests pass fakes.
 */

/** Source of the current time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Waits `ms` milliseconds; resolves early (rejecting) when `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A real timer-based sleep. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
