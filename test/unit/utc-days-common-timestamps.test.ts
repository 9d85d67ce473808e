import { describe, expect, it } from "vitest";
import { commonTimestampDay, commonTimestampMs } from "../../src/core/utc-days.js";

/** What Date.parse gives a timestamp, a zone-less one read as UTC: the oracle the fast path must equal. */
function parsed(text: string): number {
  const zoned = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/.test(text);
  return Date.parse(zoned ? text : `${text.replace(" ", "T")}Z`);
}

function dayOf(ms: number): string | null {
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 10);
}

const EDGES = [
  "2026-01-15T10:20:30Z",
  "2026-01-15T10:20:30",
  "2026-01-15 10:20:30",
  "2026-01-15 10:20:30Z",
  "2026-01-15T10:20:30.123Z",
  "2026-01-15T23:59:59.999",
  "2026-01-01T00:00:00Z",
  "2026-12-31T23:59:59Z",
  "2026-02-30T12:00:00Z", // Date.parse reads it as 2026-03-02
  "2024-02-29T12:00:00Z",
  "2026-13-01T00:00:00Z",
  "2026-00-10T00:00:00Z",
  "2026-01-32T00:00:00Z",
  "2026-1-15T10:20:30Z",
  "2026-01-15T24:00:00Z",
  "2026-01-15T23:60:00Z",
  "2026-01-15T23:59:60Z",
  "2026-01-15T10:20:30.5Z",
  "2026-01-15T10:20:30.1234Z",
  "2026-01-15T10:20:30+02:00",
  "2026-01-15T10:20:30-0500",
  "2026-01-15T10:20Z",
  "2026-01-15",
  "2026-01-15Tab:cd:efZ",
  "abcd-ef-ghTij:kl:mnZ",
  "2026-01-15x10:20:30Z",
  "",
];

describe("common timestamps without Date.parse per row", () => {
  it("give what Date.parse gives, or leave the text to it", () => {
    for (const text of EDGES) {
      const ms = commonTimestampMs(text);
      if (ms !== undefined)
        expect(Number.isNaN(ms) ? "NaN" : ms, text).toEqual(
          Number.isNaN(parsed(text)) ? "NaN" : parsed(text),
        );
      const day = commonTimestampDay(text);
      if (day !== undefined) expect(day, text).toBe(dayOf(parsed(text)));
    }
  });

  it("take the platform's shapes themselves", () => {
    for (const text of ["2026-01-15T10:20:30Z", "2026-01-15 10:20:30", "2026-01-15T10:20:30.123Z"]) {
      expect(commonTimestampMs(text), text).toBe(parsed(text));
    }
    expect(commonTimestampDay("2026-02-30T12:00:00Z")).toBe("2026-03-02");
    expect(commonTimestampDay("2026-13-01T00:00:00Z")).toBeNull();
    expect(commonTimestampMs("2026-01-15T10:20:30+02:00")).toBeUndefined();
    expect(commonTimestampMs("2026-01-15T24:00:00Z")).toBeUndefined();
  });

  it("agree with Date.parse on random timestamps of every shape", () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const two = (n: number) => String(n).padStart(2, "0");
    for (let i = 0; i < 20_000; i++) {
      const date = `${1990 + next(60)}-${two(next(14))}-${two(next(33))}`;
      const time = `${two(next(26))}:${two(next(62))}:${two(next(62))}`;
      const fraction = ["", ".", `.${String(next(1000)).padStart(3, "0")}`, `.${next(10)}`][next(4)];
      const text = `${date}${["T", " "][next(2)]}${time}${fraction}${["Z", "", "+01:00"][next(3)]}`;
      const ms = commonTimestampMs(text);
      if (ms === undefined) continue;
      expect(Number.isNaN(ms) ? "NaN" : ms, text).toEqual(Number.isNaN(parsed(text)) ? "NaN" : parsed(text));
      expect(commonTimestampDay(text), text).toBe(dayOf(parsed(text)));
    }
  });
});
