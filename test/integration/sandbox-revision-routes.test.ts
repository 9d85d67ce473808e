import type { ApiRevision } from "@telecom-etl/platform/api-revision.js";
import { callTranscriptionSchema } from "@telecom-etl/platform/call-transcription.js";
import { CATALOGUE, catalogueEntries, type ResourceName } from "@telecom-etl/platform/catalogue.js";
import { cdrDetailSchema } from "@telecom-etl/platform/cdr.js";
import { ERROR_MESSAGES, pendingBodySchema } from "@telecom-etl/platform/common.js";
import { didSchema } from "@telecom-etl/platform/numbers.js";
import { PLATFORM_ROUTES, type PlatformRoute, routesOf } from "@telecom-etl/platform/permissions.js";
import { type Recording, recordingSchema } from "@telecom-etl/platform/recording.js";
import { validationResponseSchema } from "@telecom-etl/platform/validation.js";
import type { RunningSandbox } from "@telecom-etl/sandbox";
import { describe, expect } from "vitest";
import { answered, published } from "../helpers/catalogue-schemas.js";
import { admin, ndjson, platform, sandboxTest } from "./sandbox-client.js";

/**
 * API revisions over HTTP: a sandbox serves exactly the routes of its revision (the other
 * revision's paths answer 404 Record not found, so a client can tell which one it talks to), and
 * the 2026-only routes answer bodies that fit their schemas, with their permissions.
 */

const WORLD = { seed: 23, days: 6, callsPerDay: 150, now: "2026-08-07T00:00:00Z" } as const;
const test = sandboxTest({
  v2024: { ...WORLD },
  v2026: { ...WORLD, apiRevision: "2026" },
});
const NOT_FOUND = { success: false, message: ERROR_MESSAGES.notFound };
const RANGE = "account=master&from=2026-08-02&to=2026-08-03";

/** Fields a schema does not list (the bodies must carry none). */
function unknownFields(schema: { shape: object }, value: unknown): string[] {
  return Object.keys(value as object).filter((key) => !(key in schema.shape));
}

/** Ids of the master's world to put in route paths: a call with a transcription, one with a recording, ... */
async function idsOf(sandbox: RunningSandbox): Promise<Record<string, string>> {
  const account = sandbox.world.accounts[0]!;
  const recording = (await ndjson<{ call_uuid: string }>(sandbox, `/_sandbox/truth/recordings?${RANGE}`))[0]!;
  const transcribed = (
    await ndjson<{ call_uuid: string; status: string }>(sandbox, `/_sandbox/truth/transcriptions?${RANGE}`)
  ).find((t) => t.status === "completed")!;
  // speech-analytics answers only uploaded files' transcription requests.
  const upload = (
    await ndjson<{ request_id: string; status: string }>(
      sandbox,
      "/_sandbox/truth/uploaded_transcriptions?account=master&from=2026-08-01&to=2026-08-06",
    )
  ).find((u) => u.status !== "pending")!;
  const world = await admin<{
    accounts: { brands: { brand_id: string; campaigns: { campaign_id: string }[] }[] }[];
  }>(sandbox, "/_sandbox/world");
  const brand = world.accounts[0]!.brands[0]!;
  return {
    id: String(account.dids[0]!.id),
    country: "1",
    country_id: "1",
    city: "101",
    city_id: "101",
    uuid: transcribed.call_uuid,
    call_id: transcribed.call_uuid,
    recorded: recording.call_uuid,
    upload: upload.request_id,
    token: account.validations[0]!.token,
    sub: String(sandbox.world.accounts[1]!.id),
    trunk: String(account.trunks[0]!.id),
    brand_id: brand.brand_id,
    campaign_id: brand.campaigns[0]!.campaign_id,
  };
}

/** The catalogue resource whose path (in either revision) `path` is, if any. */
function resourceAt(path: string): ResourceName | undefined {
  return catalogueEntries().find(({ resource }) => Object.values(resource.paths).includes(path))?.name;
}

/** The id (of `idsOf`) that fills every `{...}` of a catalogue resource's path, where its name does not say. */
const ID_OF_RESOURCE: Partial<Record<ResourceName, string>> = {
  validation: "token",
  uploaded_transcription: "upload",
  sub_account: "sub",
  sub_account_transactions: "sub",
};

/** A concrete request for a route: its path with real ids, and a query a list needs. */
function requestOf(route: PlatformRoute, ids: Record<string, string>): string {
  const resource = resourceAt(route.path);
  const byResource = resource === undefined ? undefined : ID_OF_RESOURCE[resource];
  const path = route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    if (byResource !== undefined) return ids[byResource]!;
    // Routes the catalogue does not declare (one recording, one trunk).
    if (route.path.startsWith("/v1/recordings/")) return ids.recorded!;
    if (route.path.startsWith("/v1/trunks/")) return ids.trunk!;
    return ids[name]!;
  });
  if (route.method !== "GET") return path;
  if (resource === "cdrs") return `${path}?from=2026-08-02&to=2026-08-02&type=placed`;
  if (resource === "short_link_metrics") return `${path}?from=2026-08-02&to=2026-08-02`;
  return path;
}

