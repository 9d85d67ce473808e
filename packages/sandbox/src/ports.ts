/**
 * The sandbox's own two ports (it shares no code with the loader but the platform's contract): a
 * clock, and a timer sleep for injected latency and hangs. Same shapes as the loader's core ports,
 * so a test can hand the sandbox's clock to the loader.
 */

/** Source of the current time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Waits `ms` milliseconds; rejects early with the signal's reason when `signal` aborts. */
export function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
