import { cdrDetailSchema, cdrSchema } from "@telecom-etl/platform/cdr.js";
import type { SandboxOptions } from "@telecom-etl/sandbox";
import { describe, expect } from "vitest";
import { exchangeDigest, listAllCdrs, ndjson, ndjsonLines, platform, sandboxTest } from "./sandbox-client.js";

/**
 * CDR rows of API revision 2026 over HTTP: `call_id` and `parent_call_id` right after `uuid` and
 * `parent_uuid` (same values), neither deprecated field with `dropDeprecated`; every other byte as
 * in 2024; the truth export serves rows byte for byte as the list does; same options → same bytes.
 */

const WORLD = { seed: 31, days: 5, callsPerDay: 250, now: "2026-08-06T00:00:00Z" } as const;
const HOSTILE: SandboxOptions = {
  ...WORLD,
  apiRevision: "2026",
  faults: { base: "hostile", hangMs: 0, latencySpikeMs: 0 },
};
const test = sandboxTest({
  v2024: WORLD,
  v2026: { ...WORLD, apiRevision: "2026" },
  lean: { ...WORLD, apiRevision: "2026", dropDeprecated: true },
  hostileA: HOSTILE,
  hostileB: HOSTILE,
  otherSeed: { ...HOSTILE, seed: 32 },
});
const WINDOW = "from=2026-08-02&to=2026-08-03";
const ID_FIELDS = ["uuid", "call_id", "parent_uuid", "parent_call_id"];

/** A row's JSON without the given fields (key order kept). */
function without(row: Record<string, unknown>, fields: readonly string[]): string {
  return JSON.stringify(Object.fromEntries(Object.entries(row).filter(([key]) => !fields.includes(key))));
}

/** The fields of a row from `sip_trunk`/`forward_fee` on: where the ids sit. */
function idKeys(row: Record<string, unknown>): string[] {
  const keys = Object.keys(row);
  return keys.slice(keys.indexOf("sip_trunk") + 1);
}

