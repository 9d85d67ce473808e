import { EventEmitter } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { apiKeySchema } from "@telecom-etl/platform/api-key.js";
import { type Call, callSchema } from "@telecom-etl/platform/call.js";
import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { cdrDetailSchema } from "@telecom-etl/platform/cdr.js";
import { ERROR_MESSAGES, errorBodySchema } from "@telecom-etl/platform/common.js";
import { cartResponseSchema, didSchema } from "@telecom-etl/platform/numbers.js";
import { PLATFORM_ROUTES } from "@telecom-etl/platform/permissions.js";
import { sipTrunkSchema } from "@telecom-etl/platform/sip-trunk.js";
import { subAccountSchema } from "@telecom-etl/platform/sub-account.js";
import { widgetTokenSchema } from "@telecom-etl/platform/widget-token.js";
import type { RunningSandbox } from "@telecom-etl/sandbox";
import { PLATFORM_HANDLERS } from "@telecom-etl/sandbox/routes/platform-handlers.js";
import { published } from "../helpers/catalogue-schemas.js";

import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

interface Answer {
  status: number;
  body: unknown;
}

/** A request to the platform API of `sandbox` with `key` (default: the master account's). */
async function request(
  sandbox: RunningSandbox,
  method: string,
  path: string,
  body?: unknown,
  key = sandbox.world.accounts[0]!.apiKey,
): Promise<Answer> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : JSON.parse(text) };
}

const message = (answer: Answer) => errorBodySchema.parse(answer.body).message;

type Api = (method: string, path: string, body?: unknown, key?: string) => Promise<Answer>;

/** The file's sandbox (seed 9), `api` bound to it, and the first sub-account's key. */
const it = fixtureTest
  .extend(
    "api",
    { scope: "file" },
    ({ sandbox }): Api =>
      (...args) =>
        request(sandbox, ...args),
  )
  .extend("sub1", { scope: "file" }, ({ sandbox }) => sandbox.world.accounts[1]!.apiKey);
it.override({ sandboxOptions: { seed: 9, days: 10, callsPerDay: 60 } });

/** A server on 127.0.0.1 recording the call events the sandbox POSTs to it, in the order they arrive. */
interface Receiver {
  readonly port: number;
  readonly events: readonly Call[];
  /** Resolves once the last event of call `uuid` (the one with `call_completed`) has arrived; rejects after `timeoutMs`. */
  ended(uuid: string, timeoutMs?: number): Promise<void>;
}

/** `it` with a fresh `receiver` for the test that asks for one, closed after it. */
// biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this destructuring; it needs nothing
const itWithReceiver = it.extend("receiver", async ({}, { onCleanup }): Promise<Receiver> => {
  const events: Call[] = [];
  const arrivals = new EventEmitter();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      events.push(callSchema.parse(JSON.parse(body)));
      res.end("ok");
      arrivals.emit("event");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    port: (server.address() as AddressInfo).port,
    events,
    ended: (uuid, timeoutMs = 5_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          arrivals.off("event", check);
          reject(new Error(`call ${uuid} did not end within ${timeoutMs} ms: ${JSON.stringify(events)}`));
        }, timeoutMs);
        function check() {
          if (!events.some((e) => e.uuid === uuid && e.call_completed !== null)) return;
          clearTimeout(timer);
          arrivals.off("event", check);
          resolve();
        }
        arrivals.on("event", check);
        check();
      }),
  };
});