/** A route's path with its parameters blanked: two routes with the same shape answer the same URLs. */
const shapeOf = (route: PlatformRoute) => `${route.method} ${route.path.replace(/\{[a-z_]+\}/g, "{}")}`;

describe("sandbox API revisions: routes", () => {
  test.for(["2024", "2026"] as const)(
    "revision %s serves its routes and answers 404 Record not found on the other revision's paths",
    async (revision: ApiRevision, { sandboxes }) => {
      const sandbox = revision === "2024" ? sandboxes.v2024 : sandboxes.v2026;
      const ids = await idsOf(sandbox);
      const served = new Set(routesOf(revision).map(shapeOf));
      const answers: { route: string; mine: boolean; status: number; body: unknown }[] = [];
      for (const route of PLATFORM_ROUTES) {
        const mine = (route.revisions as readonly string[]).includes(revision);
        // A route renamed only in its parameters answers the same URLs in both revisions.
        if (!mine && served.has(shapeOf(route))) continue;
        const answer = await platform(sandbox, requestOf(route, ids), {
          method: route.method,
          ...(route.method === "GET" || route.method === "DELETE" ? {} : { body: {} }),
        });
        answers.push({
          route: `${route.method} ${route.path}`,
          mine,
          status: answer.status,
          body: answer.body,
        });
      }
      // Every route of the revision is routed to its handler (which answers 200, 202 or 400 here).
      expect(answers.filter((a) => a.mine && [404, 405].includes(a.status))).toEqual([]);
      const others = answers.filter((a) => !a.mine);
      expect(others.length).toBeGreaterThan(0);
      expect(
        others.filter((a) => a.status !== 404 || JSON.stringify(a.body) !== JSON.stringify(NOT_FOUND)),
      ).toEqual([]);
      const { world } = sandboxes.v2026;
      expect(world.seed).toBe(WORLD.seed);
      const view = await admin<{ api_revision: string; drop_deprecated: boolean }>(
        sandbox,
        "/_sandbox/world",
      );
      expect(view).toMatchObject({ api_revision: revision, drop_deprecated: false });
    },
  );

  test("counts requests under the route templates of the active revision", async ({ sandboxes }) => {
    const sandbox = sandboxes.v2026;
    const before = await admin<{ routes: Record<string, Record<string, number>> }>(
      sandbox,
      "/_sandbox/stats",
    );
    await platform(sandbox, "/v1/cdrs?from=2026-08-02&to=2026-08-02&type=received");
    await platform(sandbox, "/v1/cdr?from=2026-08-02&to=2026-08-02&type=received");
    const after = await admin<{ routes: Record<string, Record<string, number>> }>(sandbox, "/_sandbox/stats");
    expect(after.routes["GET /v1/cdrs"]?.["200"]).toBe((before.routes["GET /v1/cdrs"]?.["200"] ?? 0) + 1);
    expect(after.routes.unmatched?.["404"]).toBe((before.routes.unmatched?.["404"] ?? 0) + 1);
    expect(after.routes["GET /v1/cdr"]).toBeUndefined();
  });
});

