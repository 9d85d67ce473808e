/**
 * Token bucket per API key (`--rate-limit` requests/s, burst = one second's worth). Uses the wall
 * clock: rate limits are about real request pacing, not sandbox time.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  constructor(private readonly ratePerSecond: number) {}

  /** Takes a token for `key`; returns 0 when allowed, else the ms until a token is available. */
  take(key: string, nowMs: number): number {
    if (this.ratePerSecond <= 0) return 0;
    const capacity = Math.max(1, this.ratePerSecond);
    const bucket = this.buckets.get(key) ?? { tokens: capacity, atMs: nowMs };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((nowMs - bucket.atMs) / 1000) * this.ratePerSecond);
    bucket.atMs = nowMs;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - bucket.tokens) / this.ratePerSecond) * 1000);
  }
}