describe("sandbox endpoints: keys and permissions", () => {
  it("serves every route of the platform contract", () => {
    const served = new Set(PLATFORM_HANDLERS.map((h) => `${h.method} ${h.path}`));
    expect(PLATFORM_ROUTES.filter((r) => !served.has(`${r.method} ${r.path}`))).toEqual([]);
  });

  it("creates restricted keys whose missing permissions answer 403", async ({ api }) => {
    const created = await api("POST", "/v1/api-keys", { label: "bi", permissions: { calls: "read" } });
    expect(created.status).toBe(200);
    const key = apiKeySchema.parse(created.body);
    expect(key.value).toMatch(/^[0-9a-f]{32}$/);
    expect(
      (await api("GET", "/v1/cdr?from=2026-08-01&to=2026-08-01&type=placed", undefined, key.value!)).status,
    ).toBe(200);
    const denied = await api("GET", "/v1/billing/invoices", undefined, key.value!);
    expect(denied).toEqual({ status: 403, body: { success: false, message: ERROR_MESSAGES.forbidden } });
    const validation = await api("GET", "/v1/validation/whatever", undefined, key.value!);
    expect(validation.body).toEqual({ success: false, message: ERROR_MESSAGES.forbidden, error_code: "012" });
    expect((await api("POST", "/v1/calls", {}, key.value!)).status).toBe(403);
  });

  it("enforces IP allowlists and rejects bad key requests", async ({ api }) => {
    const elsewhere = apiKeySchema.parse(
      (await api("POST", "/v1/api-keys", { is_restriction: true, permitted_ips: ["10.1.2.3"] })).body,
    );
    expect((await api("GET", "/v1/billing/invoices", undefined, elsewhere.value!)).status).toBe(403);
    const local = apiKeySchema.parse(
      (await api("POST", "/v1/api-keys", { is_restriction: true, permitted_ips: ["127.0.0.1"] })).body,
    );
    expect((await api("GET", "/v1/billing/invoices", undefined, local.value!)).status).toBe(200);
    const missing = await api("POST", "/v1/api-keys", { is_restriction: true });
    expect(missing.status).toBe(422);
    expect(message(missing)).toBe("Missing or invalid parameter permitted_ips");
    expect((await api("POST", "/v1/api-keys", { permitted_ips: ["300.1.1.1"] })).status).toBe(422);
    const inactive = apiKeySchema.parse((await api("POST", "/v1/api-keys", { is_active: false })).body);
    expect((await api("GET", "/v1/billing/invoices", undefined, inactive.value!)).status).toBe(401);
  });
});

describe("sandbox endpoints: sub-accounts and numbers", () => {
  it("reads and updates sub-accounts; a disabled sub-account's key gets 403", async ({
    sandbox,
    api,
    sub1,
  }) => {
    const subId = sandbox.world.accounts[1]!.id;
    const read = await api("GET", `/v1/sub-organizations/${subId}`);
    expect(subAccountSchema.parse(read.body).api_key).toBe(sub1);
    expect((await api("GET", `/v1/sub-organizations/${subId}`, undefined, sub1)).status).toBe(200);
    const otherId = sandbox.world.accounts[2]!.id;
    expect((await api("GET", `/v1/sub-organizations/${otherId}`, undefined, sub1)).status).toBe(404);
    expect((await api("PUT", `/v1/sub-organizations/${subId}`, { status: "enabled" })).status).toBe(400);
    expect((await api("PUT", `/v1/sub-organizations/${subId}`, { name: "x".repeat(256) })).status).toBe(422);
    const disabled = await api("PUT", `/v1/sub-organizations/${subId}`, {
      name: "Renamed Co",
      status: "disabled",
      default_destinations: { sms_endpoint: "https://sms.example.org/in" },
    });
    expect(subAccountSchema.parse(disabled.body)).toMatchObject({ name: "Renamed Co", status: "disabled" });
    expect((await api("GET", "/v1/billing/invoices", undefined, sub1)).status).toBe(403);
    await api("PUT", `/v1/sub-organizations/${subId}`, { name: "Renamed Co", status: "enabled" });
    expect((await api("GET", "/v1/billing/invoices", undefined, sub1)).status).toBe(200);
  });

  it("updates owned numbers; sms_relay_url on a number without SMS is 422", async ({ sandbox, api }) => {
    const account = sandbox.world.accounts[0]!;
    const plain = account.dids.find((d) => !d.smsEnabled);
    const sms = account.dids.find((d) => d.smsEnabled);
    expect(plain && sms).toBeTruthy();
    const refused = await api("PUT", `/v1/mydids/${plain!.id}`, { sms_relay_url: "https://example.org/sms" });
    expect(refused.status).toBe(422);
    expect(message(refused)).toBe("Missing or invalid parameter sms_relay_url");
    const updated = await api("PUT", `/v1/mydids/${sms!.id}`, {
      sms_relay_url: "https://example.org/sms",
      transcription_threshold: 12,
    });
    expect(didSchema.parse(updated.body)).toMatchObject({
      sms_relay_url: "https://example.org/sms",
      transcription_threshold: 12,
    });
    expect((await api("PUT", "/v1/mydids/1", {})).status).toBe(404);
  });

  it("lists cities and available numbers (paginated, text_enabled_only) and fills the cart", async ({
    api,
  }) => {
    const cities = published(CATALOGUE.number_cities).parse(
      (await api("GET", "/v1/buy/countries/1/cities")).body,
    ).cities;
    const textCities = published(CATALOGUE.number_cities).parse(
      (await api("GET", "/v1/buy/countries/1/cities?text_enabled_only=true")).body,
    ).cities;
    expect(textCities.length).toBeGreaterThan(0);
    expect(textCities.length).toBeLessThan(cities.length);
    const city = textCities[0]!;
    const page = published(CATALOGUE.available_numbers).parse(
      (await api("GET", `/v1/buy/countries/1/cities/${city.id}/dids?per_page=10&page=2`)).body,
    );
    expect(page.dids).toHaveLength(10);
    expect(page.pagination.current_page).toBe(2);
    expect(page.dids[0]!.channels).toMatch(/^\d+$/);
    const texts = published(CATALOGUE.available_numbers).parse(
      (await api("GET", `/v1/buy/countries/1/cities/${city.id}/dids?text_enabled_only=true&per_page=100`))
        .body,
    );
    expect(texts.dids.every((d) => d.sms_enabled)).toBe(true);
    expect((await api("GET", "/v1/buy/countries/99/cities")).status).toBe(404);
    const cart = await api("PUT", "/v1/buy/cart", { ids: [page.dids[0]!.number, page.dids[1]!.number] });
    expect(cartResponseSchema.parse(cart.body).map((n) => n.number)).toEqual([
      page.dids[0]!.number,
      page.dids[1]!.number,
    ]);
    expect((await api("PUT", "/v1/buy/cart", { ids: ["19999999999"] })).status).toBe(422);
    expect((await api("PUT", "/v1/buy/cart", {})).status).toBe(400);
  });
});

