import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  type GateFigures,
  gateFailures,
  parseGateThresholds,
  requestFloor,
} from "../../bench/load-gate-check.js";

const THRESHOLDS_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../bench/load-gate-thresholds.json",
);
const THRESHOLDS = { min_e2e_to_copy_ratio: 0.3, max_requests_per_row_over_floor: 1.05 };
const PASSING: GateFigures = {
  e2eToCopyRatio: 0.3,
  requestsOverFloor: 1.05,
  truthRows: 1000,
  loadedRows: [1000, 1000, 1000],
};

describe("requestFloor", () => {
  it("counts each list's pages of the largest size, and one request for an empty list", () => {
    const lists = [
      { window: "2026-01-01", direction: "placed", rows: 0 },
      { window: "2026-01-01", direction: "received", rows: 100 },
      { window: "2026-01-02", direction: "placed", rows: 101 },
      { window: "2026-01-02", direction: "received", rows: 9_999 },
    ];
    expect(requestFloor(lists, 100)).toBe(1 + 1 + 2 + 100);
    expect(requestFloor([], 100)).toBe(0);
  });
});

describe("gateFailures", () => {
  it("passes figures exactly at their thresholds", () => {
    expect(gateFailures(PASSING, THRESHOLDS)).toEqual([]);
  });

  it("fails a ratio below its threshold, naming the figure, its value and the threshold", () => {
    expect(gateFailures({ ...PASSING, e2eToCopyRatio: 0.2994 }, THRESHOLDS)).toEqual([
      "e2e/COPY ratio 0.299 is below min_e2e_to_copy_ratio 0.3",
    ]);
  });

  it("fails requests over the floor above their threshold", () => {
    expect(gateFailures({ ...PASSING, requestsOverFloor: 2 }, THRESHOLDS)).toEqual([
      "requests per row over the floor 2.000 is above max_requests_per_row_over_floor 1.05",
    ]);
  });

  it("fails a figure that is not a number (a round that measured nothing is no pass)", () => {
    const failures = gateFailures({ ...PASSING, e2eToCopyRatio: Number.NaN }, THRESHOLDS);
    expect(failures).toEqual(["e2e/COPY ratio NaN is below min_e2e_to_copy_ratio 0.3"]);
  });

  it("fails a round that loaded other than the truth's rows, however fast", () => {
    const failures = gateFailures(
      { ...PASSING, e2eToCopyRatio: 5, loadedRows: [1000, 998, 1000] },
      THRESHOLDS,
    );
    expect(failures).toEqual(["rows loaded 1000, 998, 1000 differ from the truth's 1000 in 1 round(s)"]);
  });

  it("reports every figure beyond its threshold", () => {
    expect(gateFailures({ ...PASSING, e2eToCopyRatio: 0.1, requestsOverFloor: 3 }, THRESHOLDS)).toHaveLength(
      2,
    );
  });
});

describe("the thresholds file", () => {
  it("is valid, and its limits can be met (no loader beats a plain COPY or needs fewer requests than the floor)", () => {
    const thresholds = parseGateThresholds(readFileSync(THRESHOLDS_FILE, "utf8"), THRESHOLDS_FILE);
    expect(thresholds.min_e2e_to_copy_ratio).toBeGreaterThan(0);
    expect(thresholds.min_e2e_to_copy_ratio).toBeLessThan(1);
    expect(thresholds.max_requests_per_row_over_floor).toBeGreaterThanOrEqual(1);
  });

  it("refuses a file without a threshold, naming the file", () => {
    expect(() => parseGateThresholds('{"min_e2e_to_copy_ratio": 0.3}', "t.json")).toThrow(/t\.json/);
  });
});
