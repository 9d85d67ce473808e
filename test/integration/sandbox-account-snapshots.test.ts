import { apiKeySchema } from "@telecom-etl/platform/api-key.js";
import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { ERROR_MESSAGES, paginationSchema } from "@telecom-etl/platform/common.js";
import {
  didSchema,
  docTypeSchema,
  type PurchasableNumber,
  purchasableNumberSchema,
} from "@telecom-etl/platform/numbers.js";
import { PERMISSION_RESOURCES, type Permission } from "@telecom-etl/platform/permissions.js";
import {
  type SipTrunkSummary,
  sipTrunkSchema,
  sipTrunkSummarySchema,
} from "@telecom-etl/platform/sip-trunk.js";
import { subAccountSchema } from "@telecom-etl/platform/sub-account.js";
import { tenDlcAppealSchema } from "@telecom-etl/platform/ten-dlc.js";
import type { RunningSandbox } from "@telecom-etl/sandbox";
import { parseMicros } from "@telecom-etl/sandbox/money.js";
import { describe, expect } from "vitest";
import { published } from "../helpers/catalogue-schemas.js";

import { admin, exchangeDigest, ndjson, ndjsonLines, platform, sandboxTest } from "./sandbox-client.js";

/**
 * The full-refresh resources over HTTP and their truth exports, in both API revisions: trunks,
 * owned numbers, 10DLC brands and appeals, call webhooks (a seeded history over sandbox time),
 * sub-accounts, the number catalog (prices that move at month boundaries) and which calls have a
 * transcription at all. Each truth export must equal what the API serves at the clock.
 */

const WORLD = { seed: 29, days: 20, callsPerDay: 120, accounts: 3, now: "2026-08-21T00:00:00Z" } as const;
const test = sandboxTest({
  v2024: { ...WORLD },
  v2026: { ...WORLD, apiRevision: "2026" },
  twin: { ...WORLD },
  twin2: { ...WORLD },
  history: { ...WORLD },
  pages: { ...WORLD, faults: { routes: { "GET /v1/mydids": { pages: { duplicateRow: 1 } } } } },
  month: { ...WORLD, now: "2026-08-15T12:00:00Z" },
});
const FORBIDDEN = { success: false, message: ERROR_MESSAGES.forbidden };

/** A restricted key with only `permission`'s resource at its level, or with every other resource. */
async function keyFor(sandbox: RunningSandbox, permission: Permission, only: boolean): Promise<string> {
  const [resource, level] = permission.split(":") as [string, string];
  const permissions = only
    ? { [resource]: level }
    : Object.fromEntries(PERMISSION_RESOURCES.filter((r) => r !== resource).map((r) => [r, "write"]));
  const created = await platform(sandbox, "/v1/api-keys", {
    method: "POST",
    body: { label: "k", permissions },
  });
  return apiKeySchema.parse(created.body).value!;
}

/** Checks a route needs exactly `permission`: 403 without it, not 403 with only it. */
async function needs(sandbox: RunningSandbox, path: string, permission: Permission): Promise<void> {
  const denied = await platform(sandbox, path, { key: await keyFor(sandbox, permission, false) });
  expect({ path, status: denied.status, body: denied.body }).toEqual({ path, status: 403, body: FORBIDDEN });
  const allowed = await platform(sandbox, path, { key: await keyFor(sandbox, permission, true) });
  expect({ path, status: allowed.status }).toEqual({ path, status: 200 });
}

/** Fields a schema does not list. */
const unknown = (schema: { shape: object }, value: unknown) =>
  Object.keys(value as object).filter((k) => !(k in schema.shape));

