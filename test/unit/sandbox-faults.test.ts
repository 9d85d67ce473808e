import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { cdrSchema } from "@telecom-etl/platform/cdr.js";
import { invoiceSchema } from "@telecom-etl/platform/invoice.js";
import { messageSchema } from "@telecom-etl/platform/message.js";
import { recordingSchema } from "@telecom-etl/platform/recording.js";
import type { PlatformResource } from "@telecom-etl/platform/resource.js";
import { shortLinkMetricSchema } from "@telecom-etl/platform/short-link-metric.js";
import { FaultInjector } from "@telecom-etl/sandbox/faults/fault-injector.js";
import {
  BUILT_IN_PROFILES,
  ROW_FAULTS,
  resolveFaultProfile,
} from "@telecom-etl/sandbox/faults/fault-profile.js";
import { RateLimiter } from "@telecom-etl/sandbox/faults/rate-limiter.js";
import { corruptRow, isRejected, rowFaultOf } from "@telecom-etl/sandbox/faults/row-faults.js";
import { type HandListStream, LIST_STREAMS } from "@telecom-etl/sandbox/list-streams.js";
import { describe, expect, it } from "vitest";
import type { z } from "zod";

const CDR =
  '{"date":"2026-08-01T10:00:00Z","from":"12125550100","to":"442071234567","disposition":"answered","duration":61,' +
  '"destination":"United Kingdom","per_minute":"0.015","charge":"0.03","sip_trunk":"sip1a001","uuid":"u-1","parent_uuid":null,"answered_by":null}';
const CLICK =
  '{"latitude":40.7,"longitude":-74,"operating_system":"iOS","browser":"Safari","language":"en-US","phone":"12125550100",' +
  '"utm_campaign":"spring","created_at":"2026-08-01 10:00:00.120Z","link_hash":"abc1234","user_id":510001}';
const INVOICE = '{"id":700320,"from_date":"2026-08-01","to_date":"2026-08-31","amount":"123.45"}';
const MESSAGE =
  '{"message_id":"m-1","message_type":"sms","from":"12125550100","to":"442071234567","direction":"outbound",' +
  '"mcc":"234","mnc":"15","message_body":{"text":"hello","media":null},"tag":"spring","status":"delivered","segments":1,' +
  '"charge":"0.0075","carrier_fees":"0.0025","submitted_at":"2026-08-01T10:00:00Z","sent_at":"2026-08-01T10:00:01Z",' +
  '"delivered_at":"2026-08-01T10:00:03Z","error_message":null}';
const RECORDING =
  '{"id":187612048001,"created_at":"2026-08-01T10:01:02Z","duration":61,"from":"12125550100","to":"442071234567",' +
  '"call_uuid":"9a1e4c2b-0d3f-4a7b-8c9d-0e1f2a3b4c5d","url":"https://recordings.sandbox.test/acme/u-1.mp3"}';

describe("sandbox fault profiles", () => {
  it("resolves built-in names and custom mixes over a base", () => {
    expect(resolveFaultProfile("none")).toBe(BUILT_IN_PROFILES.none);
    const custom = resolveFaultProfile({
      base: "flaky",
      requests: { http500: 0.5 },
      rows: { extraField: 0.1 },
    });
    expect(custom.requests.http500).toBe(0.5);
    expect(custom.requests.http429).toBe(BUILT_IN_PROFILES.flaky.requests.http429);
    expect(custom.rows.extraField).toBe(0.1);
  });

  it("refuses invalid profiles with the offending field", () => {
    expect(() => resolveFaultProfile({ requests: { http500: 2 } })).toThrow(/requests\.http500/);
    expect(() => resolveFaultProfile({ bogus: 1 })).toThrow(/faults/);
    expect(() => resolveFaultProfile("/nonexistent/profile.json")).toThrow(/readable JSON file/);
  });
});

describe("sandbox row faults", () => {
  const profile = resolveFaultProfile({
    rows: { wrongType: 0.05, missingField: 0.05, unknownEnum: 0.05, extraField: 0.05 },
  });

  it("decides per row only, at about the configured rates", () => {
    const counts = new Map<string, number>();
    for (let index = 0; index < 20_000; index++) {
      const row = { stream: "cdrs" as const, account: 0, day: 20_666, index };
      const fault = rowFaultOf(profile, 3, row);
      expect(rowFaultOf(profile, 3, row)).toBe(fault);
      counts.set(fault ?? "none", (counts.get(fault ?? "none") ?? 0) + 1);
    }
    for (const fault of ROW_FAULTS)
      expect(Math.abs((counts.get(fault) ?? 0) / 20_000 - 0.05)).toBeLessThan(0.01);
  });

  it("makes rejected corruptions invalid and extra fields valid, for every list stream", () => {
    // One valid row of each list stream: a list given faults by hand without one fails to compile;
    // a scaffolded list's is its catalogue entry's `example` (its corruptions derive from its schema).
    const cases: Readonly<Record<HandListStream, { json: string; schema: z.ZodType }>> = {
      cdrs: { json: CDR, schema: cdrSchema },
      short_link_metrics: { json: CLICK, schema: shortLinkMetricSchema },
      invoices: { json: INVOICE, schema: invoiceSchema },
      messages: { json: MESSAGE, schema: messageSchema },
      recordings: { json: RECORDING, schema: recordingSchema },
    };
    for (const stream of LIST_STREAMS) {
      const resource: PlatformResource = CATALOGUE[stream];
      const { json, schema } = Object.hasOwn(cases, stream)
        ? cases[stream as HandListStream]
        : { json: JSON.stringify(resource.example), schema: resource.item };
      expect(json, `${stream}: a valid row`).toBeDefined();
      expect(schema.safeParse(JSON.parse(json)).success).toBe(true);
      for (const fault of ROW_FAULTS) {
        for (let index = 0; index < 4; index++) {
          const corrupted = corruptRow({ stream, account: 1, day: 2, index }, json, fault, 5);
          expect(corruptRow({ stream, account: 1, day: 2, index }, json, fault, 5)).toBe(corrupted);
          expect(schema.safeParse(JSON.parse(corrupted)).success).toBe(!isRejected(fault));
        }
      }
    }
  });
});

describe("sandbox request faults and rate limit", () => {
  it("decides the same faults for the same request sequence, and retries afresh", () => {
    const profile = resolveFaultProfile({ requests: { http503: 0.5 } });
    const run = () => {
      const injector = new FaultInjector(profile, 1);
      return Array.from(
        { length: 40 },
        () => injector.decide("GET /v1/cdr", () => "GET /v1/cdr?page=1#0").request,
      );
    };
    const first = run();
    expect(run()).toEqual(first);
    expect(new Set(first)).toEqual(new Set([null, "http503"]));
  });

  it("lets a burst of one second through, then asks to wait", () => {
    const limiter = new RateLimiter(2);
    expect([limiter.take("k", 0), limiter.take("k", 0)]).toEqual([0, 0]);
    expect(limiter.take("k", 0)).toBe(500);
    expect(limiter.take("other", 0)).toBe(0);
    expect(limiter.take("k", 500)).toBe(0);
  });
});
