import { cdrSchema } from "@telecom-etl/platform/cdr.js";
import {
  BUILT_IN_PROFILES,
  ROW_FAULTS,
  resolveFaultProfile,
} from "@telecom-etl/sandbox/faults/fault-profile.js";
import { rowFaultOf } from "@telecom-etl/sandbox/faults/row-faults.js";
import { altersRows, isValidRow, serveRow } from "@telecom-etl/sandbox/faults/served-row.js";
import { describe, expect, it } from "vitest";

const ANSWERED =
  '{"date":"2026-08-01T10:00:00Z","from":"12125550100","to":"442071234567","disposition":"answered","duration":61,' +
  '"destination":"United Kingdom","per_minute":"0.015","charge":"0.03","sip_trunk":"sip1a001","uuid":"u-1","parent_uuid":null,"answered_by":null}';
const row = () => JSON.parse(ANSWERED) as Record<string, unknown>;
const cdr = (index: number) => ({ stream: "cdrs" as const, account: 0, day: 20_666, index });

describe("the nullCharge row fault", () => {
  it("is 0 in none, 0.001 in flaky, 0.003 in hostile", () => {
    expect(
      [BUILT_IN_PROFILES.none, BUILT_IN_PROFILES.flaky, BUILT_IN_PROFILES.hostile].map(
        (p) => p.rows.nullCharge,
      ),
    ).toEqual([0, 0.001, 0.003]);
  });

  it("never changes which rows the other row faults hit, and hits its own rate of rows", () => {
    const others = { wrongType: 0.02, missingField: 0.02, unknownEnum: 0.02, extraField: 0.02 };
    const without = resolveFaultProfile({ rows: others });
    const withIt = resolveFaultProfile({ rows: { ...others, nullCharge: 0.05 } });
    const alone = resolveFaultProfile({ rows: { nullCharge: 0.05 } });
    const n = 40_000;
    let nulled = 0;
    // Plain comparisons in the loop, one assertion per kind of violation after it: 40,000 rows of
    // expect() calls take seconds on a loaded machine.
    const violations = { faultMoved: 0, otherRowChanged: 0, badNullCharge: 0, untouchedChanged: 0 };
    for (let index = 0; index < n; index++) {
      const identity = cdr(index);
      const before = serveRow(without, 7, identity, ANSWERED);
      const after = serveRow(withIt, 7, identity, ANSWERED);
      if (rowFaultOf(withIt, 7, identity) !== rowFaultOf(without, 7, identity)) violations.faultMoved += 1;
      if (before.change !== null && JSON.stringify(after) !== JSON.stringify(before)) {
        violations.otherRowChanged += 1;
      }
      const served = serveRow(alone, 7, identity, ANSWERED);
      if (served.change === "nullCharge") {
        nulled += 1;
        const restored = JSON.stringify({ ...served.fields, charge: "0.03" });
        if (served.fields.charge !== null || !isValidRow("cdrs", served.fields) || restored !== ANSWERED) {
          violations.badNullCharge += 1;
        }
      } else if (served.json !== ANSWERED || served.change !== null) violations.untouchedChanged += 1;
    }
    expect(violations).toEqual({ faultMoved: 0, otherRowChanged: 0, badNullCharge: 0, untouchedChanged: 0 });
    const p = 0.05;
    expect(Math.abs(nulled / n - p)).toBeLessThanOrEqual(4 * Math.sqrt((p * (1 - p)) / n));
    expect(ROW_FAULTS).not.toContain("nullCharge");
  });

  it("applies only to answered, billed CDRs, and never to other streams", () => {
    const always = resolveFaultProfile({ rows: { nullCharge: 1 } });
    const variants = [
      { ...row(), disposition: "noanswer", duration: 0 },
      { ...row(), duration: 0 },
      { ...row(), per_minute: null, charge: null },
    ];
    for (const variant of variants) {
      const json = JSON.stringify(variant);
      expect(serveRow(always, 1, cdr(3), json)).toEqual({ json, change: null });
    }
    expect(serveRow(always, 1, cdr(3), ANSWERED).change).toBe("nullCharge");
    const invoice = '{"id":1,"from_date":"2026-08-01","to_date":"2026-08-31","amount":"1.00"}';
    expect(serveRow(always, 1, { ...cdr(3), stream: "invoices" }, invoice)).toEqual({
      json: invoice,
      change: null,
    });
    expect(altersRows(always, "invoices")).toBe(false);
  });

  it("names a null-charge row that also drifted by its null charge; drift alone by drift", () => {
    const profile = resolveFaultProfile({
      rows: { nullCharge: 1 },
      drift: [{ stream: "cdrs", field: "duration", change: "stringify" }],
    });
    const both = serveRow(profile, 1, cdr(1), ANSWERED);
    expect(both.change).toBe("nullCharge");
    expect(both.change !== null && both.fields).toMatchObject({ charge: null, duration: "61" });
    expect(both.change !== null && isValidRow("cdrs", both.fields)).toBe(false);
    const unbilled = JSON.stringify({ ...row(), disposition: "busy", duration: 0 });
    expect(serveRow(profile, 1, cdr(1), unbilled).change).toBe("drift");
    expect(cdrSchema.safeParse(JSON.parse(ANSWERED)).success).toBe(true);
  });
});