describe("sandbox API revision 2026: the renamed and new routes", () => {
  test("serves a call's transcription in the 2026 shape at .../transcription and .../transcriptions", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.v2026;
    const truth = (await ndjson(sandbox, `/_sandbox/truth/transcriptions?${RANGE}`)).map((t) =>
      callTranscriptionSchema.parse(t),
    );
    expect(truth.length).toBeGreaterThan(5);
    expect(new Set(truth.map((t) => t.status))).toContain("completed");
    for (const expected of truth.slice(0, 12)) {
      const one = await platform(sandbox, `/v1/cdrs/${expected.call_uuid}/transcription`);
      const alias = await platform(sandbox, `/v1/cdrs/${expected.call_uuid}/transcriptions`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(expected);
      expect(alias.text).toBe(one.text);
      expect(unknownFields(callTranscriptionSchema, one.body)).toEqual([]);
      const cdr = cdrDetailSchema.parse((await platform(sandbox, `/v1/cdrs/${expected.call_uuid}`)).body);
      expect(expected).toMatchObject({ date: cdr.date, call_date: cdr.date, from: cdr.from, to: cdr.to });
      expect(Object.keys(expected.transcript)).toEqual([cdr.from, cdr.to]);
      if (expected.status === "completed") {
        expect(new Set(expected.turns!.map((t) => t.type))).toEqual(new Set([cdr.from, cdr.to]));
        expect(Number(expected.call_score)).toBeGreaterThanOrEqual(1);
        expect(Number(expected.call_score)).toBeLessThanOrEqual(5);
      }
      // The transcription's own id is not the call's, and is the same on every read.
      expect(expected.uuid).not.toBe(expected.call_uuid);
      const withIt = await platform(sandbox, `/v1/cdrs/${expected.call_uuid}?show_transcription=true`);
      expect((withIt.body as { transcription: unknown }).transcription).toEqual(expected);
    }
    // The same transcription as the 2024 body under the CDR of the same world, plus the call's date, from, to.
    const completed = truth.find((t) => t.status === "completed")!;
    const old = await platform(sandboxes.v2024, `/v1/cdr/${completed.call_uuid}/transcription`);
    const { date: _date, from: _from, to: _to, ...without } = completed;
    expect(old).toMatchObject({ status: 200, body: without });
    expect(Object.keys(old.body as object).sort()).toEqual(Object.keys(without).sort());
    // speech-analytics is for uploaded audio only: a call's uuid there is unknown in both revisions.
    for (const s of [sandbox, sandboxes.v2024]) {
      expect((await platform(s, `/v1/speech-analytics/${completed.call_uuid}`)).status).toBe(404);
    }
  });

  test("answers 202 while the transcription is made and 404 for a call without one", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.v2026;
    const [first] = (await ndjson(sandbox, `/_sandbox/truth/transcriptions?${RANGE}`)).map((t) =>
      callTranscriptionSchema.parse(t),
    );
    const { now } = await admin<{ now: string }>(sandbox, "/_sandbox/clock");
    await admin(sandbox, "/_sandbox/clock", {
      now: new Date(Date.parse(first!.transcription_date) - 1000).toISOString(),
    });
    const pending = await platform(sandbox, `/v1/cdrs/${first!.call_uuid}/transcriptions`);
    await admin(sandbox, "/_sandbox/clock", { now });
    expect(pending.status).toBe(202);
    expect(pendingBodySchema.parse(pending.body)).toEqual({
      success: true,
      message: "The transcription is still pending",
    });
    const calls = (
      await ndjson<{ uuid: string; disposition: string }>(sandbox, `/_sandbox/truth/cdrs?${RANGE}`)
    )
      .filter((c) => c.disposition === "noanswer")
      .map((c) => c.uuid);
    expect(calls.length).toBeGreaterThan(0);
    expect(await platform(sandbox, `/v1/cdrs/${calls[0]}/transcription`)).toMatchObject({
      status: 404,
      body: NOT_FOUND,
    });
    expect((await platform(sandbox, `/v1/cdrs/${calls[0]}/retranscribe`, { method: "POST" })).status).toBe(
      404,
    );
    const retranscribed = await platform(sandbox, `/v1/cdrs/${first!.call_uuid}/retranscribe`, {
      method: "POST",
    });
    expect(retranscribed).toMatchObject({ status: 200, body: { success: true } });
  });

  test.for(["2024", "2026"] as const)(
    "revision %s lists recordings by day and serves a call's recording in the same item shape, 404 without one",
    async (revision: ApiRevision, { sandboxes }) => {
      const sandbox = revision === "2024" ? sandboxes.v2024 : sandboxes.v2026;
      const cdrPath = revision === "2024" ? "/v1/cdr" : "/v1/cdrs";
      const recordings = await ndjson<Recording>(sandbox, `/_sandbox/truth/recordings?${RANGE}`);
      expect(recordings.length).toBeGreaterThan(100);
      const listed: unknown[] = [];
      for (let page = 1; ; page++) {
        const answer = await platform(
          sandbox,
          `/v1/recordings?from_date=2026-08-02&to_date=2026-08-03&page=${page}&per_page=100`,
        );
        expect(answer.status).toBe(200);
        const body = published(CATALOGUE.recordings).parse(answer.body);
        expect(unknownFields(published(CATALOGUE.recordings), answer.body)).toEqual([]);
        listed.push(...(body.recordings ?? []));
        if (page >= body.pagination.total_pages) break;
      }
      // The list (to_date inclusive) is the truth of the two days, in full and in order.
      expect(listed).toEqual(recordings);
      for (const expected of recordings.slice(0, 5)) {
        const answer = await platform(sandbox, `/v1/recordings/${expected.call_uuid}`);
        expect(answer.status).toBe(200);
        expect(recordingSchema.parse(answer.body)).toEqual(expected);
        expect(unknownFields(recordingSchema, answer.body)).toEqual([]);
        const cdr = cdrDetailSchema.parse((await platform(sandbox, `${cdrPath}/${expected.call_uuid}`)).body);
        // One recording per call, made when the call ended, of the call's parties and length.
        expect(cdr).toMatchObject({ recording_url: expected.url, from: expected.from, to: expected.to });
        expect(cdr.duration).toBe(expected.duration);
        expect(Date.parse(expected.created_at)).toBeGreaterThanOrEqual(Date.parse(cdr.date!));
      }
      const without = (
        await ndjson<{ uuid?: string; call_id?: string; disposition: string }>(
          sandbox,
          `/_sandbox/truth/cdrs?${RANGE}`,
        )
      ).find((c) => c.disposition === "busy")!;
      expect(await platform(sandbox, `/v1/recordings/${without.call_id ?? without.uuid}`)).toMatchObject({
        status: 404,
        body: NOT_FOUND,
      });
      expect((await platform(sandbox, "/v1/recordings/not-a-call")).status).toBe(404);
      const reversed = await platform(sandbox, "/v1/recordings?from_date=2026-08-03&to_date=2026-08-02");
      expect(reversed).toMatchObject({
        status: 422,
        body: { success: false, message: "Missing or invalid parameter to_date" },
      });
      const filtered = await platform(
        sandbox,
        `/v1/recordings?from_date=2026-08-02&to_date=2026-08-03&sip_trunks[]=no-such-trunk&from=abc`,
      );
      expect(answered(CATALOGUE.recordings).parse(filtered.body)).toMatchObject({
        recordings: [],
        invalid: { dids: ["abc"], sip_trunks: ["no-such-trunk"] },
      });
    },
  );

  test("serves numbers, the number catalog, validations and speech analytics under their 2026 paths", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.v2026;
    const ids = await idsOf(sandbox);
    const number = await platform(sandbox, `/v1/numbers/${ids.id}`, {
      method: "PUT",
      body: { transcription_threshold: 9 },
    });
    expect(didSchema.parse(number.body).transcription_threshold).toBe(9);
    expect(
      published(CATALOGUE.number_cities).parse((await platform(sandbox, "/v1/buy/countries/1/cities")).body)
        .cities.length,
    ).toBeGreaterThan(0);
    const dids = await platform(sandbox, "/v1/buy/countries/1/cities/101/dids?per_page=3");
    expect(published(CATALOGUE.available_numbers).parse(dids.body).dids).toHaveLength(3);
    const badCity = await platform(sandbox, "/v1/buy/countries/1/cities/abc/dids");
    expect(badCity).toMatchObject({ status: 400, body: { message: "Missing or invalid parameter city_id" } });
    const validation = await platform(sandbox, `/v1/validation/${ids.token}`);
    expect(validationResponseSchema.parse(validation.body).count).toBeGreaterThan(0);
    expect(await platform(sandbox, "/v1/validation/nope")).toMatchObject({
      status: 404,
      body: { ...NOT_FOUND, error_code: "011" },
    });
  });

  test("asks recordings:read for recordings and calls:write to retranscribe", async ({ sandboxes }) => {
    const sandbox = sandboxes.v2026;
    const ids = await idsOf(sandbox);
    const keyWith = async (permissions: Record<string, string>) => {
      const created = await platform(sandbox, "/v1/api-keys", { method: "POST", body: { permissions } });
      return (created.body as { value: string }).value;
    };
    const callsRead = await keyWith({ calls: "read" });
    const forbidden = { status: 403, body: { success: false, message: ERROR_MESSAGES.forbidden } };
    expect(await platform(sandbox, `/v1/recordings/${ids.recorded}`, { key: callsRead })).toMatchObject(
      forbidden,
    );
    expect(await platform(sandbox, "/v1/recordings?from_date=2026-08-02", { key: callsRead })).toMatchObject(
      forbidden,
    );
    expect(
      await platform(sandbox, `/v1/cdrs/${ids.call_id}/retranscribe`, { method: "POST", key: callsRead }),
    ).toMatchObject(forbidden);
    expect(
      (await platform(sandbox, `/v1/cdrs/${ids.call_id}/transcription`, { key: callsRead })).status,
    ).toBe(200);
    const recordingsRead = await keyWith({ recordings: "read" });
    expect((await platform(sandbox, `/v1/recordings/${ids.recorded}`, { key: recordingsRead })).status).toBe(
      200,
    );
    expect(
      (await platform(sandbox, "/v1/recordings?from_date=2026-08-02", { key: recordingsRead })).status,
    ).toBe(200);
    const callsWrite = await keyWith({ calls: "write" });
    expect(
      (await platform(sandbox, `/v1/cdrs/${ids.call_id}/retranscribe`, { method: "POST", key: callsWrite }))
        .status,
    ).toBe(200);
  });
});
