import { describe, expect, it } from "vitest";
import { createRateBudget, isThrottleError, type RateBudget } from "../../src/api/rate-budget.js";
import { withRetry } from "../../src/api/retry-policy.js";
import { RetryableError } from "../../src/errors.js";
import type { Clock, Sleep } from "../../src/ports.js";

/**
 * Virtual time: `sleep` parks a timer; `run` lets every runnable promise progress, then jumps the
 * clock to the earliest timer, until the awaited promise settles. Tests take no wall time.
 */
function virtualTime() {
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

const throttle = () => new RetryableError("429", { status: 429 }, { retryAfterMs: undefined });

describe("token bucket", () => {
  it("spaces requests at the configured rate after the burst", async () => {
    const time = virtualTime();
    const budget = createRateBudget({ maxRatePerSecond: 10, burst: 3, concurrency: 100, ...time });
    const startedAt: number[] = [];
    const all = Promise.all(
      Array.from({ length: 8 }, () => budget.schedule(async () => void startedAt.push(time.clock.now()))),
    );
    await time.run(all);
    expect(startedAt).toEqual([0, 0, 0, 100, 200, 300, 400, 500]);
  });

  it("refills while idle, but never beyond the burst", async () => {
    const time = virtualTime();
    const budget = createRateBudget({ maxRatePerSecond: 2, burst: 2, concurrency: 10, ...time });
    const startedAt: number[] = [];
    const job = async () => {
      await time.sleep(60_000);
      await Promise.all(
        Array.from({ length: 4 }, () => budget.schedule(async () => void startedAt.push(time.now()))),
      );
    };
    await time.run(job());
    expect(startedAt).toEqual([60_000, 60_000, 60_500, 61_000]);
  });

  it("keeps at most `concurrency` calls in flight", async () => {
    const time = virtualTime();
    const budget = createRateBudget({ maxRatePerSecond: 1000, burst: 1000, concurrency: 3, ...time });
    let inFlight = 0;
    let peak = 0;
    const call = async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await time.sleep(50);
      inFlight--;
    };
    await time.run(Promise.all(Array.from({ length: 20 }, () => budget.schedule(call))));
    expect(peak).toBe(3);
    expect(budget.stats().succeeded).toBe(20);
  });
});

describe("adaptive rate (AIMD)", () => {
  it("halves the rate on a 429, once per burst of 429s from calls started at the old rate", async () => {
    const time = virtualTime();
    const budget = createRateBudget({ maxRatePerSecond: 8, burst: 4, concurrency: 4, ...time });
    const failing = Array.from({ length: 4 }, () =>
      budget.schedule(async () => {
        await time.sleep(10);
        throw throttle();
      }),
    );
    await time.run(Promise.allSettled(failing));
    expect(budget.currentRate).toBe(4);
    expect(budget.stats()).toMatchObject({ throttled: 4, decreases: 1 });
  });

  it("never cuts below the floor and never rises above the configured maximum", async () => {
    const time = virtualTime();
    const budget = createRateBudget({
      maxRatePerSecond: 4,
      minRatePerSecond: 0.5,
      successesPerIncrease: 2,
      ...time,
    });
    for (let i = 0; i < 6; i++) {
      await time.run(budget.schedule(async () => Promise.reject(throttle())).catch(() => undefined));
    }
    expect(budget.currentRate).toBe(0.5);
    for (let i = 0; i < 200; i++) await time.run(budget.schedule(async () => i));
    expect(budget.currentRate).toBe(4);
  });

  it("raises the rate only after a run of successes", async () => {
    const time = virtualTime();
    const budget = createRateBudget({
      maxRatePerSecond: 10,
      initialRatePerSecond: 2,
      successesPerIncrease: 5,
      increaseStep: 1,
      ...time,
    });
    for (let i = 0; i < 4; i++) await time.run(budget.schedule(async () => i));
    expect(budget.currentRate).toBe(2);
    await time.run(budget.schedule(async () => 5));
    expect(budget.currentRate).toBe(3);
  });

  it("only treats 429s as throttling", () => {
    expect(isThrottleError(throttle())).toBe(true);
    expect(isThrottleError(new RetryableError("503", { status: 503 }))).toBe(false);
    expect(isThrottleError(new Error("429"))).toBe(false);
  });

  it("cuts gently when refused again near the rate refused last time", async () => {
    const time = virtualTime();
    const budget = createRateBudget({ maxRatePerSecond: 10, successesPerIncrease: 1, ...time });
    const refuse = () =>
      time.run(budget.schedule(async () => Promise.reject(throttle())).catch(() => undefined));
    await refuse();
    expect(budget.currentRate).toBe(5);
    // Fast recovery: each increase closes half the gap to 95% of the refused rate (9.5).
    for (let i = 0; i < 3; i++) await time.run(budget.schedule(async () => i));
    expect(budget.currentRate).toBeCloseTo(8.9375, 6);
    await refuse();
    expect(budget.currentRate).toBeCloseTo(8.9375 * 0.9, 6);
  });

  it.each([
    ["a token bucket", "bucket"],
    ["a fixed one-second window", "window"],
  ] as const)(
    "settles at a simulated server limit (%s): most of the limit used, few 429s",
    async (_, shape) => {
      const time = virtualTime();
      const budget = createRateBudget({ maxRatePerSecond: 60, burst: 2, concurrency: 8, ...time });
      const result = await time.run(simulate(time, budget, { shape, limitAt: () => 20, requests: 4000 }));
      expect(budget.stats().decreases).toBeGreaterThan(0);
      expect(budget.currentRate).toBeLessThan(60);
      expect(result.throttleShare).toBeLessThan(0.02);
      expect(result.throughput).toBeGreaterThan(20 * 0.95);
      expect(result.throughput).toBeLessThanOrEqual(20 * 1.01);
    },
  );

  it("follows a limit that drops from 20 to 10 req/s after 10 s", async () => {
    const time = virtualTime();
    const budget = createRateBudget({ maxRatePerSecond: 60, burst: 2, concurrency: 8, ...time });
    const limitAt = (ms: number) => (ms < 10_000 ? 20 : 10);
    const result = await time.run(simulate(time, budget, { shape: "bucket", limitAt, requests: 4000 }));
    expect(result.throughput).toBeGreaterThan(10 * 0.9);
    expect(result.throughput).toBeLessThanOrEqual(10 * 1.01);
    expect(result.throttleShare).toBeLessThan(0.03);
    expect(budget.currentRate).toBeLessThan(12);
  });

  it("does not ratchet down when the platform answers 429 at random (3% of answers, whatever the rate)", async () => {
    const run = async (sporadic: number) => {
      const time = virtualTime();
      const budget = createRateBudget({ maxRatePerSecond: 10, burst: 1, concurrency: 1, ...time });
      const options = { shape: "bucket", limitAt: () => 1000, requests: 2000, sporadic } as const;
      const result = await time.run(simulate(time, budget, options));
      return { ...result, rate: budget.currentRate, decreases: budget.stats().decreases };
    };
    const baseline = await run(0);
    const random = await run(0.03);
    expect(baseline.decreases).toBe(0);
    expect(random.decreases).toBeGreaterThan(0);
    expect(random.throttleShare).toBeGreaterThan(0.01);
    expect(random.throughput).toBeGreaterThan(baseline.throughput * 0.7);
    expect(random.rate).toBeGreaterThan(5);
  });
});

