import { describe, expect, it } from "vitest";
import {
  exponentialBackoff,
  fixedDelay,
  linearBackoff,
  type RetriesExhausted,
  type RetryLoopEvent,
  type RetryLoopPolicy,
  retryLoop,
} from "../../src/core/retry.js";

/** A failure the test policies call retryable. */
class Flaky extends Error {}

/** A clock that only moves when the loop sleeps (plus what an attempt spends, via `spend`). */
function virtualTime() {
  let now = 0;
  const waits: number[] = [];
  return {
    waits,
    clock: { now: () => now },
    sleep: async (ms: number) => {
      waits.push(ms);
      now += ms;
    },
    spend: (ms: number) => {
      now += ms;
    },
  };
}

const flakyPolicy: RetryLoopPolicy = {
  maxAttempts: 4,
  delayMs: linearBackoff({ stepMs: 100 }),
  retryable: (error) => error instanceof Flaky,
};

/** An attempt that fails `failures` times, then answers with the attempt number. */
function failingTimes(failures: number) {
  const calls: number[] = [];
  const attempt = async (n: number) => {
    calls.push(n);
    if (n <= failures) throw new Flaky(`failure ${n}`);
    return n;
  };
  return { calls, attempt };
}

describe("delays", () => {
  it("exponential backoff doubles to its cap, with or without full jitter", () => {
    const plain = exponentialBackoff({ firstMs: 250, maxMs: 5_000, jitter: "none" });
    expect([1, 2, 3, 4, 5, 6, 60].map((retry) => plain(retry, () => 0.5))).toEqual([
      250, 500, 1000, 2000, 4000, 5000, 5000,
    ]);
    const jittered = exponentialBackoff({ firstMs: 500, maxMs: 30_000, jitter: "full" });
    expect([jittered(1, () => 0.999999), jittered(3, () => 0.5), jittered(10_000, () => 0.999999)]).toEqual([
      499, 1000, 29_999,
    ]);
  });

  it("linear backoff grows by its step up to its cap; a fixed delay never changes", () => {
    const linear = linearBackoff({ stepMs: 200, maxMs: 500 });
    expect([1, 2, 3, 4].map((retry) => linear(retry, Math.random))).toEqual([200, 400, 500, 500]);
    expect([1, 9].map((retry) => fixedDelay(5_000)(retry, Math.random))).toEqual([5_000, 5_000]);
  });
});

describe("retryLoop", () => {
  it("retries a retryable failure, waiting as the policy says, and returns the first success", async () => {
    const time = virtualTime();
    const { calls, attempt } = failingTimes(2);
    const events: RetryLoopEvent[] = [];
    const result = await retryLoop(attempt, flakyPolicy, { ...time, onRetry: (event) => events.push(event) });
    expect(result).toBe(3);
    expect(calls).toEqual([1, 2, 3]);
    expect(time.waits).toEqual([100, 200]);
    expect(events.map((e) => [e.attempt, e.delayMs, e.waitedMs, (e.error as Error).message])).toEqual([
      [1, 100, 0, "failure 1"],
      [2, 200, 100, "failure 2"],
    ]);
  });

  it("gives up after maxAttempts, throwing the last failure unless giveUp says otherwise", async () => {
    const time = virtualTime();
    const { calls, attempt } = failingTimes(10);
    await expect(retryLoop(attempt, flakyPolicy, time)).rejects.toThrow("failure 4");
    expect(calls).toEqual([1, 2, 3, 4]);
    expect(time.waits).toEqual([100, 200, 300]);

    const told: RetriesExhausted[] = [];
    const replaced = retryLoop(failingTimes(10).attempt, flakyPolicy, {
      ...virtualTime(),
      giveUp: (exhausted) => {
        told.push(exhausted);
        return new Error("gave up");
      },
    });
    await expect(replaced).rejects.toThrow("gave up");
    expect(told.map((t) => [t.attempts, t.waitedMs, t.bound, (t.error as Error).message])).toEqual([
      [4, 600, "attempts", "failure 4"],
    ]);
  });

  it("lets a failure the policy does not call retryable through at once, unchanged", async () => {
    const time = virtualTime();
    const wrong = new TypeError("a wrong statement");
    let calls = 0;
    let gaveUp = false;
    const failure = retryLoop(
      async () => {
        calls++;
        throw wrong;
      },
      flakyPolicy,
      { ...time, giveUp: () => (gaveUp = true) },
    );
    await expect(failure).rejects.toBe(wrong);
    expect(calls).toBe(1);
    expect(time.waits).toEqual([]);
    expect(gaveUp).toBe(false);
  });

  it("bounds the total wait: a backoff is shortened to what is left, then the loop gives up", async () => {
    const time = virtualTime();
    const bounds: string[] = [];
    const failure = retryLoop(
      failingTimes(100).attempt,
      { ...flakyPolicy, maxAttempts: 100, delayMs: fixedDelay(1000), maxTotalWaitMs: 2500 },
      { ...time, giveUp: (exhausted) => bounds.push(exhausted.bound) && exhausted.error },
    );
    await expect(failure).rejects.toThrow("failure 4");
    expect(time.waits).toEqual([1000, 1000, 500]);
    expect(bounds).toEqual(["total-wait"]);
  });

  it("never shortens a demanded wait: one that does not fit the budget gives up instead", async () => {
    const time = virtualTime();
    const failure = retryLoop(
      failingTimes(100).attempt,
      { ...flakyPolicy, maxAttempts: 100, maxTotalWaitMs: 10_000, demandedDelayMs: () => 4_000 },
      time,
    );
    await expect(failure).rejects.toThrow("failure 3");
    expect(time.waits).toEqual([4_000, 4_000]);
  });

  it("bounds the time since the first failure on the clock, the attempts' own time included", async () => {
    const time = virtualTime();
    const told: RetriesExhausted[] = [];
    const failure = retryLoop(
      async (n) => {
        time.spend(1_000);
        throw new Flaky(`failure ${n}`);
      },
      {
        ...flakyPolicy,
        maxAttempts: Number.POSITIVE_INFINITY,
        delayMs: fixedDelay(500),
        maxElapsedMs: 4_000,
      },
      { ...time, giveUp: (exhausted) => told.push(exhausted) && exhausted.error },
    );
    await expect(failure).rejects.toThrow("failure 4");
    // Failures at 1.0, 2.5, 4.0 and 5.5 s: the last is 4.5 s after the first.
    expect(time.waits).toEqual([500, 500, 500]);
    expect(told.map((t) => [t.bound, t.elapsedMs, t.waitedMs])).toEqual([["elapsed", 4_500, 1_500]]);
  });

  it("stops when the signal aborts, without another attempt", async () => {
    const controller = new AbortController();
    const { calls, attempt } = failingTimes(10);
    const failure = retryLoop(attempt, flakyPolicy, {
      signal: controller.signal,
      sleep: async () => controller.abort(new Error("stopped by test")),
    });
    await expect(failure).rejects.toThrow("stopped by test");
    expect(calls).toEqual([1]);

    const before = new AbortController();
    before.abort(new Error("ended before"));
    const never = failingTimes(0);
    await expect(retryLoop(never.attempt, flakyPolicy, { signal: before.signal })).rejects.toThrow(
      "ended before",
    );
    expect(never.calls).toEqual([]);
  });
});
