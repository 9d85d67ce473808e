import { describe, expect, it } from "vitest";
import { sliceLabel } from "../../src/core/slices.js";
import { addDays, daysBetween, isUtcDay } from "../../src/core/utc-days.js";
import {
  isCovered,
  mergeWindows,
  planBackfillWindows,
  planWindows,
  resolveStartDate,
  settledBy,
} from "../../src/pipeline/plan/plan-windows.js";

const base = { windowDays: 1, lookbackDays: 3, completed: [], settleHours: 0 };
/** Windows as their `etl.run_slices.slice` labels (`sliceLabel` of a window slice). */
const labels = (plan: readonly { start: string; end: string }[]) =>
  plan.map((window) => sliceLabel({ kind: "window", window }));

describe("utc days", () => {
  it("does calendar arithmetic across months and leap days", () => {
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(daysBetween("2026-08-01", "2026-09-01")).toBe(31);
    expect(isUtcDay("2026-02-30")).toBe(false);
    expect(isUtcDay("2026-2-3")).toBe(false);
    expect(isUtcDay("2026-12-31")).toBe(true);
  });
});

describe("planWindows", () => {
  it("on the first run covers every day from the start up to today, oldest first; today stays open", () => {
    const plan = planWindows({ ...base, startDate: "2026-08-01", today: "2026-08-04" });
    expect(labels(plan)).toEqual([
      "2026-08-01..2026-08-02",
      "2026-08-02..2026-08-03",
      "2026-08-03..2026-08-04",
      "2026-08-04..2026-08-05",
    ]);
    expect(plan.map((w) => w.complete)).toEqual([true, true, true, false]);
    expect(plan.map((w) => w.reason)).toEqual(["open", "open", "open", "current"]);
  });

  it("on a nightly run loads only the lookback days and today once everything before is complete", () => {
    const completed = [{ start: "2026-08-01", end: "2026-08-20" }];
    const plan = planWindows({ ...base, startDate: "2026-08-01", today: "2026-08-20", completed });
    expect(labels(plan)).toEqual([
      "2026-08-17..2026-08-18",
      "2026-08-18..2026-08-19",
      "2026-08-19..2026-08-20",
      "2026-08-20..2026-08-21",
    ]);
    expect(plan.map((w) => w.reason)).toEqual(["lookback", "lookback", "lookback", "current"]);
    expect(plan.slice(0, 3).every((w) => w.complete)).toBe(true);
  });

  it("never skips a failed window in the middle: it is retried, oldest first, with the lookback", () => {
    const completed = [
      { start: "2026-08-01", end: "2026-08-05" },
      { start: "2026-08-06", end: "2026-08-20" },
    ];
    const plan = planWindows({ ...base, startDate: "2026-08-01", today: "2026-08-20", completed });
    expect(labels(plan)[0]).toBe("2026-08-05..2026-08-06");
    expect(plan[0]?.reason).toBe("open");
    expect(plan).toHaveLength(5);
  });

  it("with lookback 0 loads only open windows and today", () => {
    const completed = [{ start: "2026-08-01", end: "2026-08-10" }];
    const plan = planWindows({
      ...base,
      lookbackDays: 0,
      startDate: "2026-08-01",
      today: "2026-08-10",
      completed,
    });
    expect(labels(plan)).toEqual(["2026-08-10..2026-08-11"]);
  });

  it("cuts multi-day windows on the grid from the start date and clips the last one at today", () => {
    const plan = planWindows({ ...base, windowDays: 7, startDate: "2026-08-01", today: "2026-08-17" });
    expect(labels(plan)).toEqual([
      "2026-08-01..2026-08-08",
      "2026-08-08..2026-08-15",
      "2026-08-15..2026-08-18",
    ]);
    expect(plan.map((w) => w.complete)).toEqual([true, true, false]);
  });

  it("judges completion by coverage, whatever grid the completed windows were cut on", () => {
    const completed = [
      { start: "2026-08-01", end: "2026-08-03" },
      { start: "2026-08-03", end: "2026-08-08" },
    ];
    const plan = planWindows({
      ...base,
      windowDays: 7,
      lookbackDays: 0,
      startDate: "2026-08-01",
      today: "2026-08-30",
      completed,
    });
    expect(labels(plan)[0]).toBe("2026-08-08..2026-08-15");
  });

  it("--until caps the plan (inclusive) and windows before today still complete", () => {
    const plan = planWindows({ ...base, startDate: "2026-08-01", today: "2026-08-20", until: "2026-08-02" });
    expect(labels(plan)).toEqual(["2026-08-01..2026-08-02", "2026-08-02..2026-08-03"]);
    expect(plan.every((w) => w.complete)).toBe(true);
  });

  it("--until in the future changes nothing; a start after today plans nothing", () => {
    const a = planWindows({ ...base, startDate: "2026-08-18", today: "2026-08-20", until: "2027-01-01" });
    expect(labels(a)).toEqual(["2026-08-18..2026-08-19", "2026-08-19..2026-08-20", "2026-08-20..2026-08-21"]);
    expect(planWindows({ ...base, startDate: "2026-08-21", today: "2026-08-20" })).toEqual([]);
  });

  it("refuses a window size below one day", () => {
    expect(() =>
      planWindows({ ...base, windowDays: 0, startDate: "2026-08-01", today: "2026-08-02" }),
    ).toThrow(RangeError);
  });
});

