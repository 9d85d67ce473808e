import { cdrSchema } from "@telecom-etl/platform/cdr.js";
import { describe, expect } from "vitest";
import {
  faultCount,
  type Malformed,
  ndjson,
  ndjsonLines,
  sandboxTest,
  servedCdrs,
} from "./sandbox-client.js";

/**
 * The null charge row fault over HTTP: an answered, billed CDR served with `charge: null` stays
 * valid (in the truth as served, `null_charge` in `/malformed`), at its rate, counted in the stats,
 * without moving the rows the other row faults hit.
 */

const WORLD = { seed: 41, days: 4, callsPerDay: 120, accounts: 2, now: "2026-08-05T00:00:00Z" } as const;
const test = sandboxTest({
  nulls: { ...WORLD, faults: { rows: { nullCharge: 0.2 } } },
  mixed: { ...WORLD, faults: { rows: { wrongType: 0.05, missingField: 0.05, extraField: 0.05 } } },
  mixedNulls: {
    ...WORLD,
    faults: { rows: { wrongType: 0.05, missingField: 0.05, extraField: 0.05, nullCharge: 0.2 } },
  },
});
const RANGE = "from=2026-08-02&to=2026-08-03";

describe("sandbox null charge fault", () => {
  test("serves charge null on answered, billed CDRs; such rows stay valid, in the truth as served and in /malformed as null_charge", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.nulls;
    const before = await faultCount(sandbox, "row:nullCharge");
    const served = await servedCdrs(sandbox, "/v1/cdr", RANGE);
    const nulled = served.filter((line) => {
      const row = JSON.parse(line) as Record<string, unknown>;
      return row.charge === null && row.per_minute !== null;
    });
    expect(nulled.length).toBeGreaterThan(10);
    for (const line of nulled) {
      const row = cdrSchema.parse(JSON.parse(line));
      expect(row.disposition).toBe("answered");
      expect(row.duration).toBeGreaterThan(0);
    }
    expect(await faultCount(sandbox, "row:nullCharge")).toBe(before + nulled.length);
    const truth = await ndjsonLines(sandbox, `/_sandbox/truth/cdrs?account=master&${RANGE}`);
    expect(truth.sort()).toEqual([...served].sort());
    const malformed = await ndjson<Malformed>(
      sandbox,
      `/_sandbox/truth/cdrs/malformed?account=master&${RANGE}`,
    );
    expect(malformed.every((m) => m.kind === "null_charge" && !m.rejected)).toBe(true);
    expect(
      malformed.map((m) => `${JSON.stringify(m.raw).slice(0, -1)},"direction":"${m.direction}"}`).sort(),
    ).toEqual(nulled.sort());
    // About the configured share of the eligible rows.
    const eligible = served.filter((line) => {
      const row = JSON.parse(line) as Record<string, unknown>;
      return row.disposition === "answered" && row.per_minute !== null && (row.duration as number) > 0;
    }).length;
    expect(Math.abs(nulled.length / eligible - 0.2)).toBeLessThan(4 * Math.sqrt((0.2 * 0.8) / eligible));
  });

  test("does not change which rows the other row faults hit", async ({ sandboxes }) => {
    const query = "account=master&from=2026-08-01&to=2026-08-04";
    const others = await ndjson<Malformed>(sandboxes.mixed, `/_sandbox/truth/cdrs/malformed?${query}`);
    const withNulls = await ndjson<Malformed>(
      sandboxes.mixedNulls,
      `/_sandbox/truth/cdrs/malformed?${query}`,
    );
    expect(others.length).toBeGreaterThan(20);
    expect(withNulls.filter((m) => m.kind !== "null_charge")).toEqual(others);
    expect(withNulls.filter((m) => m.kind === "null_charge").length).toBeGreaterThan(10);
  });
});
