/**
 * The token bucket of one API key kept in the warehouse (`etl.key_rate_buckets`), for worker
 * processes on several machines that read with one key: each request takes its token in ONE atomic
 * statement timed by Postgres' `clock_timestamp()`, the one clock all the machines share, so N
 * processes on a key never send more than one process would. Only the bucket and its rate are
 * shared; concurrency (requests in flight) stays a limit of each process (see rate-budget.ts).
 *
 * The row is named by a salted SHA-256 of the key: neither the key nor the plain digest that
 * key-budgets.ts groups accounts by in memory is ever stored.
 */
import { createHash } from "node:crypto";
import { type QueryExecutorProvider, sql } from "kysely";

/** Prepended to the key before hashing, so a bucket id matches no other digest of the key. */
const BUCKET_ID_SALT = "telecom-etl rate bucket\0";

/** A raise applies only while the shared rate is still at least where its process stood (float slack). */
const RAISE_SLACK = 1e-9;

/** The configured limits of a key's bucket; the first take creates the row with them, later takes refresh them. */
export interface SharedBucketSettings {
  /** The configured maximum rate in requests/s; the shared rate starts there and never goes above it. */
  readonly maxRatePerSecond: number;
  /** Tokens the bucket holds when idle. */
  readonly burst: number;
}

/** One API key's token bucket in the warehouse, shared by every process that reads with the key. */
export interface SharedTokenBucket {
  /** Takes one token: the milliseconds to wait before the request may be sent (0 when a token was there). */
  take(): Promise<number>;
  /**
   * Publishes an adaptive change of this process's rate. A cut (below the shared rate) always
   * applies and drops saved-up tokens to min(tokens, 0); a raise applies only while the shared rate
   * is still at least `from` (the rate this process raised from), so a raise never undoes another
   * process's cut. Never above the configured maximum.
   */
  publishRate(rate: number, from?: number): Promise<void>;
  /** The shared rate (requests/s) as the last take or publish found it; undefined before the first. */
  readonly sharedRate: number | undefined;
}

/** Hands out the shared bucket of each key (see {@link sharedRateBuckets}). */
export interface SharedRateBuckets {
  /** The bucket of the key `apiKey` (the key's value, not its env var), at the configured `settings`. */
  bucketFor(apiKey: string, settings: SharedBucketSettings): SharedTokenBucket;
}

/** The id of a key's row: SHA-256 hex of a fixed salt and the key. */
export function bucketIdOf(apiKey: string): string {
  return createHash("sha256").update(BUCKET_ID_SALT).update(apiKey).digest("hex");
}

/** The shared buckets of a warehouse: one row per key in `etl.key_rate_buckets`. */
export function sharedRateBuckets(db: QueryExecutorProvider): SharedRateBuckets {
  return {
    bucketFor: (apiKey, settings) => new WarehouseTokenBucket(db, bucketIdOf(apiKey), settings),
  };
}

/** A row of `etl.key_rate_buckets` as a token bucket; every call is one statement on the pool. */
class WarehouseTokenBucket implements SharedTokenBucket {
  readonly #db: QueryExecutorProvider;
  readonly #bucketId: string;
  readonly #settings: SharedBucketSettings;
  #sharedRate: number | undefined;

  constructor(db: QueryExecutorProvider, bucketId: string, settings: SharedBucketSettings) {
    const { maxRatePerSecond: max, burst } = settings;
    if (!(max > 0) || !Number.isFinite(max)) throw new RangeError(`maxRatePerSecond must be > 0, got ${max}`);
    this.#db = db;
    this.#bucketId = bucketId;
    this.#settings = { maxRatePerSecond: max, burst: Math.max(1, burst) };
  }

  get sharedRate(): number | undefined {
    return this.#sharedRate;
  }

  async take(): Promise<number> {
    const { maxRatePerSecond: max, burst } = this.#settings;
    // The first take creates the row (full but for this token); later ones refill it for the time
    // since the last take, at the shared rate, and take one. The row lock serialises the processes.
    // The config's burst and maximum are written back on every take (last writer wins).
    const result = await sql<{ tokens: number; rate: number }>`
      INSERT INTO etl.key_rate_buckets AS b (bucket_id, rate, burst, tokens, refilled_at, max_rate, updated_at)
      VALUES (${this.#bucketId}, ${max}, ${burst}, ${burst - 1}, clock_timestamp(), ${max}, clock_timestamp())
      ON CONFLICT (bucket_id) DO UPDATE SET
        tokens = least(excluded.burst,
          b.tokens + greatest(0, extract(epoch FROM clock_timestamp() - b.refilled_at)) * b.rate) - 1,
        refilled_at = greatest(b.refilled_at, clock_timestamp()),
        rate = least(b.rate, excluded.max_rate),
        burst = excluded.burst,
        max_rate = excluded.max_rate,
        updated_at = clock_timestamp()
      RETURNING tokens, rate`.execute(this.#db);
    const { tokens, rate } = result.rows[0]!;
    this.#sharedRate = rate;
    return tokens >= 0 ? 0 : Math.ceil((-tokens / rate) * 1000);
  }

  async publishRate(rate: number, from?: number): Promise<void> {
    if (!(rate > 0) || !Number.isFinite(rate)) throw new RangeError(`rate must be > 0, got ${rate}`);
    // The tokens are refilled at the old rate up to now first, as the in-memory budget does before a change.
    const refilled = sql`least(b.burst,
      b.tokens + greatest(0, extract(epoch FROM clock_timestamp() - b.refilled_at)) * b.rate)`;
    const result = await sql<{ rate: number }>`
      UPDATE etl.key_rate_buckets AS b SET
        tokens = CASE WHEN ${rate}::float8 < b.rate THEN least(${refilled}, 0) ELSE ${refilled} END,
        refilled_at = greatest(b.refilled_at, clock_timestamp()),
        rate = CASE
          WHEN ${rate}::float8 < b.rate THEN ${rate}::float8
          WHEN b.rate >= ${from ?? 0}::float8 * (1 - ${RAISE_SLACK}::float8) THEN least(b.max_rate, ${rate}::float8)
          ELSE b.rate
        END,
        updated_at = clock_timestamp()
      WHERE b.bucket_id = ${this.#bucketId}
      RETURNING b.rate`.execute(this.#db);
    const shared = result.rows[0]?.rate;
    if (shared !== undefined) this.#sharedRate = shared;
  }
}
