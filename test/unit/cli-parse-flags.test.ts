import { describe, expect, it } from "vitest";
import {
  parseDateFlag,
  parseDateRange,
  parseLockTimeout,
  parseNameList,
  parsePositiveInteger,
} from "../../src/cli/parse-flags.js";
import { UsageError } from "../../src/core/errors.js";

describe("flag parsing shared by the commands", () => {
  it("name lists: trimmed, deduplicated, never empty", () => {
    expect(parseNameList("--streams", undefined)).toBeUndefined();
    expect(parseNameList("--streams", " cdrs, invoices ,cdrs")).toEqual(["cdrs", "invoices"]);
    expect(() => parseNameList("--accounts", " , ")).toThrow(
      new UsageError("--accounts: expected a comma-separated list of names"),
    );
  });

  it("dates: real UTC days only, the flag named in the message", () => {
    expect(parseDateFlag("--until", "2026-08-31")).toBe("2026-08-31");
    expect(() => parseDateFlag("--until", "2026-02-30")).toThrow(
      new UsageError("--until: 2026-02-30 is not a real date (February 2026 has 28 days)"),
    );
    expect(() => parseDateFlag("--until", "2028-02-30")).toThrow(
      new UsageError("--until: 2028-02-30 is not a real date (February 2028 has 29 days)"),
    );
    expect(() => parseDateFlag("--from", "2026-13-01")).toThrow(
      new UsageError("--from: 2026-13-01 is not a real date (months run from 01 to 12)"),
    );
    expect(() => parseDateFlag("--from", "2026-04-31")).toThrow(
      new UsageError("--from: 2026-04-31 is not a real date (April 2026 has 30 days)"),
    );
    expect(() => parseDateFlag("--until", "31/08/2026")).toThrow(
      new UsageError('--until: expected a date YYYY-MM-DD, got "31/08/2026"'),
    );
  });

  it("lock timeout: seconds >= 0 in milliseconds", () => {
    expect(parseLockTimeout(undefined)).toBe(0);
    expect(parseLockTimeout("1.5")).toBe(1500);
    for (const bad of ["-1", "", " ", "soon"]) expect(() => parseLockTimeout(bad), bad).toThrow(UsageError);
  });

  it("a date range: --from after --to is a one-line usage error, one day is fine", () => {
    expect(parseDateRange("2026-08-01", "2026-08-01")).toEqual({ from: "2026-08-01", to: "2026-08-01" });
    expect(() => parseDateRange("2026-08-05", "2026-08-01")).toThrow(
      new UsageError("--from 2026-08-05 is after --to 2026-08-01"),
    );
    expect(() => parseDateRange("2026-08-05", "08/01/2026")).toThrow(/^--to: expected a date/);
  });

  it("a positive-integer flag: absent is undefined, 0, -1, 1.5 and text are one line naming the flag", () => {
    expect(parsePositiveInteger("--limit", undefined)).toBeUndefined();
    expect(parsePositiveInteger("--limit", "20")).toBe(20);
    for (const bad of ["0", "-1", "1.5", "ten", ""]) {
      expect(() => parsePositiveInteger("--limit", bad)).toThrow(
        new UsageError(`--limit: expected a positive integer, got "${bad}"`),
      );
    }
    expect(() => parsePositiveInteger("--run", "0", "a run id (a whole number >= 1)")).toThrow(
      new UsageError('--run: expected a run id (a whole number >= 1), got "0"'),
    );
  });
});