/** Every owned number of the master through the revision's list route, page by page. */
async function ownedNumbers(sandbox: RunningSandbox, path: string, perPage: number): Promise<unknown[]> {
  const rows: unknown[] = [];
  for (let page = 1; ; page++) {
    const answer = await platform(sandbox, `${path}?per_page=${perPage}&page=${page}`);
    expect(answer.status).toBe(200);
    const body = published(CATALOGUE.numbers).parse(answer.body);
    expect(Object.keys(body)).toEqual(["items", "doc_types", "pagination"]);
    expect(unknown(paginationSchema, body.pagination)).toEqual([]);
    expect(body.doc_types.length).toBeGreaterThan(0);
    for (const type of body.doc_types) expect(unknown(docTypeSchema, type)).toEqual([]);
    rows.push(...(answer.body as { items: unknown[] }).items);
    if (page >= body.pagination.total_pages) return rows;
  }
}

/** Every trunk of an account through `GET /v1/trunks`, page by page, as served (summaries). */
async function listedTrunks(
  sandbox: RunningSandbox,
  perPage: number,
  account = 0,
): Promise<SipTrunkSummary[]> {
  const rows: SipTrunkSummary[] = [];
  for (let page = 1; ; page++) {
    const answer = await platform(sandbox, `/v1/trunks?per_page=${perPage}&page=${page}`, { account });
    expect(answer.status).toBe(200);
    const body = published(CATALOGUE.sip_trunks).parse(answer.body);
    expect(Object.keys(body)).toEqual(["sip_trunks", "pagination"]);
    expect(unknown(paginationSchema, body.pagination)).toEqual([]);
    rows.push(...((answer.body as { sip_trunks: SipTrunkSummary[] | null }).sip_trunks ?? []));
    if (page >= body.pagination.total_pages) return rows;
  }
}

/**
 * Each trunk's outbound totals from the CDR truth, by trunk name: the placed CDRs on the trunk
 * listed from `from` to `to` (the month so far), summing `duration` and `charge` (micro-dollars).
 */
async function cdrTotals(
  sandbox: RunningSandbox,
  from: string,
  to: string,
): Promise<Map<string, { seconds: number; micros: number }>> {
  const cdrs = await ndjson<{
    direction: string;
    sip_trunk: string | null;
    duration: number;
    charge: string | null;
  }>(sandbox, `/_sandbox/truth/cdrs?account=master&from=${from}&to=${to}`);
  const totals = new Map<string, { seconds: number; micros: number }>();
  for (const cdr of cdrs) {
    if (cdr.direction !== "placed" || cdr.sip_trunk === null) continue;
    const t = totals.get(cdr.sip_trunk) ?? { seconds: 0, micros: 0 };
    t.seconds += cdr.duration;
    t.micros += cdr.charge === null ? 0 : parseMicros(cdr.charge);
    totals.set(cdr.sip_trunk, t);
  }
  return totals;
}

