import { describe, expect, it } from "vitest";
import { createRateBudget, isThrottleError, type RateBudget } from "../../src/api/rate-budget.js";
import { withRetry } from "../../src/api/retry-policy.js";
import { RetryableError } from "../../src/core/errors.js";
import { virtualTime } from "../helpers/virtual-time.js";

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

describe("adaptive rate: random 429s", () => {
  const refuse = (budget: RateBudget) => budget.schedule(async () => Promise.reject(throttle()));

  it("keeps the rate on an isolated 429 (the retry is its whole cost)", async () => {
    const time = virtualTime();
    const budget = createRateBudget({ maxRatePerSecond: 10, ...time });
    for (let i = 0; i < 20; i++) await time.run(budget.schedule(async () => i));
    await time.run(refuse(budget).catch(() => undefined));
    expect(budget.currentRate).toBe(10);
    expect(budget.stats()).toMatchObject({ throttled: 1, decreases: 0 });
  });

  it.each([0.04, 0.11])(
    "stays near the configured maximum when %s of answers are 429 at random, whatever the rate",
    async (share) => {
      const run = async (sporadic: number) => {
        const time = virtualTime();
        const budget = createRateBudget({ maxRatePerSecond: 10, burst: 1, concurrency: 4, ...time });
        const options = { shape: "bucket", limitAt: () => 1000, requests: 2000, sporadic } as const;
        const result = await time.run(simulate(time, budget, options));
        return { ...result, rate: budget.currentRate };
      };
      const baseline = await run(0);
      const random = await run(share);
      expect(random.throttleShare).toBeGreaterThan(share / 2);
      // Each 429 costs its retry (a token): about `share` of the throughput, not a collapse.
      expect(random.throughput).toBeGreaterThan(baseline.throughput * (1 - share) * 0.9);
      expect(random.rate).toBeGreaterThan(10 * 0.8);
    },
  );
});

describe("adaptive rate: a real limit", () => {
  it("cuts to just under what the platform accepted, once for a cluster of 429s", async () => {
    const time = virtualTime();
    const budget = createRateBudget({ maxRatePerSecond: 40, burst: 1, concurrency: 8, ...time });
    // Sent at 40 req/s, every other call refused until the budget cuts: 20 req/s accepted.
    let sent = 0;
    let rateAfterCut: number | undefined;
    const call = async () => {
      if (budget.stats().decreases === 1) rateAfterCut ??= budget.currentRate;
      const refused = sent++ % 2 === 1 && budget.stats().decreases === 0;
      await time.sleep(10);
      if (refused) throw throttle();
    };
    await time.run(Promise.allSettled(Array.from({ length: 200 }, () => budget.schedule(call))));
    expect(budget.stats().decreases).toBe(1);
    expect(budget.stats().throttled).toBeGreaterThanOrEqual(6);
    // Cut to about 0.95 x 20 (not to half of 40, and then below).
    expect(rateAfterCut).toBeGreaterThan(17);
    expect(rateAfterCut).toBeLessThan(20);
  });

  it("never cuts below the floor and never rises above the configured maximum", async () => {
    const time = virtualTime();
    const budget = createRateBudget({ maxRatePerSecond: 4, minRatePerSecond: 0.5, ...time });
    for (let i = 0; i < 40; i++) {
      await time.run(budget.schedule(async () => Promise.reject(throttle())).catch(() => undefined));
    }
    expect(budget.currentRate).toBe(0.5);
    for (let i = 0; i < 400; i++) await time.run(budget.schedule(async () => i));
    expect(budget.currentRate).toBe(4);
  });

  it.each([
    ["a token bucket", "bucket"],
    ["a fixed one-second window", "window"],
  ] as const)(
    "converges to a simulated server limit (%s): at least 95% of it used, under 2% 429s",
    async (_, shape) => {
      const time = virtualTime();
      const budget = createRateBudget({ maxRatePerSecond: 60, burst: 2, concurrency: 8, ...time });
      const result = await time.run(simulate(time, budget, { shape, limitAt: () => 20, requests: 4000 }));
      expect(budget.stats().decreases).toBeGreaterThan(0);
      expect(budget.currentRate).toBeLessThan(24);
      expect(result.throttleShare).toBeLessThan(0.02);
      expect(result.throughput).toBeGreaterThan(20 * 0.95);
      expect(result.throughput).toBeLessThanOrEqual(20 * 1.01);
    },
  );

  it("uses at least 80% of a limit that also refuses 4% at random", async () => {
    const time = virtualTime();
    const budget = createRateBudget({ maxRatePerSecond: 60, burst: 2, concurrency: 8, ...time });
    const options = { shape: "bucket", limitAt: () => 20, requests: 4000, sporadic: 0.04 } as const;
    const result = await time.run(simulate(time, budget, options));
    expect(result.throughput).toBeGreaterThan(20 * 0.8);
    expect(result.throughput).toBeLessThanOrEqual(20 * 1.01);
  });

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

  it("recovers to the configured maximum once the limit lifts", async () => {
    const time = virtualTime();
    const budget = createRateBudget({ maxRatePerSecond: 30, burst: 2, concurrency: 8, ...time });
    const limitAt = (ms: number) => (ms < 20_000 ? 10 : 1000);
    const result = await time.run(simulate(time, budget, { shape: "bucket", limitAt, requests: 3000 }));
    expect(budget.stats().decreases).toBeGreaterThan(0);
    expect(budget.currentRate).toBe(30);
    // 200 requests at 10/s, then 2,800 at up to 30/s: the middle half runs well above the old limit.
    expect(result.throughput).toBeGreaterThan(25);
  });

  it("only treats 429s as throttling", () => {
    expect(isThrottleError(throttle())).toBe(true);
    expect(isThrottleError(new RetryableError("503", { status: 503 }))).toBe(false);
    expect(isThrottleError(new Error("429"))).toBe(false);
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
