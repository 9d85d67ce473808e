import { describe, expect, it } from "vitest";
import { createRateBudget, type RateBudget } from "../../src/api/rate-budget.js";
import type { SharedTokenBucket } from "../../src/api/shared-token-bucket.js";
import { RetryableError } from "../../src/core/errors.js";
import type { Clock } from "../../src/core/ports.js";
import { virtualTime } from "../helpers/virtual-time.js";

/** What a shared bucket was asked to publish. */
interface Published {
  readonly rate: number;
  readonly from: number | undefined;
}

/**
 * The warehouse's bucket as the statements of shared-token-bucket.ts define it, in memory on the
 * virtual clock (the statements themselves run against Postgres in shared-rate-bucket.test.ts).
 */
function bucketInMemory(clock: Clock, max: number, burst: number) {
  let rate = max;
  let tokens = burst;
  let refilledAt = clock.now();
  const published: Published[] = [];
  const refill = () => {
    tokens = Math.min(burst, tokens + ((clock.now() - refilledAt) / 1000) * rate);
    refilledAt = clock.now();
  };
  const bucket: SharedTokenBucket = {
    get sharedRate() {
      return rate;
    },
    take: async () => {
      refill();
      tokens -= 1;
      return tokens >= 0 ? 0 : Math.ceil((-tokens / rate) * 1000);
    },
    publishRate: async (next, from) => {
      published.push({ rate: next, from });
      refill();
      if (next < rate) {
        tokens = Math.min(tokens, 0);
        rate = next;
      } else if (rate >= (from ?? 0)) rate = Math.min(max, next);
    },
  };
  return { bucket, published };
}

const throttle = () => new RetryableError("429", { status: 429 }, { retryAfterMs: undefined });

/** Sent at 40/s, every other call refused until `budget` cuts its rate (the platform accepts 20/s). */
function refusedUntilCut(time: ReturnType<typeof virtualTime>, budget: RateBudget, calls: number) {
  let sent = 0;
  const call = async () => {
    const refused = sent++ % 2 === 1 && budget.stats().decreases === 0;
    await time.sleep(10);
    if (refused) throw throttle();
  };
  return Promise.allSettled(Array.from({ length: calls }, () => budget.schedule(call)));
}

function budgetOn(
  time: ReturnType<typeof virtualTime>,
  sharedBucket: SharedTokenBucket,
  max = 10,
): RateBudget {
  return createRateBudget({ maxRatePerSecond: max, burst: 1, concurrency: 8, ...time, sharedBucket });
}

describe("a rate budget on a shared token bucket", () => {
  it("waits what the shared bucket answers: two budgets on it start at one bucket's pace", async () => {
    const time = virtualTime();
    const { bucket } = bucketInMemory(time.clock, 10, 1);
    const budgets = [budgetOn(time, bucket), budgetOn(time, bucket)];
    const startedAt: number[] = [];
    const all = budgets.flatMap((budget) =>
      Array.from({ length: 4 }, () => budget.schedule(async () => void startedAt.push(time.now()))),
    );
    await time.run(Promise.all(all));
    expect(startedAt.sort((a, b) => a - b)).toEqual([0, 100, 200, 300, 400, 500, 600, 700]);
  });

  it("publishes its cut, then each raise from the rate it raised from; the other budget follows", async () => {
    const time = virtualTime();
    const { bucket, published } = bucketInMemory(time.clock, 40, 1);
    const cutter = budgetOn(time, bucket, 40);
    const other = budgetOn(time, bucket, 40);
    await time.run(refusedUntilCut(time, cutter, 200));
    expect(cutter.stats().decreases).toBe(1);
    const [cut, ...raises] = published;
    expect(cut!.rate).toBeGreaterThan(17);
    expect(cut!.rate).toBeLessThan(20);
    expect(raises.length).toBeGreaterThan(0);
    expect(raises.map((raise) => raise.from)).toEqual(published.slice(0, -1).map((change) => change.rate));
    expect(bucket.sharedRate).toBe(cutter.currentRate);
    await time.run(other.schedule(async () => undefined));
    expect(other.currentRate).toBe(bucket.sharedRate);
  });

  it("a bucket that cannot be read fails the request as retryable, before it is sent", async () => {
    const time = virtualTime();
    const away: SharedTokenBucket = {
      sharedRate: undefined,
      take: () => Promise.reject(new Error("Connection terminated unexpectedly")),
      publishRate: async () => {},
    };
    let sent = 0;
    const attempt = budgetOn(time, away).schedule(async () => void sent++);
    await expect(time.run(attempt)).rejects.toBeInstanceOf(RetryableError);
    await expect(attempt).rejects.toThrow(/shared token bucket could not be read: Connection terminated/);
    expect(sent).toBe(0);
  });

  it("does not follow a shared rate read while its own change was still on its way", async () => {
    const time = virtualTime();
    /** A bucket that never takes the change in: its answers all predate it. */
    const staleBucket = (publishRate: SharedTokenBucket["publishRate"]): SharedTokenBucket => ({
      sharedRate: 40,
      take: async () => 0,
      publishRate,
    });
    const waiting = budgetOn(
      time,
      staleBucket(() => new Promise<void>(() => {})),
      40,
    );
    await time.run(refusedUntilCut(time, waiting, 200));
    expect(waiting.stats().decreases).toBe(1);
    expect(waiting.currentRate).toBeLessThan(20);
    // Control: once a change is in, what the bucket answers is the shared rate, and is followed.
    const settled = budgetOn(
      time,
      staleBucket(async () => {}),
      40,
    );
    await time.run(refusedUntilCut(time, settled, 200));
    expect(settled.stats().decreases).toBe(1);
    expect(settled.currentRate).toBe(40);
  });
});
