import type { Clock, Sleep } from "../../src/core/ports.js";

/**
 * Virtual time: `sleep` parks a timer; `run` lets every runnable promise progress, then jumps the
 * clock to the earliest timer, until the awaited promise settles. Tests take no wall time.
 */
export function virtualTime() {
  let now = 0;
  let seq = 0;
  const timers: { at: number; seq: number; resolve: () => void }[] = [];
  const clock: Clock = { now: () => now };
  const sleep: Sleep = (ms) =>
    new Promise<void>((resolve) => {
      timers.push({ at: now + Math.max(0, ms), seq: seq++, resolve });
    });
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  async function run<T>(promise: Promise<T>): Promise<T> {
    let settled = false;
    promise.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    await flush();
    while (!settled) {
      timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = timers.shift();
      if (next === undefined) throw new Error("deadlock: nothing runnable and no timer pending");
      now = Math.max(now, next.at);
      next.resolve();
      await flush();
    }
    return promise;
  }
  return { clock, sleep, run, now: () => now };
}
