import { cdrDetailSchema, cdrSchema } from "@telecom-etl/platform/cdr.js";
import { describe, expect, it } from "vitest";

/** The shared CDR schema reads rows of both API revisions: 2024 `uuid`, 2026 `call_id` (with or without `uuid`). */

const ROW = {
  date: "2026-08-01T10:00:00Z",
  from: "12125550100",
  to: "442071234567",
  disposition: "answered",
  duration: 61,
  destination: "United Kingdom",
  per_minute: "0.015",
  charge: "0.03",
  sip_trunk: "sip1a001",
  answered_by: null,
};

describe("cdrSchema across API revisions", () => {
  it.each([
    ["2024", { uuid: "u-1", parent_uuid: null }],
    ["2026", { uuid: "u-1", call_id: "u-1", parent_uuid: "p-1", parent_call_id: "p-1" }],
    ["2026 without deprecated fields", { call_id: "u-1", parent_call_id: null }],
  ])("accepts a %s row", (_, ids) => {
    expect(cdrSchema.safeParse({ ...ROW, ...ids }).success).toBe(true);
    expect(cdrDetailSchema.safeParse({ ...ROW, ...ids, recording_url: null }).success).toBe(true);
  });

  it("refuses a row without any call id, with one issue on uuid", () => {
    for (const schema of [cdrSchema, cdrDetailSchema]) {
      const parsed = schema.safeParse({ ...ROW, parent_uuid: null, recording_url: null });
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues).toHaveLength(1);
      expect(parsed.error!.issues[0]).toMatchObject({ path: ["uuid"] });
      expect(parsed.error!.issues[0]!.message).toMatch(/^Invalid input: expected string, received undefined/);
      expect(parsed.error!.issues[0]!.message).not.toContain("\n");
    }
  });

  it("refuses an empty call id and keeps the other fields' checks", () => {
    expect(cdrSchema.safeParse({ ...ROW, call_id: "" }).success).toBe(false);
    expect(cdrSchema.safeParse({ ...ROW, call_id: "u-1", duration: "61" }).success).toBe(false);
  });

  it("stays an object schema whose shape names all four id fields (unknown fields go to _extra)", () => {
    expect(Object.keys(cdrSchema.shape)).toEqual(
      expect.arrayContaining(["uuid", "call_id", "parent_uuid", "parent_call_id"]),
    );
    expect(Object.keys(cdrDetailSchema.shape)).toContain("recording_url");
    const parsed = cdrSchema.parse({ ...ROW, call_id: "u-1", call_uuid: "u-1" });
    expect(parsed).toMatchObject({ call_uuid: "u-1" });
  });
});