describe("sandbox trunks, numbers and brands", () => {
  test.for(["v2024", "v2026"] as const)(
    "%s: lists trunks, seeded then created, exactly as the sip_trunks truth",
    async (name, { sandboxes }) => {
      const sandbox = sandboxes[name];
      const account = sandbox.world.accounts[0]!;
      const created = await platform(sandbox, "/v1/trunks", {
        method: "POST",
        body: {
          label: "Listed",
          password: "pw-123456",
          callerid: account.dids[0]!.number,
          ip_restrict: false,
          didinfo_enabled: true,
          call_restrict: false,
          cost_limit: false,
          channels_restrict: false,
          rewrite_enabled: false,
          transcription_enabled: false,
          transcription_threshold: 6,
        },
      });
      expect(created.status).toBe(200);
      // POST answers the full trunk; the list serves summaries, two to a page here.
      expect(unknown(sipTrunkSchema, created.body)).toEqual([]);
      const trunks = await listedTrunks(sandbox, 2);
      for (const trunk of trunks) {
        expect(unknown(sipTrunkSummarySchema, trunk)).toEqual([]);
        expect(Object.keys(trunk)).toContain("access_token");
      }
      expect(trunks.map((t) => t.name)).toEqual([
        ...account.trunks.map((t) => t.name),
        sipTrunkSchema.parse(created.body).name,
      ]);
      // Settings that shape the CDRs are the world's.
      expect(trunks.slice(0, account.trunks.length)).toMatchObject(
        account.trunks.map((t) => ({
          callerid: t.callerid,
          call_recording_enabled: t.recording,
          machine_detection_enabled: t.machineDetection,
          transcription_enabled: t.transcription,
          transcription_threshold: t.transcriptionThreshold,
        })),
      );
      // A trunk created without a host request authenticates by registration and is active, unused.
      expect(trunks.at(-1)).toMatchObject({
        auth_method: "Digest",
        host_request: null,
        status: "active",
        talk_time: 0,
        charge: "0.00",
      });
      expect(await ndjsonLines(sandbox, "/_sandbox/truth/sip_trunks?account=master")).toEqual(
        trunks.map((t) => JSON.stringify(t)),
      );
      // Another account sees its own trunks only.
      expect((await listedTrunks(sandbox, 25, 1)).map((t) => t.name)).toEqual(
        sandbox.world.accounts[1]!.trunks.map((t) => t.name),
      );
      await needs(sandbox, "/v1/trunks", "trunks:read");
    },
  );

  test.for([
    ["v2024", "/v1/mydids", "/v1/numbers"],
    ["v2026", "/v1/numbers", "/v1/mydids"],
  ] as const)(
    "%s: lists owned numbers at %s with their current settings",
    async ([name, path, other], { sandboxes }) => {
      const sandbox = sandboxes[name];
      const account = sandbox.world.accounts[0]!;
      const did = account.dids.find((d) => d.smsEnabled) ?? account.dids[0]!;
      const relay = did.smsEnabled ? { sms_relay_url: `https://example.org/${name}/sms` } : {};
      const update = await platform(sandbox, `${path}/${did.id}`, {
        method: "PUT",
        body: {
          ...relay,
          call_status_url: `https://example.org/${name}/status`,
          transcription_threshold: 42,
        },
      });
      expect(update.status).toBe(200);
      const rows = await ownedNumbers(sandbox, path, 2);
      expect(rows.map((r) => didSchema.parse(r).id)).toEqual(
        account.dids.map((d) => d.id).sort((a, b) => a - b),
      );
      for (const row of rows) expect(unknown(didSchema, row)).toEqual([]);
      expect(rows.find((r) => didSchema.parse(r).id === did.id)).toEqual(update.body);
      expect(rows).toMatchObject(
        account.dids
          .slice()
          .sort((a, b) => a.id - b.id)
          .map((d) => ({ number: d.number, sms_enabled: d.smsEnabled })),
      );
      expect(await ndjson(sandbox, "/_sandbox/truth/numbers?account=master")).toEqual(rows);
      expect((await platform(sandbox, other)).status).toBe(404);
      await needs(sandbox, path, "numbers:read");
    },
  );

  test("a trunk's talk_time and charge are its placed calls of the month so far, reset each month; none listed is null", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.month;
    const account = sandbox.world.accounts[0]!;
    // Mid-month: the totals equal the placed CDRs on the trunk the CDR truth shows (visible ones, late ones once visible).
    const totals = await cdrTotals(sandbox, "2026-08-01", "2026-08-15");
    const listed = await listedTrunks(sandbox, 100);
    expect(
      listed.map((t) => ({ name: t.name, talk_time: t.talk_time, micros: parseMicros(t.charge) })),
    ).toEqual(
      account.trunks.map((t) => ({
        name: t.name,
        talk_time: totals.get(t.name)?.seconds ?? 0,
        micros: totals.get(t.name)?.micros ?? 0,
      })),
    );
    expect(listed.some((t) => t.talk_time > 0)).toBe(true);
    // Ten hours later more calls are listed: the totals only grow within the month.
    await admin(sandbox, "/_sandbox/clock", { now: "2026-08-15T22:00:00Z" });
    const later = await listedTrunks(sandbox, 100);
    const laterTotals = await cdrTotals(sandbox, "2026-08-01", "2026-08-15");
    expect(later.map((t) => t.talk_time)).toEqual(
      account.trunks.map((t) => laterTotals.get(t.name)?.seconds ?? 0),
    );
    expect(later.reduce((n, t) => n + t.talk_time, 0)).toBeGreaterThan(
      listed.reduce((n, t) => n + t.talk_time, 0),
    );
    // A new month starts from zero (the world's traffic ended in August).
    await admin(sandbox, "/_sandbox/clock", { now: "2026-09-02T00:00:00Z" });
    expect((await listedTrunks(sandbox, 100)).map((t) => [t.talk_time, t.charge])).toEqual(
      account.trunks.map(() => [0, "0.00"]),
    );
    // Before the account had any trunk the list is null (how the platform writes an empty list), the truth empty.
    await admin(sandbox, "/_sandbox/clock", { now: "2020-01-01T00:00:00Z" });
    const none = await platform(sandbox, "/v1/trunks");
    expect(none.body).toEqual({
      sip_trunks: null,
      pagination: { current_page: 1, per_page: 25, total: 0, total_pages: 0 },
    });
    expect(await ndjsonLines(sandbox, "/_sandbox/truth/sip_trunks?account=master")).toEqual([]);
    // A page past the end of a non-empty list is [] (not null).
    await admin(sandbox, "/_sandbox/clock", { now: "2026-08-15T12:00:00Z" });
    const past = await platform(sandbox, "/v1/trunks?page=9");
    expect((past.body as { sip_trunks: unknown }).sip_trunks).toEqual([]);
  });

  test("serves owned numbers' pages with page faults like the other lists", async ({ sandboxes }) => {
    const sandbox = sandboxes.pages;
    const all = await ndjson(sandbox, "/_sandbox/truth/numbers?account=master");
    const second = published(CATALOGUE.numbers).parse(
      (await platform(sandbox, "/v1/mydids?per_page=2&page=2")).body,
    );
    // Every page is shifted back by one row: page 2 starts with page 1's last row; the total stays true.
    expect(second.items[0]).toEqual(all[1]);
    expect(second.pagination.total).toBe(all.length);
  });

  test.for(["v2024", "v2026"] as const)(
    "%s: lists brands with their campaigns, and their appeals, exactly as the truth",
    async (name, { sandboxes }) => {
      const sandbox = sandboxes[name];
      for (const account of sandbox.world.accounts) {
        const listed = published(CATALOGUE.ten_dlc_brands).parse(
          (await platform(sandbox, "/v3/10dlc/brands", { account: account.index })).body,
        );
        expect(listed.map((b) => b.brand_id)).toEqual(account.brands.map((b) => b.brandId));
        expect(listed.map((b) => b.campaigns.map((c) => c.campaign_id))).toEqual(
          account.brands.map((b) => b.campaignIds),
        );
        expect(await ndjson(sandbox, `/_sandbox/truth/brands?account=${account.name}`)).toEqual(listed);
        const appeals: unknown[] = [];
        for (const brand of listed) {
          const answer = await platform(sandbox, `/v3/10dlc/brands/${brand.brand_id}/appeals`, {
            account: account.index,
          });
          for (const appeal of published(CATALOGUE.brand_appeals).parse(answer.body)) {
            expect(unknown(tenDlcAppealSchema, appeal)).toEqual([]);
            appeals.push({ ...appeal, brand_id: brand.brand_id });
          }
        }
        expect(await ndjson(sandbox, `/_sandbox/truth/brand_appeals?account=${account.name}`)).toEqual(
          appeals,
        );
      }
      const world = await admin<{ accounts: { brands: unknown }[] }>(sandbox, "/_sandbox/world");
      expect(world.accounts[0]!.brands).toEqual(
        published(CATALOGUE.ten_dlc_brands).parse((await platform(sandbox, "/v3/10dlc/brands")).body),
      );
      await needs(sandbox, "/v3/10dlc/brands", "campaigns:read");
    },
  );
});