describe("planBackfillWindows", () => {
  it("leaves out the windows settled before (covered by completed ones, however cut), keeps the rest and today's", () => {
    const plan = planBackfillWindows({
      from: "2026-08-01",
      to: "2026-08-31",
      windowDays: 1,
      today: "2026-08-06",
      settleHours: 72,
      completed: [
        { start: "2026-08-01", end: "2026-08-02" },
        { start: "2026-08-02", end: "2026-08-04" },
      ],
    });
    expect(labels(plan)).toEqual([
      "2026-08-04..2026-08-05",
      "2026-08-05..2026-08-06",
      "2026-08-06..2026-08-07",
    ]);
  });

  it("is exactly [from, to], every window complete", () => {
    const plan = planBackfillWindows({
      from: "2026-08-03",
      to: "2026-08-05",
      windowDays: 1,
      today: "2026-09-01",
      settleHours: 0,
    });
    expect(labels(plan)).toEqual([
      "2026-08-03..2026-08-04",
      "2026-08-04..2026-08-05",
      "2026-08-05..2026-08-06",
    ]);
    expect(plan.every((w) => w.complete)).toBe(true);
  });

  it("clips at today and leaves today's window open", () => {
    const plan = planBackfillWindows({
      from: "2026-08-30",
      to: "2026-09-10",
      windowDays: 1,
      today: "2026-08-31",
      settleHours: 0,
    });
    expect(labels(plan)).toEqual(["2026-08-30..2026-08-31", "2026-08-31..2026-09-01"]);
    expect(plan.map((w) => w.complete)).toEqual([true, false]);
  });

  it("clips the last multi-day window at --to and refuses from after to", () => {
    const plan = planBackfillWindows({
      from: "2026-08-01",
      to: "2026-08-10",
      windowDays: 7,
      today: "2026-09-01",
      settleHours: 0,
    });
    expect(labels(plan)).toEqual(["2026-08-01..2026-08-08", "2026-08-08..2026-08-11"]);
    expect(() =>
      planBackfillWindows({
        from: "2026-08-02",
        to: "2026-08-01",
        windowDays: 1,
        today: "2026-09-01",
        settleHours: 0,
      }),
    ).toThrow(/after/);
  });
});

