import { describe, expect, it } from "vitest";
import { AdaptiveRate } from "../../src/api/adaptive-rate.js";

function rateAtMax(): AdaptiveRate {
  return new AdaptiveRate({
    maxRatePerSecond: 20,
    minRatePerSecond: 1,
    initialRatePerSecond: 20,
    successesPerIncrease: 5,
    increaseStep: 0.5,
  });
}

/** `count` successes of calls sent now, at `now`; how many raised the rate. */
function succeed(rate: AdaptiveRate, count: number, now: number): number {
  let raises = 0;
  for (let i = 0; i < count; i++) if (rate.succeeded(rate.start(), now)) raises++;
  return raises;
}

describe("AdaptiveRate.follow (a rate another process published to the shared bucket)", () => {
  it("a lower rate is a cut: calls sent before it are stale, and recovery goes beyond it only by probes", () => {
    const rate = rateAtMax();
    const before = rate.start();
    expect(rate.follow(4, 1_000)).toBe(true);
    expect(rate.rate).toBe(4);
    expect(rate.throttled(before, 1_001)).toBe("stale");
    // Quick recovery would double it in a few successes; at the cut's level only a probe every 2 s.
    expect(succeed(rate, 50, 1_500)).toBe(0);
    expect(succeed(rate, 5, 3_100)).toBe(1);
    expect(rate.rate).toBeGreaterThan(4);
    expect(rate.rate).toBeLessThan(4.5);
  });

  it("stays within its own bounds, and reports no change when it already is at the rate", () => {
    const rate = rateAtMax();
    expect(rate.follow(50, 0)).toBe(false);
    expect(rate.follow(0.2, 0)).toBe(true);
    expect(rate.rate).toBe(1);
    expect(rate.follow(1, 10)).toBe(false);
    expect(rate.follow(8, 20)).toBe(true);
    expect(rate.rate).toBe(8);
  });
});
