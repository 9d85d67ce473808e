import { describe, expect, it } from "vitest";
import {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  RetriesExhaustedError,
  type RetryEvent,
  resolveRetryPolicy,
  retryDelayMs,
  withRetry,
} from "../../src/api/retry-policy.js";
import { AuthError, RetryableError, SliceError } from "../../src/core/errors.js";

const policy = DEFAULT_RETRY_POLICY;

/** A sleep that records what it was asked and returns at once. */
function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe("backoffDelayMs (full jitter)", () => {
  it("draws uniformly below base * 2^(retry-1)", () => {
    expect(backoffDelayMs(1, policy, () => 0.999999)).toBe(499);
    expect(backoffDelayMs(2, policy, () => 0.5)).toBe(500);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(1000);
    expect(backoffDelayMs(4, policy, () => 0)).toBe(0);
  });

  it("never exceeds maxDelayMs, even for huge retry numbers", () => {
    expect(backoffDelayMs(20, policy, () => 0.999999)).toBe(29_999);
    expect(backoffDelayMs(10_000, policy, () => 0.999999)).toBe(29_999);
  });

  it("uses the injected random source for every draw", () => {
    const draws = [0.1, 0.9];
    const random = () => draws.shift() ?? 0;
    expect([backoffDelayMs(5, policy, random), backoffDelayMs(5, policy, random)]).toEqual([800, 7200]);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-03-01T12:00:00Z");

  it("reads delay-seconds", () => {
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter("7", now)).toBe(7000);
    expect(parseRetryAfter(" 120 ", now)).toBe(120_000);
    expect(parseRetryAfter("1.5", now)).toBe(1500);
  });

  it("reads an HTTP date relative to the injected now", () => {
    expect(parseRetryAfter("Sat, 01 Mar 2025 12:00:30 GMT", now)).toBe(30_000);
  });

  it("turns a date in the past into 0", () => {
    expect(parseRetryAfter("Sat, 01 Mar 2025 11:59:00 GMT", now)).toBe(0);
  });

  it("ignores absent and unparseable values", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
    expect(parseRetryAfter("5x", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });
});

describe("retryDelayMs", () => {
  it("prefers the server's Retry-After over backoff", () => {
    expect(retryDelayMs(1, 7000, policy, () => 0.5)).toBe(7000);
  });

  it("caps Retry-After at maxRetryAfterMs", () => {
    expect(retryDelayMs(1, 3_600_000, policy, () => 0.5)).toBe(policy.maxRetryAfterMs);
  });

  it("falls back to backoff without Retry-After", () => {
    expect(retryDelayMs(3, undefined, policy, () => 0.5)).toBe(1000);
  });
});

describe("resolveRetryPolicy", () => {
  it("fills defaults and rejects nonsense", () => {
    expect(resolveRetryPolicy({ maxAttempts: 3 })).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 3 });
    expect(() => resolveRetryPolicy({ maxAttempts: 0 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ baseDelayMs: -1 })).toThrow(RangeError);
  });
});

describe("withRetry", () => {
  const retryable = (message = "HTTP 503", retryAfterMs?: number) =>
    new RetryableError(message, { status: 503, path: "/v1/cdr" }, { retryAfterMs });

  it("returns the first success and waits between failures", async () => {
    const { waits, sleep } = recordingSleep();
    let calls = 0;
    const result = await withRetry(
      async (attempt) => {
        calls++;
        if (attempt < 3) throw retryable();
        return "ok";
      },
      { sleep, random: () => 0.5 },
    );
    expect(result).toBe("ok");
    expect(calls).toBe(3);
    expect(waits).toEqual([250, 500]);
  });

  it("does not retry errors that are not retryable", async () => {
    const { waits, sleep } = recordingSleep();
    let calls = 0;
    const failure = withRetry(
      async () => {
        calls++;
        throw new AuthError("401");
      },
      { sleep },
    );
    await expect(failure).rejects.toBeInstanceOf(AuthError);
    expect(calls).toBe(1);
    expect(waits).toEqual([]);
  });

  it("gives up after maxAttempts (default 6) with a SliceError that keeps the last error", async () => {
    const { waits, sleep } = recordingSleep();
    let calls = 0;
    const error = await withRetry(
      async () => {
        calls++;
        throw retryable(`HTTP 503 #${calls}`);
      },
      { sleep, random: () => 0 },
    ).catch((e: unknown) => e);
    expect(calls).toBe(6);
    expect(waits).toHaveLength(5);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error).toBeInstanceOf(SliceError);
    const exhausted = error as RetriesExhaustedError;
    expect(exhausted.attempts).toBe(6);
    expect(exhausted.message).toContain("HTTP 503 #6");
    expect(exhausted.message).toContain("gave up after 6 attempt(s)");
    expect(exhausted.context).toEqual({ status: 503, path: "/v1/cdr" });
    expect(exhausted.cause).toBeInstanceOf(RetryableError);
  });

  it("honours Retry-After and reports each wait to onRetry", async () => {
    const { waits, sleep } = recordingSleep();
    const events: RetryEvent[] = [];
    let calls = 0;
    await withRetry(
      async () => {
        calls++;
        if (calls === 1) throw retryable("429", 7000);
        if (calls === 2) throw retryable("429", 3_600_000);
        return calls;
      },
      { sleep, onRetry: (event) => events.push(event) },
    );
    expect(waits).toEqual([7000, 60_000]);
    expect(events.map((e) => [e.attempt, e.delayMs, e.waitedMs])).toEqual([
      [1, 7000, 0],
      [2, 60_000, 7000],
    ]);
  });

  it("bounds the total wait: a Retry-After beyond what is left gives up instead of waiting", async () => {
    const { waits, sleep } = recordingSleep();
    const error = await withRetry(
      async () => {
        throw retryable("429", 40_000);
      },
      { sleep, policy: { maxTotalWaitMs: 100_000, maxAttempts: 10 } },
    ).catch((e: unknown) => e);
    expect(waits).toEqual([40_000, 40_000]);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as RetriesExhaustedError).waitedMs).toBe(80_000);
    expect(String(error)).toContain("total wait capped at 100000 ms");
  });

  it("bounds the total wait: backoff is shortened to what is left, then gives up", async () => {
    const { waits, sleep } = recordingSleep();
    const error = await withRetry(
      async () => {
        throw retryable();
      },
      { sleep, random: () => 0.999, policy: { baseDelayMs: 1000, maxTotalWaitMs: 2500, maxAttempts: 10 } },
    ).catch((e: unknown) => e);
    expect(waits).toEqual([999, 1501]);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
  });

  it("stops when the signal aborts, without another attempt", async () => {
    const controller = new AbortController();
    let calls = 0;
    const sleep = async () => {
      controller.abort(new Error("stopped by test"));
    };
    const failure = withRetry(
      async () => {
        calls++;
        throw retryable();
      },
      { sleep, signal: controller.signal },
    );
    await expect(failure).rejects.toThrow("stopped by test");
    expect(calls).toBe(1);
  });
});