describe("sandbox endpoints: trunks, widgets, webhooks, 10DLC", () => {
  it("creates trunks under the limit rules and widget tokens for them", async ({ sandbox, api }) => {
    const callerid = sandbox.world.accounts[0]!.dids[0]!.number;
    const base = {
      label: "Lab",
      password: "s3cret-pass",
      callerid,
      ip_restrict: false,
      didinfo_enabled: true,
      call_restrict: false,
      cost_limit: false,
      channels_restrict: false,
      rewrite_enabled: false,
      transcription_enabled: true,
      transcription_threshold: 10,
    };
    const trunk = sipTrunkSchema.parse(
      (await api("POST", "/v1/trunks", { ...base, call_limit: 999_999 })).body,
    );
    expect(trunk).toMatchObject({ callerid, call_limit: null, host: "dynamic" });
    expect(
      (await api("POST", "/v1/trunks", { ...base, call_restrict: true, call_limit: 999_999 })).status,
    ).toBe(422);
    expect(
      (await api("POST", "/v1/trunks", { ...base, channels_restrict: true, max_channels: 500 })).status,
    ).toBe(422);
    expect((await api("POST", "/v1/trunks", { ...base, ip_restrict: true })).status).toBe(422);
    expect((await api("POST", "/v1/trunks", { ...base, callerid: "15550000000" })).status).toBe(422);
    const { password: _, ...noPassword } = base;
    expect((await api("POST", "/v1/trunks", noPassword)).status).toBe(400);
    const token = await api("POST", "/v2/webrtc/tokens", {
      sip_trunk: trunk.name,
      payload: { agent: 7 },
      ttl: 600,
    });
    expect(widgetTokenSchema.parse(token.body)).toMatchObject({
      sip_trunk: trunk.name,
      ttl: 600,
      payload: { agent: 7 },
    });
    expect((await api("POST", "/v2/webrtc/tokens", { sip_trunk: "nope" })).status).toBe(422);
  });

  it("lists and deletes call webhooks", async ({ api }) => {
    const hooks = published(CATALOGUE.call_webhooks).parse((await api("GET", "/v1/calls/webhooks")).body);
    expect(hooks.map((h) => h.event_type).sort()).toEqual(["on-call", "post-call"]);
    expect((await api("DELETE", "/v1/calls/webhooks?event_type=on-call")).body).toEqual({ success: true });
    expect((await api("DELETE", "/v1/calls/webhooks?event_type=on-call")).status).toBe(404);
    expect((await api("DELETE", "/v1/calls/webhooks")).status).toBe(400);
    expect((await api("DELETE", "/v1/calls/webhooks?event_type=later")).status).toBe(422);
    expect(
      published(CATALOGUE.call_webhooks).parse((await api("GET", "/v1/calls/webhooks")).body),
    ).toHaveLength(1);
  });

  it("lists brand appeals as a bare array and applies the nudge rules", async ({ sandbox, api }) => {
    const world = (await (await fetch(`${sandbox.url}/_sandbox/world`)).json()) as {
      accounts: {
        api_key: string;
        brands: { brand_id: string; campaigns: { campaign_id: string; status: string }[] }[];
      }[];
    };
    for (const account of world.accounts) {
      for (const brand of account.brands) {
        const appeals = await api(
          "GET",
          `/v3/10dlc/brands/${brand.brand_id}/appeals`,
          undefined,
          account.api_key,
        );
        expect(Array.isArray(published(CATALOGUE.brand_appeals).parse(appeals.body))).toBe(true);
      }
    }
    expect((await api("GET", "/v3/10dlc/brands/BNOPE/appeals")).status).toBe(404);
    const candidates = world.accounts.flatMap((a) =>
      a.brands.flatMap((b) => b.campaigns.map((c) => ({ key: a.api_key, brand: b.brand_id, ...c }))),
    );
    const target = candidates.find((c) => c.status !== "ACTIVE");
    expect(target).toBeDefined();
    const path = `/v3/10dlc/brands/${target!.brand}/campaigns/${target!.campaign_id}/nudge`;
    const right = target!.status === "PENDING" ? "REVIEW" : "APPEAL_REJECTION";
    const wrong = right === "REVIEW" ? "APPEAL_REJECTION" : "REVIEW";
    expect((await api("POST", path, { nudge_intent: right }, target!.key)).status).toBe(400);
    expect(
      (await api("POST", path, { nudge_intent: wrong, description: "please" }, target!.key)).status,
    ).toBe(422);
    expect(
      (await api("POST", path, { nudge_intent: right, description: "please" }, target!.key)).body,
    ).toEqual({
      success: true,
    });
    expect((await api("POST", path, { nudge_intent: right, description: "again" }, target!.key)).status).toBe(
      422,
    );
  });
});

