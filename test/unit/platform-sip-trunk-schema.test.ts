import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { parseJsonExact } from "@telecom-etl/platform/exact-number.js";
import { describe, expect, it } from "vitest";
import { KnownSecrets } from "../../src/core/known-secrets.js";
import { parseRow } from "../../src/pipeline/extract/parse-rows.js";
import { sipTrunksStream } from "../../src/streams/sip-trunks.js";
import type { StreamDefinition } from "../../src/streams/stream-definition.js";

/**
 * A trunk as the platform's list summarises it (platform-facts.md; the platform's public reference
 * for what the facts leave open): the values the facts allow load, others become a reject whose
 * one-line reason names the field, and the trunk's access_token is in no column, no `_extra` and no
 * stored reject.
 */
const stream = sipTrunksStream as StreamDefinition;
const TOKEN = "0123456789abcdef0123456789abcdef";

/** A trunk summary as the facts list its fields. */
function trunk(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 7,
    name: "sip7a123",
    label: "Main office",
    callerid: "15550001111",
    auth_method: "Digest",
    host_request: null,
    status: "active",
    charge: "12.3456",
    talk_time: 5400,
    passthrough: false,
    multiple_numbers: false,
    encrypted_media: true,
    call_recording_enabled: true,
    machine_detection_enabled: false,
    transcription_enabled: true,
    transcription_threshold: 6,
    access_token: TOKEN,
    ...extra,
  };
}

function load(raw: Record<string, unknown>) {
  const parsed = parseRow(stream, raw, {}, new KnownSecrets());
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.reject.issues));
  return parsed.row;
}

describe("SIP trunk summaries", () => {
  it("loads a summary; the access_token is neither a column nor in _extra", () => {
    const row = load(trunk());
    expect(row.columns).toMatchObject({
      charge: "12.3456",
      talk_time: 5400,
      host_request: null,
      status: "active",
    });
    expect(JSON.stringify(row)).not.toContain(TOKEN);
  });

  it("accepts a callerid that is null or empty, an IP-auth request object, and labels beyond the known ones", () => {
    expect(load(trunk({ callerid: null })).columns.callerid).toBeNull();
    expect(load(trunk({ callerid: "" })).columns.callerid).toBe("");
    const ip = load(
      trunk({
        auth_method: "IP auth",
        host_request: { host: "198.51.100.7", status: "pending" },
        status: "pending",
      }),
    );
    expect(ip.columns.host_request).toEqual({ host: "198.51.100.7", status: "pending" });
    expect(load(trunk({ status: "suspended", auth_method: "Token" })).columns).toMatchObject({
      status: "suspended",
      auth_method: "Token",
    });
  });

  it("reads a charge sent as a JSON number (as the reference's example shows) exactly, from its source text", () => {
    const sent = (charge: string) =>
      parseJsonExact(JSON.stringify(trunk()).replace('"charge":"12.3456"', `"charge":${charge}`), [
        ...CATALOGUE.sip_trunks.exactNumbers,
      ]) as Record<string, unknown>;
    expect(load(sent("87.26")).columns.charge).toBe("87.26");
    expect(load(sent("0")).columns.charge).toBe("0");
    expect(load(sent("12.345678901234567")).columns.charge).toBe("12.345678901234567");
    expect(load(sent("87.50")).columns.charge).toBe("87.50");
  });

  it("keeps a field the facts do not list (the reference's passthrough_request) in _extra", () => {
    const row = load(trunk({ passthrough_request: null }));
    expect(JSON.stringify(row)).toContain("passthrough_request");
  });

  it("rejects a bad value with the field named, and masks the access_token in the stored reject", () => {
    for (const [field, value] of [
      ["charge", "12,50"],
      ["talk_time", -1],
      ["talk_time", "60"],
      ["host_request", "198.51.100.7"],
    ] as const) {
      const parsed = parseRow(stream, trunk({ [field]: value }), {}, new KnownSecrets());
      expect(parsed.ok, `${field}: ${String(value)}`).toBe(false);
      if (parsed.ok) continue;
      expect(parsed.reject.issues.map((i) => i.path)).toContain(field);
      expect(JSON.stringify(parsed.reject)).not.toContain(TOKEN);
      expect((parsed.reject.raw as Record<string, unknown>).access_token).toBe("***");
    }
  });
});