describe("sandbox API revision 2026: CDR rows", () => {
  test.for(["placed", "received"])(
    "2026 %s rows carry call_id and parent_call_id after uuid and parent_uuid; the rest is 2024's bytes",
    async (type, { sandboxes }) => {
      const old = await listAllCdrs(sandboxes.v2024, "/v1/cdr", `${WINDOW}&type=${type}`);
      const now = await listAllCdrs(sandboxes.v2026, "/v1/cdrs", `${WINDOW}&type=${type}`);
      const lean = await listAllCdrs(sandboxes.lean, "/v1/cdrs", `${WINDOW}&type=${type}`);
      expect(now.rows.length).toBeGreaterThan(100);
      expect(now.rows).toHaveLength(old.rows.length);
      expect(lean.rows).toHaveLength(old.rows.length);
      let children = 0;
      now.rows.forEach((row, i) => {
        const parsed = cdrSchema.parse(row);
        expect(Object.keys(row).filter((key) => !(key in cdrSchema.shape))).toEqual([]);
        expect(parsed.call_id).toBe(parsed.uuid);
        expect(parsed.parent_call_id).toBe(parsed.parent_uuid);
        if (parsed.parent_call_id !== null) children += 1;
        expect(idKeys(row)).toEqual([
          ...(row.forward_fee === undefined ? [] : ["forward_fee"]),
          "uuid",
          "call_id",
          "parent_uuid",
          "parent_call_id",
          "answered_by",
        ]);
        expect(without(row, ["call_id", "parent_call_id"])).toBe(JSON.stringify(old.rows[i]));
        const leanRow = lean.rows[i]!;
        expect(cdrSchema.safeParse(leanRow).success).toBe(true);
        expect(idKeys(leanRow).filter((key) => ID_FIELDS.includes(key))).toEqual([
          "call_id",
          "parent_call_id",
        ]);
        expect(JSON.stringify(leanRow)).toBe(without(row, ["uuid", "parent_uuid"]));
      });
      if (type === "placed") expect(children).toBeGreaterThan(0);
      // Served bytes are what JSON.stringify writes for the parsed rows (hand-written serializer).
      for (const page of [...now.pages, ...lean.pages]) expect(JSON.stringify(JSON.parse(page))).toBe(page);
    },
  );

  test("the single CDR has the same ids (and recording_url); the uuid filter finds a lean row", async ({
    sandboxes,
  }) => {
    const query = `${WINDOW}&type=placed&disposition=answered`;
    const now = await listAllCdrs(sandboxes.v2026, "/v1/cdrs", query);
    const lean = await listAllCdrs(sandboxes.lean, "/v1/cdrs", query);
    for (const [sandbox, rows, fields] of [
      [sandboxes.v2026, now.rows, ["uuid", "call_id", "parent_uuid", "parent_call_id"]],
      [sandboxes.lean, lean.rows, ["call_id", "parent_call_id"]],
    ] as const) {
      const row = rows.find((r) => r.parent_call_id !== null) ?? rows[0]!;
      const single = await platform(sandbox, `/v1/cdrs/${row.call_id}`);
      expect(single.status).toBe(200);
      const detail = cdrDetailSchema.parse(single.body);
      expect(Object.keys(single.body as object).filter((key) => ID_FIELDS.includes(key))).toEqual(fields);
      expect(without(detail, ["recording_url"])).toBe(JSON.stringify(row));
      const filtered = await platform(sandbox, `/v1/cdrs?${query}&uuid=${row.call_id}`);
      expect((filtered.body as { items: unknown[] }).items).toEqual([row]);
    }
  });

  test.for(["v2026", "lean"] as const)(
    "%s: the truth export serves the rows byte for byte as the list does, plus direction",
    async (name, { sandboxes }) => {
      const sandbox = sandboxes[name];
      const truth = await ndjsonLines(sandbox, `/_sandbox/truth/cdrs?account=master&${WINDOW}`);
      const served = new Set<string>();
      for (const type of ["placed", "received"]) {
        const { rows } = await listAllCdrs(sandbox, "/v1/cdrs", `${WINDOW}&type=${type}`);
        for (const row of rows) served.add(`${JSON.stringify(row).slice(0, -1)},"direction":"${type}"}`);
      }
      expect(truth.length).toBe(served.size);
      expect(truth.filter((line) => !served.has(line))).toEqual([]);
      const late = await ndjson<Record<string, unknown>>(
        sandbox,
        `/_sandbox/truth/cdrs/late?account=master&${WINDOW}`,
      );
      expect(late.length).toBeGreaterThan(0);
      for (const row of late) {
        expect(cdrSchema.safeParse(row).success).toBe(true);
        expect("call_id" in row).toBe(true);
        expect("uuid" in row).toBe(name === "v2026");
      }
    },
  );

  test("a row fault's missing call id removes both ids, so the row is rejected", async ({ sandboxes }) => {
    const sandbox = sandboxes.hostileA;
    const malformed = await ndjson<{ kind: string; rejected: boolean; raw: Record<string, unknown> }>(
      sandbox,
      "/_sandbox/truth/cdrs/malformed?account=master",
    );
    // Rows that still have the other two candidates lost their call id.
    const missingIds = malformed.filter(
      (m) => m.kind === "missing_field" && "disposition" in m.raw && "from" in m.raw,
    );
    expect(missingIds.length).toBeGreaterThan(0);
    for (const line of missingIds) {
      expect(line.raw).not.toHaveProperty("uuid");
      expect(line.raw).not.toHaveProperty("call_id");
      expect(line.rejected).toBe(true);
      expect(cdrSchema.safeParse(line.raw).success).toBe(false);
    }
  });

  test("same seed and options give byte-identical 2026 answers, faults included; another seed another world", async ({
    sandboxes,
  }) => {
    // hostileA and hostileB have served no platform request before (faults depend on the request sequence).
    const { hostileA, hostileB, otherSeed } = sandboxes;
    const transcribed = (
      await ndjson<{ call_uuid: string }>(hostileA, `/_sandbox/truth/transcriptions?account=master&${WINDOW}`)
    ).slice(0, 4);
    const recorded = (
      await ndjson<{ call_uuid: string }>(hostileA, `/_sandbox/truth/recordings?account=master&${WINDOW}`)
    ).slice(0, 3);
    const steps: { method: string; path: string; admin?: boolean }[] = [];
    for (const type of ["placed", "received"]) {
      for (let page = 1; page <= 4; page++) {
        const path = `/v1/cdrs?from=2026-08-02&to=2026-08-02&type=${type}&per_page=40&page=${page}`;
        steps.push({ method: "GET", path }, { method: "GET", path });
      }
    }
    for (const { call_uuid } of transcribed) {
      steps.push(
        { method: "GET", path: `/v1/cdrs/${call_uuid}?show_transcription=true` },
        { method: "GET", path: `/v1/cdrs/${call_uuid}/transcription` },
        { method: "GET", path: `/v1/cdrs/${call_uuid}/transcriptions` },
      );
    }
    expect(recorded.length).toBeGreaterThan(0);
    for (const { call_uuid } of recorded) steps.push({ method: "GET", path: `/v1/recordings/${call_uuid}` });
    for (let page = 1; page <= 3; page++) {
      const path = `/v1/recordings?from_date=2026-08-02&to_date=2026-08-02&per_page=20&page=${page}`;
      steps.push({ method: "GET", path }, { method: "GET", path });
    }
    for (const stream of [
      "cdrs",
      "cdrs/malformed",
      "cdrs/late",
      "transcriptions",
      "recordings",
      "recordings/malformed",
    ]) {
      steps.push({ method: "GET", path: `/_sandbox/truth/${stream}?account=master&${WINDOW}`, admin: true });
    }
    const a: string[] = [];
    const b: string[] = [];
    for (const step of steps) a.push(await exchangeDigest(hostileA, step));
    for (const step of steps) b.push(await exchangeDigest(hostileB, step));
    expect(b).toEqual(a);
    // The hostile profile really interfered.
    expect(a.filter((s) => !s.startsWith("200")).length).toBeGreaterThan(0);
    expect(a.filter((s) => s.startsWith("200")).length).toBeGreaterThan(steps.length / 2);
    const truth = { method: "GET", path: `/_sandbox/truth/cdrs?account=master&${WINDOW}`, admin: true };
    expect(await exchangeDigest(otherSeed, truth)).not.toBe(await exchangeDigest(hostileA, truth));
  });
});