interface HistoryView {
  accounts: {
    name: string;
    call_webhook_history: { at: string; event_type: string; url: string | null }[];
  }[];
}

describe("sandbox call webhooks over sandbox time", () => {
  test("answers, at every instant, each kind's latest change of the seeded history", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.history;
    const view = await admin<HistoryView>(sandbox, "/_sandbox/world");
    const { now } = await admin<{ now: string }>(sandbox, "/_sandbox/clock");
    try {
      for (const [index, account] of view.accounts.entries()) {
        const history = account.call_webhook_history;
        const kinds = (type: string) => history.filter((h) => h.event_type === type);
        // URLs change, on-call is removed at some point (and added later on sub-accounts).
        expect(new Set(kinds("post-call").map((h) => h.url)).size).toBeGreaterThan(1);
        expect(kinds("on-call").some((h) => h.url === null)).toBe(true);
        if (index > 0)
          expect(Date.parse(kinds("on-call")[0]!.at)).toBeGreaterThanOrEqual(
            Date.parse("2026-08-01T00:00:00Z"),
          );
        const instants = history.flatMap((h) => [Date.parse(h.at) - 1000, Date.parse(h.at)]);
        for (const at of instants) {
          await admin(sandbox, "/_sandbox/clock", { now: new Date(at).toISOString() });
          const expected = ["post-call", "on-call"].flatMap((type) => {
            const last = history.filter((h) => h.event_type === type && Date.parse(h.at) <= at).at(-1);
            return last?.url ? [{ event_type: type, url: last.url }] : [];
          });
          const answer = await platform(sandbox, "/v1/calls/webhooks", { account: index });
          expect({
            at: new Date(at).toISOString(),
            hooks: published(CATALOGUE.call_webhooks).parse(answer.body),
          }).toEqual({
            at: new Date(at).toISOString(),
            hooks: expected,
          });
          expect(await ndjson(sandbox, `/_sandbox/truth/call_webhooks?account=${account.name}`)).toEqual(
            expected,
          );
        }
      }
    } finally {
      await admin(sandbox, "/_sandbox/clock", { now });
    }
  });

  test("DELETE removes a kind from its instant on, for good; the clock moved back still shows it", async ({
    sandboxes,
  }) => {
    const sandbox = sandboxes.history;
    const view = await admin<HistoryView>(sandbox, "/_sandbox/world");
    const history = view.accounts[0]!.call_webhook_history;
    const firstChange = history.find(
      (h) => h.event_type === "post-call" && Date.parse(h.at) > Date.parse("2026-08-01"),
    )!;
    const { now } = await admin<{ now: string }>(sandbox, "/_sandbox/clock");
    const types = async () =>
      published(CATALOGUE.call_webhooks)
        .parse((await platform(sandbox, "/v1/calls/webhooks")).body)
        .map((h) => h.event_type);
    try {
      const before = new Date(Date.parse(firstChange.at) - 3_600_000).toISOString();
      await admin(sandbox, "/_sandbox/clock", { now: before });
      expect(await types()).toContain("post-call");
      expect(
        (await platform(sandbox, "/v1/calls/webhooks?event_type=post-call", { method: "DELETE" })).body,
      ).toEqual({
        success: true,
      });
      expect(
        (await platform(sandbox, "/v1/calls/webhooks?event_type=post-call", { method: "DELETE" })).status,
      ).toBe(404);
      expect(await types()).not.toContain("post-call");
      // A scheduled URL change after the deletion does not bring it back.
      await admin(sandbox, "/_sandbox/clock", {
        now: new Date(Date.parse(firstChange.at) + 1000).toISOString(),
      });
      expect(await types()).not.toContain("post-call");
      await admin(sandbox, "/_sandbox/clock", { now: new Date(Date.parse(before) - 60_000).toISOString() });
      expect(await types()).toContain("post-call");
    } finally {
      await admin(sandbox, "/_sandbox/clock", { now });
    }
  });
});