describe("sandbox endpoints: calls started through the API", () => {
  itWithReceiver(
    "posts status events to callback_url and shows the CDR once the call ends",
    async ({ sandbox, api, receiver }) => {
      const { port, events } = receiver;
      const from = sandbox.world.accounts[0]!.dids[0]!.number;
      const bad = await api("POST", "/v1/calls", {
        from: "15550001111",
        to: "+442071234567",
        callback_url: `http://127.0.0.1:${port}/`,
      });
      expect(bad.status).toBe(422);
      const started = await api("POST", "/v1/calls", {
        from,
        to: "+442071234567",
        callback_url: `http://127.0.0.1:${port}/events`,
        voicemail_detection: true,
        tag: "campaign-7",
      });
      const call = callSchema.parse(started.body);
      expect(call).toMatchObject({ event_type: "call_setup", direction: "outbound", tag: "campaign-7" });
      expect((await api("GET", `/v1/cdr/${call.uuid}`)).status).toBe(404);
      await fetch(`${sandbox.url}/_sandbox/clock`, {
        method: "POST",
        body: JSON.stringify({ advance: "PT10M" }),
      });
      // Events are delivered in order, the last one once the sandbox clock passes the call's end.
      await receiver.ended(call.uuid);
      const types = events.filter((e) => e.uuid === call.uuid).map((e) => e.event_type);
      expect(types.slice(0, 2)).toEqual(["call_setup", "ringing"]);
      expect(["completed", "busy", "cancelled", "rejected"]).toContain(types.at(-1));
      const cdr = cdrDetailSchema.parse((await api("GET", `/v1/cdr/${call.uuid}`)).body);
      expect(cdr).toMatchObject({ from, to: "442071234567", sip_trunk: null });
      const day = call.call_started.slice(0, 10);
      const truth = await (
        await fetch(`${sandbox.url}/_sandbox/truth/cdrs?account=master&from=${day}&to=${day}`)
      ).text();
      expect(truth).toContain(call.uuid);
    },
  );
});

