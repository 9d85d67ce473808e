import { BUILT_IN_PROFILES, resolveFaultProfile } from "@telecom-etl/sandbox/faults/fault-profile.js";
import { applyDrift, type DriftRule } from "@telecom-etl/sandbox/faults/schema-drift.js";
import { altersRows, isValidRow, serveRow } from "@telecom-etl/sandbox/faults/served-row.js";
import { describe, expect, it } from "vitest";

const ANSWERED =
  '{"date":"2026-08-01T10:00:00Z","from":"12125550100","to":"442071234567","disposition":"answered","duration":61,' +
  '"destination":"United Kingdom","per_minute":"0.015","charge":"0.03","sip_trunk":"sip1a001","uuid":"u-1","parent_uuid":null,"answered_by":null}';
const row = () => JSON.parse(ANSWERED) as Record<string, unknown>;

describe("schema drift of a row", () => {
  it.each<[DriftRule, (r: Record<string, unknown>) => void]>([
    [
      { stream: "cdrs", field: "uuid", change: "rename", to: "call_uuid" },
      (r) => {
        expect(Object.keys(r).indexOf("call_uuid")).toBe(Object.keys(row()).indexOf("uuid"));
        expect(r.call_uuid).toBe("u-1");
        expect(r).not.toHaveProperty("uuid");
      },
    ],
    [
      { stream: "cdrs", field: "destination", change: "remove" },
      (r) => expect(r).not.toHaveProperty("destination"),
    ],
    [{ stream: "cdrs", field: "duration", change: "stringify" }, (r) => expect(r.duration).toBe("61")],
    [{ stream: "cdrs", field: "charge", change: "nullify" }, (r) => expect(r.charge).toBeNull()],
  ])("applies %j", (rule, check) => {
    const r = row();
    expect(applyDrift(r, [rule])).toBe(true);
    check(r);
  });

  it("leaves rows without the field, strings it would stringify and nulls it would nullify unchanged", () => {
    for (const rule of [
      { stream: "cdrs", field: "forward_fee", change: "remove" },
      { stream: "cdrs", field: "charge", change: "stringify" },
      { stream: "cdrs", field: "parent_uuid", change: "nullify" },
      { stream: "cdrs", field: "uuid", change: "rename", to: "uuid" },
    ] as const) {
      const r = row();
      expect(applyDrift(r, [rule])).toBe(false);
      expect(JSON.stringify(r)).toBe(ANSWERED);
    }
  });

  it("renames onto an existing field by replacing it", () => {
    const r = { uuid: "u-1", call_id: "old", x: 1 };
    expect(applyDrift(r, [{ stream: "cdrs", field: "uuid", change: "rename", to: "call_id" }])).toBe(true);
    expect(JSON.stringify(r)).toBe('{"call_id":"u-1","x":1}');
  });

  it("refuses a rename without `to`, `to` on other changes, and unknown streams or changes", () => {
    expect(() =>
      resolveFaultProfile({ drift: [{ stream: "cdrs", field: "uuid", change: "rename" }] }),
    ).toThrow(/^faults: drift\.0\.to: a rename needs `to`/);
    expect(() =>
      resolveFaultProfile({ drift: [{ stream: "cdrs", field: "uuid", change: "remove", to: "x" }] }),
    ).toThrow(/^faults: drift\.0\.to/);
    expect(() =>
      resolveFaultProfile({ drift: [{ stream: "calls", field: "uuid", change: "remove" }] }),
    ).toThrow(/^faults: drift\.0\.stream/);
    expect(() =>
      resolveFaultProfile({ drift: [{ stream: "cdrs", field: "uuid", change: "retype" }] }),
    ).toThrow(/^faults: drift\.0\.change/);
    const profile = resolveFaultProfile({
      drift: [{ stream: "invoices", field: "amount", change: "stringify" }],
    });
    expect(altersRows(profile, "invoices")).toBe(true);
    expect(altersRows(profile, "cdrs")).toBe(false);
  });

  it("is served to every row of its stream, named drift, valid or not by the platform's schema", () => {
    const rename = resolveFaultProfile({
      drift: [{ stream: "cdrs", field: "uuid", change: "rename", to: "call_uuid" }],
    });
    const identity = { stream: "cdrs" as const, account: 2, day: 20_666, index: 5 };
    const served = serveRow(rename, 1, identity, ANSWERED);
    expect(served.change).toBe("drift");
    expect(served.change !== null && isValidRow("cdrs", served.fields)).toBe(false);
    const withCallId = ANSWERED.replace('"uuid":"u-1",', '"uuid":"u-1","call_id":"u-1",');
    const kept = serveRow(rename, 1, identity, withCallId);
    expect(kept.change !== null && isValidRow("cdrs", kept.fields)).toBe(true);
    expect(BUILT_IN_PROFILES.hostile.drift).toEqual([]);
    expect(altersRows(BUILT_IN_PROFILES.none, "cdrs")).toBe(false);
  });
});