describe("sandbox sub-accounts, number catalog and transcription requests", () => {
  test("exports the sub-accounts an account may read, api_key included, as served", async ({ sandboxes }) => {
    const sandbox = sandboxes.v2026;
    const [master, sub1, sub2] = sandbox.world.accounts;
    const renamed = await platform(sandbox, `/v1/sub-organizations/${sub2!.id}`, {
      method: "PUT",
      body: { name: "Renamed Ltd", default_destinations: { sms_endpoint: "https://example.org/in" } },
    });
    expect(renamed.status).toBe(200);
    const served = [];
    for (const sub of [sub1!, sub2!]) {
      const answer = await platform(sandbox, `/v1/sub-organizations/${sub.id}`);
      const body = subAccountSchema.parse(answer.body);
      expect(unknown(subAccountSchema, answer.body)).toEqual([]);
      expect(body.api_key).toBe(sub.apiKey);
      served.push(answer.body);
    }
    expect(await ndjson(sandbox, `/_sandbox/truth/sub_accounts?account=${master!.name}`)).toEqual(served);
    expect(await ndjson(sandbox, `/_sandbox/truth/sub_accounts?account=${sub1!.name}`)).toEqual([served[0]]);
    await needs(sandbox, `/v1/sub-organizations/${sub1!.id}`, "subaccounts:read");
  });

  test.for([
    ["v2024", false],
    ["v2026", true],
  ] as const)(
    "%s: exports the number catalog (text_enabled_only=%s) as the city routes serve it now, prices moving at month boundaries",
    async ([name, textOnly], { sandboxes }) => {
      const sandbox = sandboxes[name];
      const { now } = await admin<{ now: string }>(sandbox, "/_sandbox/clock");
      const snapshot = async (): Promise<(PurchasableNumber & { city_id: number })[]> => {
        const cities = published(CATALOGUE.number_cities).parse(
          (await platform(sandbox, `/v1/buy/countries/1/cities?text_enabled_only=${textOnly}`)).body,
        ).cities;
        const rows: (PurchasableNumber & { city_id: number })[] = [];
        for (const city of cities) {
          for (let page = 1; ; page++) {
            const answer = await platform(
              sandbox,
              `/v1/buy/countries/1/cities/${city.id}/dids?text_enabled_only=${textOnly}&per_page=100&page=${page}`,
            );
            const body = published(CATALOGUE.available_numbers).parse(answer.body);
            for (const n of body.dids) {
              expect(unknown(purchasableNumberSchema, n)).toEqual([]);
              if (textOnly) expect(n.sms_enabled).toBe(true);
              rows.push({ ...n, city_id: city.id });
            }
            if (page >= body.pagination.total_pages) break;
          }
        }
        return rows;
      };
      const truthPath = `/_sandbox/truth/number_catalog?country=1${textOnly ? "&text_enabled_only=true" : ""}`;
      try {
        await admin(sandbox, "/_sandbox/clock", { now: "2026-08-20T00:00:00Z" });
        const august = await snapshot();
        expect(await ndjson(sandbox, truthPath)).toEqual(august);
        await admin(sandbox, "/_sandbox/clock", { now: "2026-09-01T00:00:00Z" });
        const september = await snapshot();
        expect(await ndjson(sandbox, truthPath)).toEqual(september);
        expect(september.map((n) => n.number)).toEqual(august.map((n) => n.number));
        const moved = september.filter((n, i) => JSON.stringify(n) !== JSON.stringify(august[i]));
        expect(moved.length).toBeGreaterThan(0);
        expect(moved.length).toBeLessThan(september.length);
      } finally {
        await admin(sandbox, "/_sandbox/clock", { now });
      }
      const status = async (path: string) => (await fetch(`${sandbox.url}${path}`)).status;
      expect(await status("/_sandbox/truth/number_catalog?country=44")).toBe(404);
      expect(await status("/_sandbox/truth/number_catalog")).toBe(400);
    },
  );

  test.for(["v2024", "v2026"] as const)(
    "%s: tells which visible calls have a transcription, pending or final, as the API answers",
    async (name, { sandboxes }) => {
      const sandbox = sandboxes[name];
      const range = "account=master&from=2026-08-19&to=2026-08-20";
      type Request = { uuid: string; direction: string; status: string; ready_at: string };
      const path = `/_sandbox/truth/transcription_requests?${range}`;
      // The clock goes to one second before a transcription of the range is ready: it is pending then.
      const late = (await ndjson<Request>(sandbox, path))
        .filter((r) => r.ready_at.startsWith("2026-08-20T1"))
        .at(-1)!;
      const clock = Date.parse(late.ready_at) - 1000;
      const { now } = await admin<{ now: string }>(sandbox, "/_sandbox/clock");
      await admin(sandbox, "/_sandbox/clock", { now: new Date(clock).toISOString() });
      try {
        await checkRequestsAt(sandbox, clock, await ndjson<Request>(sandbox, path), late.uuid);
      } finally {
        await admin(sandbox, "/_sandbox/clock", { now });
      }
    },
  );

  /** Each request's status matches what the transcription route answers at `clock`. */
  async function checkRequestsAt(
    sandbox: RunningSandbox,
    clock: number,
    requests: { uuid: string; direction: string; status: string; ready_at: string }[],
    pendingUuid: string,
  ): Promise<void> {
    // A call's transcription is read under its CDR in both revisions.
    const prefix = sandbox.runtime.options.apiRevision === "2026" ? "/v1/cdrs/" : "/v1/cdr/";
    const suffix = "/transcription";
    const range = "account=master&from=2026-08-19&to=2026-08-20";
    expect(requests.find((r) => r.uuid === pendingUuid)?.status).toBe("pending");
    expect(requests.some((r) => r.status === "completed")).toBe(true);
    for (const r of requests) {
      expect(r.status === "pending").toBe(Date.parse(r.ready_at) > clock);
      const answer = await platform(sandbox, `${prefix}${r.uuid}${suffix}`);
      expect({ uuid: r.uuid, status: answer.status }).toEqual({
        uuid: r.uuid,
        status: r.status === "pending" ? 202 : 200,
      });
      if (answer.status === 200) expect((answer.body as { status: string }).status).toBe(r.status);
    }
    const transcriptions = await ndjson(sandbox, `/_sandbox/truth/transcriptions?${range}`);
    expect(transcriptions.length).toBe(requests.filter((r) => r.status !== "pending").length);
    // A visible call without a request has no transcription at all.
    const withRequest = new Set(requests.map((r) => r.uuid));
    const cdrs = await ndjson<{ uuid?: string; call_id?: string }>(sandbox, `/_sandbox/truth/cdrs?${range}`);
    const without = cdrs.map((c) => c.call_id ?? c.uuid!).filter((id) => !withRequest.has(id));
    expect(without.length).toBeGreaterThan(0);
    for (const id of without.slice(0, 20))
      expect((await platform(sandbox, `${prefix}${id}${suffix}`)).status).toBe(404);
  }

  test("answers the same bytes for the same seed: listings and snapshot exports", async ({ sandboxes }) => {
    const steps = [
      { method: "GET", path: "/v1/trunks" },
      { method: "GET", path: "/v1/mydids?per_page=3&page=2" },
      { method: "GET", path: "/v3/10dlc/brands" },
      { method: "GET", path: "/v1/calls/webhooks" },
      ...[
        "sip_trunks",
        "numbers",
        "brands",
        "brand_appeals",
        "call_webhooks",
        "sub_accounts",
        "transcription_requests",
      ].map((stream) => ({ method: "GET", path: `/_sandbox/truth/${stream}?account=sub-2`, admin: true })),
      { method: "GET", path: "/_sandbox/truth/number_catalog?country=1", admin: true },
    ];
    for (const step of steps) {
      expect({ path: step.path, digest: await exchangeDigest(sandboxes.twin, step) }).toEqual({
        path: step.path,
        digest: await exchangeDigest(sandboxes.twin2, step),
      });
    }
  });
});