describe("sandbox endpoints: lists served by the generic list route", () => {
  /** `YYYY-MM-DD` of the world's `n`-th day. */
  const dayOf = (sandbox: RunningSandbox, n: number) =>
    new Date(sandbox.world.startMs + n * 86_400_000).toISOString().slice(0, 10);
  const ledgerLines = (answer: Answer) =>
    (answer.body as { transactions: { type: number }[] | null }).transactions;

  it("reads the window under the catalogue's names: 422 when reversed or malformed, 400 when a required one is missing", async ({
    sandbox,
    api,
  }) => {
    const [d1, d2] = [dayOf(sandbox, 1), dayOf(sandbox, 2)];
    const reversed = await api("GET", `/v1/billing/transactions?from_date=${d2}&to_date=${d1}`);
    expect(reversed.status).toBe(422);
    expect((reversed.body as { message: string }).message).toContain("to_date");
    expect((await api("GET", "/v1/billing/transactions?from_date=2026-13-01")).status).toBe(422);
    expect((await api("GET", `/v1/short-links/metrics?to=${d1}`)).status).toBe(400);
    const oneDay = await api("GET", `/v1/billing/transactions?from_date=${d1}&to_date=${d1}&per_page=500`);
    expect(oneDay.status).toBe(200);
    expect(ledgerLines(oneDay)!.length).toBeGreaterThan(0);
  });

  it("serves a sub-account's ledger to the master and to the sub-account itself, 404 to another, 400 for a bad id", async ({
    sandbox,
    api,
    sub1,
  }) => {
    const d1 = dayOf(sandbox, 1);
    const window = `from_date=${d1}&to_date=${d1}&per_page=500`;
    const subId = sandbox.world.accounts[1]!.id;
    const otherId = sandbox.world.accounts[2]!.id;
    const own = await api("GET", `/v1/billing/transactions?${window}`, undefined, sub1);
    const byMaster = await api("GET", `/v1/sub-organizations/${subId}/billing/transactions?${window}`);
    expect(byMaster.status).toBe(200);
    expect(ledgerLines(own)!.length).toBeGreaterThan(0);
    expect(byMaster.body).toEqual(own.body);
    const bySelf = await api(
      "GET",
      `/v1/sub-organizations/${subId}/billing/transactions?${window}`,
      undefined,
      sub1,
    );
    expect(bySelf.body).toEqual(own.body);
    const byOther = `/v1/sub-organizations/${otherId}/billing/transactions?${window}`;
    expect((await api("GET", byOther, undefined, sub1)).status).toBe(404);
    expect((await api("GET", "/v1/sub-organizations/x1/billing/transactions")).status).toBe(400);
    expect((await api("GET", "/v1/sub-organizations/999999/billing/transactions")).status).toBe(404);
  });

  it("applies the ledger's own filters: type on both ledgers, details_contains only on the account's own", async ({
    sandbox,
    api,
  }) => {
    /** Every line of a ledger request, page by page. */
    const everyLine = async (path: string) => {
      const lines: { type: number }[] = [];
      for (let page = 1; ; page++) {
        const answer = await api("GET", `${path}&page=${page}`);
        expect(answer.status).toBe(200);
        lines.push(...(ledgerLines(answer) ?? []));
        if (page >= (answer.body as { pagination: { total_pages: number } }).pagination.total_pages)
          return lines;
      }
    };
    const window = `from_date=${dayOf(sandbox, 0)}&to_date=${dayOf(sandbox, 1)}`;
    const all = await everyLine(`/v1/billing/transactions?${window}`);
    const calls = await everyLine(`/v1/billing/transactions?${window}&type=14`);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls).toEqual(all.filter((line) => line.type === 14));
    expect((await api("GET", `/v1/billing/transactions?${window}&type=x`)).status).toBe(422);
    const subId = sandbox.world.accounts[1]!.id;
    const sub = `/v1/sub-organizations/${subId}/billing/transactions?${window}`;
    const unfiltered = await api("GET", sub);
    expect(ledgerLines(unfiltered)!.length).toBeGreaterThan(0);
    expect((await api("GET", `${sub}&details_contains=zzz-nothing`)).body).toEqual(unfiltered.body);
    expect(
      ledgerLines(await api("GET", `/v1/billing/transactions?${window}&details_contains=zzz-nothing`)),
    ).toEqual([]);
  });
});
