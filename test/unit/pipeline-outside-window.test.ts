import { describe, expect, it } from "vitest";
import { utcDayOfValue } from "../../src/core/utc-days.js";
import {
  OUTSIDE_WINDOW,
  outsideWindowCheck,
  tooManyOutsideWindow,
} from "../../src/pipeline/extract/outside-window.js";

const window = { start: "2026-08-02", end: "2026-08-03" };

describe("rows outside their window", () => {
  it("reads the UTC day of dates and timestamps in every form the platform writes them", () => {
    expect(utcDayOfValue("2026-08-02")).toBe("2026-08-02");
    expect(utcDayOfValue("2026-08-02T23:30:00Z")).toBe("2026-08-02");
    expect(utcDayOfValue("2026-08-02 23:30:00.120Z")).toBe("2026-08-02");
    expect(utcDayOfValue("2026-08-02T23:30:00-02:00")).toBe("2026-08-03");
    expect(utcDayOfValue("2026-08-03T01:00:00+0200")).toBe("2026-08-02");
    // Without a zone a timestamp is UTC, as the load reads it (TimeZone UTC).
    expect(utcDayOfValue("2026-08-02 23:59:59")).toBe("2026-08-02");
    expect(utcDayOfValue(new Date("2026-08-01T23:59:59Z"))).toBe("2026-08-01");
    expect(utcDayOfValue(null)).toBeNull();
    expect(utcDayOfValue("soon")).toBeNull();
  });

  it("flags a row whose window column falls outside [start, end), never one it cannot date", () => {
    const check = outsideWindowCheck("date", window);
    const row = (date: unknown) => ({ columns: { date }, extra: null });
    expect(check(row("2026-08-02T00:00:00Z"))).toBeNull();
    expect(check(row("2026-08-02T23:59:59Z"))).toBeNull();
    expect(check(row(null))).toBeNull();
    expect(check(row("2026-08-03T00:00:00Z"))).toEqual({
      path: "date",
      code: OUTSIDE_WINDOW,
      message:
        "date falls on 2026-08-03 (UTC), outside the requested window 2026-08-02..2026-08-03: is the platform's day shifted?",
    });
    expect(check(row("2026-08-01T23:59:59Z"))?.code).toBe(OUTSIDE_WINDOW);
  });

  it("holds a window above the share allowed (default 0: any row)", () => {
    expect(tooManyOutsideWindow(0, 40, 0)).toBe(false);
    expect(tooManyOutsideWindow(1, 40, 0)).toBe(true);
    expect(tooManyOutsideWindow(1, 200, 0.01)).toBe(false);
    expect(tooManyOutsideWindow(3, 200, 0.01)).toBe(true);
  });
});