describe("settled windows", () => {
  const at = (iso: string) => Date.parse(iso);
  const settle72 = { ...base, settleHours: 72 };

  it("completes a window only when read at least settle_hours after its end", () => {
    const plan = planWindows({
      ...settle72,
      startDate: "2026-08-01",
      today: "2026-08-05",
      readAt: at("2026-08-05T02:00:00Z"),
    });
    // 08-01 ends 08-02 00:00, settled at 08-05 00:00; 08-02 ends 08-03, settled only at 08-06 00:00.
    expect(plan.map((w) => [w.start, w.complete])).toEqual([
      ["2026-08-01", true],
      ["2026-08-02", false],
      ["2026-08-03", false],
      ["2026-08-04", false],
      ["2026-08-05", false],
    ]);
  });

  it("re-reads every unsettled window however long since the last run, beyond the lookback", () => {
    // Completed through 08-02 (settled); the run of 08-05 read 08-02..08-05 before they settled; the
    // next run comes a week later: everything from 08-02 is open again, 08-02..08-05 now settle.
    const plan = planWindows({
      ...settle72,
      lookbackDays: 1,
      startDate: "2026-08-01",
      completed: [{ start: "2026-08-01", end: "2026-08-02" }],
      today: "2026-08-12",
      readAt: at("2026-08-12T02:00:00Z"),
    });
    expect(labels(plan)[0]).toBe("2026-08-02..2026-08-03");
    expect(plan).toHaveLength(11);
    expect(plan.filter((w) => w.complete).map((w) => w.start)).toEqual([
      "2026-08-02",
      "2026-08-03",
      "2026-08-04",
      "2026-08-05",
      "2026-08-06",
      "2026-08-07",
      "2026-08-08",
    ]);
    expect(plan.map((w) => w.reason).filter((r) => r === "lookback")).toEqual([]);
  });

  it("lookback_days stays an extra re-read of settled windows", () => {
    const plan = planWindows({
      ...settle72,
      lookbackDays: 7,
      startDate: "2026-08-01",
      completed: [{ start: "2026-08-01", end: "2026-08-07" }],
      today: "2026-08-12",
      readAt: at("2026-08-12T00:00:00Z"),
    });
    expect(plan.map((w) => [w.start, w.reason, w.complete])).toEqual([
      ["2026-08-05", "lookback", true],
      ["2026-08-06", "lookback", true],
      ["2026-08-07", "open", true],
      ["2026-08-08", "open", true],
      ["2026-08-09", "open", false],
      ["2026-08-10", "open", false],
      ["2026-08-11", "open", false],
      ["2026-08-12", "current", false],
    ]);
  });

  it("a backfill completes only its settled windows", () => {
    const plan = planBackfillWindows({
      from: "2026-08-01",
      to: "2026-08-10",
      windowDays: 1,
      today: "2026-08-06",
      readAt: at("2026-08-06T12:00:00Z"),
      settleHours: 72,
    });
    expect(plan.filter((w) => w.complete).map((w) => w.start)).toEqual(["2026-08-01", "2026-08-02"]);
    expect(plan.at(-1)).toMatchObject({ start: "2026-08-06", complete: false, reason: "current" });
  });

  it("settledBy compares the window end plus the settle hours with the read instant", () => {
    expect(settledBy(at("2026-08-05T00:00:00Z"), 72)("2026-08-02")).toBe(true);
    expect(settledBy(at("2026-08-04T23:59:59Z"), 72)("2026-08-02")).toBe(false);
    expect(settledBy(at("2026-08-02T00:00:00Z"), 0)("2026-08-02")).toBe(true);
  });
});

describe("resolveStartDate, mergeWindows, isCovered", () => {
  it("prefers the configured start, then the first known window, then 30 days back", () => {
    expect(resolveStartDate("2026-01-01", "2026-05-01", "2026-08-31")).toBe("2026-01-01");
    expect(resolveStartDate(undefined, "2026-05-01", "2026-08-31")).toBe("2026-05-01");
    expect(resolveStartDate(undefined, undefined, "2026-08-31")).toBe("2026-08-01");
  });

  it("merges overlapping and adjacent windows, keeps gaps", () => {
    const merged = mergeWindows([
      { start: "2026-08-05", end: "2026-08-06" },
      { start: "2026-08-01", end: "2026-08-03" },
      { start: "2026-08-03", end: "2026-08-04" },
      { start: "2026-08-02", end: "2026-08-03" },
    ]);
    expect(merged).toEqual([
      { start: "2026-08-01", end: "2026-08-04" },
      { start: "2026-08-05", end: "2026-08-06" },
    ]);
    expect(isCovered({ start: "2026-08-02", end: "2026-08-04" }, merged)).toBe(true);
    expect(isCovered({ start: "2026-08-03", end: "2026-08-06" }, merged)).toBe(false);
  });
});
