import { createHash } from "node:crypto";
import { sql } from "kysely";
import { createRateBudget, type RateBudget } from "../../src/api/rate-budget.js";
import { bucketIdOf, type SharedTokenBucket, sharedRateBuckets } from "../../src/api/shared-token-bucket.js";
import { realSleep, systemClock } from "../../src/core/ports.js";
import { connectWarehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { busiestWindow } from "../helpers/busiest-window.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

/**
 * Two connection pools on one warehouse play two worker processes on one API key: each has its own
 * RateBudget (its own p-limit and adaptive rate), and only the key's bucket in Postgres is shared.
 */
const it = fixtureTest.extend("other", { scope: "file" }, async ({ database }, { onCleanup }) => {
  const other = await connectWarehouse(database.url);
  onCleanup(() => other.close());
  return other;
});

const RATE = 5;
const BURST = 1;
const REQUESTS_PER_PROCESS = 20;
/**
 * A start is recorded when its sleep ends: a late timer or a slow answer from Postgres on a busy
 * machine delays one start by up to an interval (200 ms at 5/s) without delaying the next one, so
 * a one-second window may hold one start more than the bucket's rate + burst.
 */
const ONE_LATE_START = 1;
const INTERVAL_MS = 1_000 / RATE;

function budgetOn(sharedBucket: SharedTokenBucket | undefined, rate = RATE): RateBudget {
  return createRateBudget({
    maxRatePerSecond: rate,
    burst: BURST,
    // Enough slots for every request at once: the rate alone paces them.
    concurrency: REQUESTS_PER_PROCESS,
    clock: systemClock,
    sleep: realSleep,
    sharedBucket,
  });
}

/** Schedules `count` trivial requests at once on each budget; resolves to every start's `Date.now()`. */
async function startsOf(budgets: readonly RateBudget[], count: number): Promise<number[]> {
  const starts: number[] = [];
  await Promise.all(
    budgets.flatMap((budget) =>
      Array.from({ length: count }, () => budget.schedule(async () => void starts.push(Date.now()))),
    ),
  );
  return starts.sort((a, b) => a - b);
}

describe("a rate budget's token bucket shared in the warehouse", () => {
  it("two processes on one key start no more than one bucket allows; without it they start twice as many", {
    timeout: 60_000,
  }, async ({ database, other }) => {
    const key = "sk_live_shared_bucket_pacing_0001";
    const buckets = [sharedRateBuckets(database.warehouse.db), sharedRateBuckets(other.db)].map((shared) =>
      shared.bucketFor(key, { maxRatePerSecond: RATE, burst: BURST }),
    );
    const shared = await startsOf(
      buckets.map((bucket) => budgetOn(bucket)),
      REQUESTS_PER_PROCESS,
    );
    const control = await startsOf([budgetOn(undefined), budgetOn(undefined)], REQUESTS_PER_PROCESS);

    const sharedMost = busiestWindow(shared, 1_000);
    const controlMost = busiestWindow(control, 1_000);
    console.info(`most starts in a second: ${sharedMost} shared, ${controlMost} in memory per process`);
    expect(shared).toHaveLength(2 * REQUESTS_PER_PROCESS);
    expect(sharedMost).toBeLessThanOrEqual(RATE + BURST + ONE_LATE_START);
    // The one bucket's pace: every start but the burst's waits its interval.
    const minimumMs = ((2 * REQUESTS_PER_PROCESS - BURST) / RATE) * 1_000;
    expect(shared.at(-1)! - shared[0]!).toBeGreaterThanOrEqual(minimumMs - INTERVAL_MS);
    // Two buckets in memory: each process sends at the full rate.
    expect(controlMost).toBeGreaterThan(RATE + BURST + ONE_LATE_START);
  });

  it("stores neither the key nor its plain digest", async ({ database }) => {
    const key = "sk_live_shared_bucket_secret_0002";
    const bucket = sharedRateBuckets(database.warehouse.db).bucketFor(key, { maxRatePerSecond: 3, burst: 2 });
    expect(await bucket.take()).toBe(0);
    const rows = await sql<Record<string, unknown>>`SELECT * FROM etl.key_rate_buckets`.execute(
      database.warehouse.db,
    );
    const stored = JSON.stringify(rows.rows);
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(createHash("sha256").update(key).digest("hex"));
    expect(rows.rows.map((row) => row.bucket_id)).toContain(bucketIdOf(key));
    expect(rows.rows.find((row) => row.bucket_id === bucketIdOf(key))).toMatchObject({
      rate: 3,
      max_rate: 3,
      burst: 2,
      tokens: 1,
    });
  });

  it("a cut published by one process slows the other, which follows it", {
    timeout: 30_000,
  }, async ({ database, other }) => {
    const key = "sk_live_shared_bucket_cut_0003";
    const settings = { maxRatePerSecond: 20, burst: BURST };
    const cutter = sharedRateBuckets(database.warehouse.db).bucketFor(key, settings);
    const follower = budgetOn(sharedRateBuckets(other.db).bucketFor(key, settings), 20);

    const fast = await timed(() => startsOf([follower], 10));
    // 9 intervals of 50 ms at 20/s; well under what 2/s would take.
    expect(fast).toBeLessThan(2_000);
    await cutter.publishRate(2);
    const slow = await timed(() => startsOf([follower], 6));
    // Saved-up tokens went with the cut: each of the 6 waits an interval of 500 ms.
    expect(slow).toBeGreaterThanOrEqual(6 * 500 - 100);
    // It took the cut as its own: back from 20 to 2, then at most a probe above it (one every 2 s).
    expect(follower.currentRate).toBeGreaterThanOrEqual(2);
    expect(follower.currentRate).toBeLessThan(3);
  });

  it("a raise applies only from the shared rate its process stood at: it never undoes another's cut", async ({
    database,
    other,
  }) => {
    const key = "sk_live_shared_bucket_raise_0004";
    const settings = { maxRatePerSecond: 20, burst: BURST };
    const one = sharedRateBuckets(database.warehouse.db).bucketFor(key, settings);
    const two = sharedRateBuckets(other.db).bucketFor(key, settings);
    await one.take();
    await one.publishRate(4);
    await two.publishRate(19, 20); // raised from 20, before it saw the cut to 4
    expect(two.sharedRate).toBe(4);
    await one.publishRate(6, 4);
    expect(one.sharedRate).toBe(6);
    await two.publishRate(50, 6); // never above the configured maximum
    expect(two.sharedRate).toBe(20);
  });
});

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  await work();
  return Date.now() - started;
}
