import { describe, expect, it } from "vitest";
import type { RejectedRow } from "../../src/pipeline/extract/parse-rows.js";
import {
  binomialTail,
  heldWindowMessage,
  mostCommonIssue,
  tooManyRejects,
} from "../../src/pipeline/holds/reject-share.js";

/** P(X >= r) by summing the binomial pmf directly (small n only): the oracle for the log-space sum. */
function directTail(r: number, n: number, p: number): number {
  let choose = 1;
  let sum = 0;
  for (let k = 0; k <= n; k++) {
    if (k > 0) choose = (choose * (n - k + 1)) / k;
    if (k >= r) sum += choose * p ** k * (1 - p) ** (n - k);
  }
  return sum;
}

const reject = (path: string, message: string): RejectedRow => ({
  raw: {},
  issues: [{ path, code: "invalid_type", message }],
});

describe("binomialTail", () => {
  it("equals the direct sum for small windows", () => {
    for (const [r, n, p] of [
      [1, 1, 0.01],
      [2, 2, 0.01],
      [3, 40, 0.01],
      [6, 150, 0.01],
      [0, 10, 0.2],
      [10, 10, 0.5],
      [5, 60, 0.05],
    ] as const) {
      expect(binomialTail(r, n, p)).toBeCloseTo(directTail(r, n, p), 12);
    }
  });

  it("stays finite and tiny for a whole large window rejected", () => {
    const tail = binomialTail(2_701, 2_701, 0.01);
    expect(tail).toBeGreaterThanOrEqual(0);
    expect(tail).toBeLessThan(1e-100);
    expect(binomialTail(20, 2_000, 0.01)).toBeGreaterThan(0.4);
  });
});

describe("tooManyRejects", () => {
  it("holds a window whose every row was rejected, large or small", () => {
    expect(tooManyRejects(2_701, 2_701, 0.01)).toBe(true);
    expect(tooManyRejects(2, 2, 0.01)).toBe(true);
    expect(tooManyRejects(3, 3, 0.01)).toBe(true);
  });

  it("does not hold a window for what chance gives at the allowed share", () => {
    // One corrupted row in 40 is 2.5% but one in 40 happens often at 1%; 12 of 2,000 is under 1%.
    expect(tooManyRejects(1, 40, 0.01)).toBe(false);
    expect(tooManyRejects(12, 2_000, 0.01)).toBe(false);
    expect(tooManyRejects(30, 2_000, 0.01)).toBe(false);
    expect(tooManyRejects(1, 1, 0.01)).toBe(false);
  });

  it("holds a window clearly above the allowed share", () => {
    expect(tooManyRejects(45, 2_000, 0.01)).toBe(true);
    expect(tooManyRejects(10, 100, 0.01)).toBe(true);
  });

  it("with max_reject_share 0 holds a window for any reject, and never without one", () => {
    expect(tooManyRejects(1, 5_000, 0)).toBe(true);
    expect(tooManyRejects(0, 5_000, 0)).toBe(false);
    expect(tooManyRejects(0, 0, 0.01)).toBe(false);
  });
});

describe("the held window's line", () => {
  it("names account, stream, window, counts and the most common issue", () => {
    const rejects = [
      ...Array.from({ length: 2_700 }, () => reject("uuid", "expected string, received undefined")),
      reject("duration", "expected number, received string"),
    ];
    expect(mostCommonIssue(rejects)).toEqual({
      issue: "uuid: expected string, received undefined",
      count: 2_700,
    });
    const line = heldWindowMessage({
      account: "master",
      stream: "cdrs",
      window: "2026-08-01..2026-08-02",
      rejected: 2_701,
      total: 2_701,
      maxShare: 0.01,
      rejects,
    });
    expect(line).toMatch(
      /^account master, stream cdrs, window 2026-08-01\.\.2026-08-02: 2,701 of 2,701 rows rejected: uuid: expected string, received undefined — has the platform changed its schema\?/,
    );
    expect(line).not.toContain("\n");
  });
});