/**
 * A server admitting `limitAt(now)` requests per second, either as a token bucket (burst 2) or as a
 * fixed one-second window, answering 429 otherwise, with 50-150 ms of latency. `sporadic` is the share
 * of answers that are 429 whatever the rate (drawn from a seeded PRNG), like a platform that throttles
 * at random. Every request is retried through the budget until it succeeds. Figures are measured
 * between the 25th and 75th percentile of requests, away from the start-up and the backoff tail.
 */
async function simulate(
  time: ReturnType<typeof virtualTime>,
  budget: RateBudget,
  options: {
    shape: "bucket" | "window";
    limitAt: (ms: number) => number;
    requests: number;
    sporadic?: number;
  },
) {
  let tokens = 2;
  let refilledAt = 0;
  let windowIndex = -1;
  let windowCount = 0;
  const admit = () => {
    const now = time.now();
    const limit = options.limitAt(now);
    if (options.shape === "window") {
      if (Math.floor(now / 1000) !== windowIndex) {
        windowIndex = Math.floor(now / 1000);
        windowCount = 0;
      }
      windowCount++;
      return windowCount <= limit;
    }
    tokens = Math.min(2, tokens + ((now - refilledAt) / 1000) * limit);
    refilledAt = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  const log: { at: number; ok: boolean }[] = [];
  let seed = 1;
  // A second generator, so that the latencies are the same with and without sporadic 429s.
  let sporadicSeed = 7;
  const sporadic = () => {
    sporadicSeed = (sporadicSeed * 48_271) % 2_147_483_647;
    return sporadicSeed / 2_147_483_647 < (options.sporadic ?? 0);
  };
  const request = async () => {
    const ok = admit() && !sporadic();
    log.push({ at: time.now(), ok });
    seed = (seed * 16_807) % 2_147_483_647;
    await time.sleep(50 + (seed % 100));
    if (!ok) throw throttle();
  };
  const retry = { sleep: time.sleep, random: () => 0.5, policy: { maxAttempts: 50 } };
  await Promise.all(
    Array.from({ length: options.requests }, () => withRetry(() => budget.schedule(request), retry)),
  );
  const from = log[Math.floor(log.length / 4)]!.at;
  const to = log[Math.floor((log.length * 3) / 4)]!.at;
  const middle = log.filter((entry) => entry.at >= from && entry.at < to);
  return {
    throttleShare: middle.filter((entry) => !entry.ok).length / middle.length,
    throughput: middle.filter((entry) => entry.ok).length / ((to - from) / 1000),
  };
}
