import { apiKeySchema } from "@telecom-etl/platform/api-key.js";
import { callSchema, callWebhookSchema } from "@telecom-etl/platform/call.js";
import { callTranscriptionSchema } from "@telecom-etl/platform/call-transcription.js";
import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { cdrDetailSchema, cdrSchema } from "@telecom-etl/platform/cdr.js";
import {
  ERROR_MESSAGES,
  paginationSchema,
  pendingBodySchema,
  successBodySchema,
} from "@telecom-etl/platform/common.js";
import { parseJsonExact } from "@telecom-etl/platform/exact-number.js";
import { invoiceSchema } from "@telecom-etl/platform/invoice.js";
import { messageBodySchema, messageSchema } from "@telecom-etl/platform/message.js";
import {
  cartResponseSchema,
  citySchema,
  didDocumentSchema,
  didSchema,
  docTypeSchema,
  inboundCallDestinationSchema,
  purchasableNumberSchema,
} from "@telecom-etl/platform/numbers.js";
import {
  PERMISSION_RESOURCES,
  type Permission,
  type PermissionResource,
  type PLATFORM_ROUTES,
  routesOf,
} from "@telecom-etl/platform/permissions.js";
import { invalidRecordingFiltersSchema, recordingSchema } from "@telecom-etl/platform/recording.js";
import type { PlatformResource } from "@telecom-etl/platform/resource.js";
import { SCAFFOLDED_RESOURCES } from "@telecom-etl/platform/scaffolded-resources.js";
import { shortLinkMetricSchema } from "@telecom-etl/platform/short-link-metric.js";
import { hostRequestSchema, sipTrunkSchema, sipTrunkSummarySchema } from "@telecom-etl/platform/sip-trunk.js";
import { subAccountSchema } from "@telecom-etl/platform/sub-account.js";
import {
  tenDlcAppealSchema,
  tenDlcBrandSchema,
  tenDlcCampaignSummarySchema,
} from "@telecom-etl/platform/ten-dlc.js";
import { TRANSACTION_EXACT_NUMBERS, transactionSchema } from "@telecom-etl/platform/transaction.js";
import { transcriptionSchema } from "@telecom-etl/platform/transcription.js";
import { numberValidationResultSchema, validationResponseSchema } from "@telecom-etl/platform/validation.js";
import { widgetTokenSchema } from "@telecom-etl/platform/widget-token.js";
import type { RunningSandbox } from "@telecom-etl/sandbox";
import { answered, published } from "../helpers/catalogue-schemas.js";
import { describe, expect, it as fixtureTest } from "../helpers/fixtures.js";

/**
 * The platform contract over HTTP, route by route: every route of PLATFORM_ROUTES of API revision
 * 2024 (= every endpoint of platform-api.md; the default revision) answers a valid request with a body its schema accepts and that
 * carries no field the interface does not list; 401 without or with an unknown key; 403 for a key
 * lacking the route's permission and for a caller outside the key's IP allowlist; 404 for unknown
 * ids. `GET /_sandbox/stats` must then count exactly the requests this file made.
 */

type RouteOf<R> = R extends {
  readonly method: infer M extends string;
  readonly path: infer P extends string;
  readonly revisions: readonly (infer V)[];
}
  ? "2024" extends V
    ? `${M} ${P}`
    : never
  : never;
type RouteKey = RouteOf<(typeof PLATFORM_ROUTES)[number]>;
/** The list routes of the resources `npm run scaffold:stream` added: their samples derive from the catalogue. */
type ScaffoldedRoute =
  `GET ${(typeof SCAFFOLDED_RESOURCES)[keyof typeof SCAFFOLDED_RESOURCES]["paths"]["2024"]}`;

/** What fills a route's path: its `{...}` segments in order, and the query a list needs. */
interface PathFill {
  readonly ids?: readonly (string | number)[];
  readonly query?: string;
}

/** A valid request of a route: what fills its path, its body, and the check of its answer. */
interface SampleSpec extends PathFill {
  readonly body?: unknown;
  /** Checks a 2xx body (parsed, and as text) against the platform schema (throws when it does not fit). */
  readonly check: (body: unknown, text: string) => void;
}

/** A sample with its path: the route's own template (from PLATFORM_ROUTES) filled, never restated. */
interface Sample extends SampleSpec {
  readonly path: string;
}

/** The path of a request to `route`: its template with `ids` in place of its `{...}` segments, then `?query`. */
function pathOf(route: RouteKey, fill: PathFill = {}): string {
  const template = route.slice(route.indexOf(" ") + 1);
  const ids = fill.ids ?? [];
  let next = 0;
  const path = template.replace(/\{[a-z_]+\}/g, () => encodeURIComponent(String(ids[next++])));
  expect(next, `${route}: ids for its segments`).toBe(ids.length);
  return fill.query === undefined ? path : `${path}?${fill.query}`;
}

/** Every request this file sent through `call`, by route and status (what `/_sandbox/stats` must show). */
const tally = new Map<string, Map<string, number>>();

/** Options of one request: `key` null sends none (default: the master's), `method` defaults to the route's. */
type CallOptions = { key?: string | null; body?: unknown; method?: string };

/** Sends one request to the sandbox and counts it in `tally`. */
async function send(
  sandbox: RunningSandbox,
  route: RouteKey | "unmatched",
  path: string,
  options: CallOptions = {},
): Promise<{ status: number; body: unknown; text: string }> {
  const key = options.key === undefined ? sandbox.world.accounts[0]!.apiKey : options.key;
  const method = options.method ?? (route === "unmatched" ? "GET" : route.split(" ")[0]!);
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: {
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      "content-type": "application/json",
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  const byStatus = tally.get(route) ?? new Map<string, number>();
  byStatus.set(String(res.status), (byStatus.get(String(res.status)) ?? 0) + 1);
  tally.set(route, byStatus);
  const answer = { status: res.status, body: text === "" ? null : JSON.parse(text) };
  // The body's text too (a ledger's exact numbers are parsed from it), kept out of comparisons.
  return Object.defineProperty(answer, "text", { value: text, enumerable: false }) as typeof answer & {
    text: string;
  };
}

/** A request to the admin API (`/_sandbox/...`), not counted: truth exports as arrays, the rest as JSON. */
async function adminRequest<T>(sandbox: RunningSandbox, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return (
    path.includes("/truth/")
      ? text
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l))
      : JSON.parse(text)
  ) as T;
}

/** Parses with the schema and refuses fields the schema (the interface) does not list. */
function exact<T>(schema: { parse(value: unknown): T; shape: object }, value: unknown): T {
  const parsed = schema.parse(value);
  const known = new Set(Object.keys(schema.shape));
  expect(Object.keys(value as object).filter((k) => !known.has(k))).toEqual([]);
  return parsed;
}

/**
 * A page of a billing ledger, parsed as a loader must (its JSON numbers from their source text):
 * the published envelope and item fields only, at least one line, and its pagination.
 */
function ledgerPage(text: string, perPage: number): void {
  const parsed = exact(answered(CATALOGUE.transactions), parseJsonExact(text, TRANSACTION_EXACT_NUMBERS));
  expect(parsed.is_empty).toBe(false);
  expect(parsed.transactions!.length).toBeGreaterThan(0);
  for (const line of parsed.transactions!) exact(transactionSchema, line);
  expect(exact(paginationSchema, parsed.pagination)).toMatchObject({ per_page: perPage });
}

const FORBIDDEN = { success: false, message: ERROR_MESSAGES.forbidden };
const UNAUTHORIZED = { success: false, error: true, message: ERROR_MESSAGES.unauthorized };
const NOT_FOUND = { success: false, message: ERROR_MESSAGES.notFound };

/** A 404 request per route with an id in its path. */
type UnknownIds = Partial<
  Record<RouteKey, { ids: readonly (string | number)[]; body?: unknown; extra?: Record<string, string> }>
>;

type Call = (
  route: RouteKey | "unmatched",
  path: string,
  options?: CallOptions,
) => Promise<{ status: number; body: unknown; text: string }>;
type Admin = <T>(path: string, body?: unknown) => Promise<T>;

/**
 * A valid request of each scaffolded list, from its catalogue entry: the world's days (2026-08-01
 * to 08-20) a hundred rows at a time, an answer its published envelope and item schema accept
 * exactly, with rows.
 */
function scaffoldedSpecs(
  list: (items: readonly unknown[], schema: { parse(value: unknown): unknown; shape: object }) => void,
): [string, () => SampleSpec][] {
  return (Object.values(SCAFFOLDED_RESOURCES) as readonly PlatformResource[]).map((resource) => {
    const window = resource.window!;
    const to = window.toBound === "last_day" ? "2026-08-20" : "2026-08-21";
    const items = resource.envelope.shape === "paged" ? resource.envelope.items : "items";
    const spec = (): SampleSpec => ({
      query: `${window.from}=2026-08-01&${window.to}=${to}&per_page=100`,
      check: (b) => {
        const parsed = exact(published(resource) as never as { parse(v: unknown): object; shape: object }, b);
        const rows = (parsed as Record<string, unknown[]>)[items]!;
        expect(rows.length, resource.paths["2024"]).toBeGreaterThan(0);
        list(rows, resource.item as never as { parse(value: unknown): unknown; shape: object });
      },
    });
    return [`GET ${resource.paths["2024"]}`, spec];
  });
}

/** A valid request per route (built from the seeded world) and a 404 request per route with an id. */
async function routeRequests(
  sandbox: RunningSandbox,
  call: Call,
  admin: Admin,
): Promise<{ samples: Record<RouteKey, () => Sample>; unknownIds: UnknownIds }> {
  const account = sandbox.world.accounts[0]!;
  const sub = sandbox.world.accounts[1]!;
  const cdr = (
    await admin<{ uuid: string }[]>("/_sandbox/truth/cdrs?account=master&from=2026-08-03&to=2026-08-03")
  )[0]!;
  const transcription = (
    await admin<{ call_uuid: string }[]>(
      "/_sandbox/truth/transcriptions?account=master&from=2026-08-03&to=2026-08-03",
    )
  )[0]!;
  const recordings = await admin<Record<string, unknown>[]>(
    "/_sandbox/truth/recordings?account=master&from=2026-08-03&to=2026-08-03",
  );
  // An uploaded file's transcription (the only kind speech-analytics answers), ready at this clock.
  const upload = (
    await admin<{ request_id: string; transcription: unknown }[]>(
      "/_sandbox/truth/uploaded_transcriptions?account=master&from=2026-08-01&to=2026-08-20",
    )
  ).find((u) => u.transcription !== null)!;
  const world = await admin<{
    accounts: { brands: { brand_id: string; campaigns: { campaign_id: string; status: string }[] }[] }[];
  }>("/_sandbox/world");
  const brands = world.accounts[0]!.brands;
  const nudgeable = brands
    .flatMap((b) => b.campaigns.map((c) => ({ brand: b.brand_id, ...c })))
    .find((c) => c.status !== "ACTIVE");
  // Seed 17 gives the master a campaign under review or rejected (the nudge needs one).
  expect(nudgeable).toBeDefined();
  const smsDid = account.dids.find((d) => d.smsEnabled)!;
  const list = <T>(items: readonly unknown[], schema: { parse(value: unknown): T; shape: object }) => {
    for (const item of items) exact(schema, item);
  };
  const forSale = published(CATALOGUE.available_numbers)
    .parse(
      (
        await call(
          "GET /v1/buy/countries/{country}/cities/{city}/dids",
          pathOf("GET /v1/buy/countries/{country}/cities/{city}/dids", {
            ids: [1, 102],
            query: "per_page=2",
          }),
        )
      ).body,
    )
    .dids.map((d) => d.number);
  const specs: Record<Exclude<RouteKey, ScaffoldedRoute>, () => SampleSpec> = {
    "POST /v1/api-keys": () => ({
      body: { label: "contract" },
      check: (b) => exact(apiKeySchema, b),
    }),
    "GET /v1/mydids": () => ({
      query: "page=1&per_page=2",
      check: (b) => {
        const parsed = exact(published(CATALOGUE.numbers), b);
        expect(exact(paginationSchema, parsed.pagination)).toMatchObject({
          per_page: 2,
          total: account.dids.length,
        });
        expect(parsed.items).toHaveLength(2);
        list(parsed.items, didSchema);
        list(parsed.doc_types, docTypeSchema);
      },
    }),
    "PUT /v1/mydids/{id}": () => ({
      ids: [smsDid.id],
      body: { sms_relay_url: "https://example.org/sms", call_status_url: "https://example.org/status" },
      check: (b) => {
        const did = exact(didSchema, b);
        expect(did.destination.length).toBeGreaterThan(0);
        list(did.destination, inboundCallDestinationSchema);
        list(did.documents, didDocumentSchema);
      },
    }),
    "GET /v1/buy/countries/{country}/cities": () => ({
      ids: ["1"],
      query: "text_enabled_only=true",
      check: (b) => list(exact(published(CATALOGUE.number_cities), b).cities, citySchema),
    }),
    "GET /v1/buy/countries/{country}/cities/{city}/dids": () => ({
      ids: ["1", "101"],
      query: "page=2&per_page=5",
      check: (b) => {
        const parsed = exact(published(CATALOGUE.available_numbers), b);
        exact(paginationSchema, parsed.pagination);
        list(parsed.dids, purchasableNumberSchema);
      },
    }),
    "PUT /v1/buy/cart": () => ({
      body: { ids: forSale },
      check: (b) => {
        const added = cartResponseSchema.parse(b);
        expect(added.map((n) => n.number)).toEqual(forSale);
        list(added, purchasableNumberSchema);
      },
    }),
    "POST /v1/calls": () => ({
      body: { from: account.dids[0]!.number, to: "+14155550123", callback_url: "http://127.0.0.1:9/cb" },
      check: (b) => exact(callSchema, b),
    }),
    "GET /v1/cdr": () => ({
      query: "from=2026-08-03&to=2026-08-03&type=received&per_page=100",
      check: (b) => {
        const parsed = exact(published(CATALOGUE.cdrs), b);
        expect(parsed.items.length).toBeGreaterThan(0);
        list(parsed.items, cdrSchema);
      },
    }),
    "GET /v1/cdr/{uuid}": () => ({ ids: [cdr.uuid], check: (b) => exact(cdrDetailSchema, b) }),
    "GET /v1/recordings": () => ({
      query: "from_date=2026-08-03&to_date=2026-08-03&per_page=100",
      check: (b) => {
        const parsed = exact(published(CATALOGUE.recordings), b);
        exact(paginationSchema, parsed.pagination);
        expect(exact(invalidRecordingFiltersSchema, parsed.invalid)).toEqual({ dids: [], sip_trunks: [] });
        list(parsed.recordings ?? [], recordingSchema);
        // The list is the truth export's items of the day (created_at on 2026-08-03), in full.
        expect(parsed.recordings).toEqual(recordings);
        expect(recordings.length).toBeGreaterThan(0);
        for (const item of recordings) expect(String(item.created_at).slice(0, 10)).toBe("2026-08-03");
      },
    }),
    "GET /v1/recordings/{call_uuid}": () => ({
      ids: [String(recordings[0]!.call_uuid)],
      check: (b) => expect(exact(recordingSchema, b)).toEqual(recordings[0]),
    }),
    "GET /v1/calls/webhooks": () => ({
      check: (b) => list(published(CATALOGUE.call_webhooks).parse(b), callWebhookSchema),
    }),
    "DELETE /v1/calls/webhooks": () => ({
      query: "event_type=post-call",
      check: (b) => expect(exact(successBodySchema, b)).toEqual({ success: true }),
    }),
    "GET /v1/trunks": () => ({
      check: (b) => {
        const trunks = exact(published(CATALOGUE.sip_trunks), b).sip_trunks ?? [];
        list(trunks, sipTrunkSummarySchema);
        for (const trunk of trunks)
          if (trunk.host_request !== null) exact(hostRequestSchema, trunk.host_request);
        expect(trunks.slice(0, account.trunks.length).map((t) => t.name)).toEqual(
          account.trunks.map((t) => t.name),
        );
      },
    }),
    "GET /v1/trunks/{id}": () => ({
      ids: [account.trunks[0]!.id],
      check: (b) => {
        const trunk = exact(sipTrunkSchema, b);
        expect(trunk).toMatchObject({ name: account.trunks[0]!.name, label: account.trunks[0]!.label });
      },
    }),
    "POST /v1/trunks": () => ({
      body: {
        label: "Contract",
        password: "pw-123456",
        callerid: account.dids[0]!.number,
        ip_restrict: true,
        allowed_ips: [{ ip: "203.0.113.7" }],
        didinfo_enabled: true,
        call_restrict: true,
        call_limit: 600,
        cost_limit: true,
        max_call_cost: 2.5,
        channels_restrict: false,
        rewrite_enabled: false,
        transcription_enabled: false,
        transcription_threshold: 6,
      },
      check: (b) => {
        const trunk = exact(sipTrunkSchema, b);
        expect(trunk).toMatchObject({ call_limit: 600, max_call_cost: "2.50", max_channels: null });
      },
    }),
    "GET /v1/sub-organizations": () => ({
      query: "per_page=100",
      check: (b) => {
        const subs = exact(published(CATALOGUE.sub_accounts), b).sub_organizations;
        list(subs, subAccountSchema);
        expect(subs.map((s) => s.id)).toEqual(
          sandbox.world.accounts.filter((a) => a.role === "sub").map((a) => a.id),
        );
      },
    }),
    "GET /v1/sub-organizations/{id}": () => ({
      ids: [sub.id],
      check: (b) => exact(subAccountSchema, b),
    }),
    "PUT /v1/sub-organizations/{id}": () => ({
      ids: [sub.id],
      body: { name: sub.companyName, default_destinations: { dlr_endpoint: "https://example.org/dlr" } },
      check: (b) =>
        expect(exact(subAccountSchema, b).default_destinations.dlr_endpoint).toBe("https://example.org/dlr"),
    }),
    "GET /v1/short-links/metrics": () => ({
      query: "from=2026-08-01&to=2026-08-02&per_page=100",
      check: (b) => {
        const parsed = exact(published(CATALOGUE.short_link_metrics), b);
        expect(parsed.metrics.length).toBeGreaterThan(0);
        list(parsed.metrics, shortLinkMetricSchema);
      },
    }),
    "GET /v1/validation/{uuid}": () => ({
      ids: [account.validations[0]!.token],
      check: (b) => {
        const parsed = exact(validationResponseSchema, b);
        expect(parsed.items.length).toBeGreaterThan(0);
        // An HLR lookup returns every field of the Number validation result.
        for (const item of parsed.items) {
          exact(numberValidationResultSchema, item);
          expect(Object.keys(item).sort()).toEqual(Object.keys(numberValidationResultSchema.shape).sort());
        }
      },
    }),
    "GET /v1/cdr/{uuid}/transcription": () => ({
      ids: [transcription.call_uuid],
      check: (b) => {
        const parsed = exact(callTranscriptionSchema, b);
        expect(parsed.call_uuid).toBe(transcription.call_uuid);
        // The call's date, from and to come with the 2026 revision only.
        expect(Object.keys(b as object).filter((k) => ["date", "from", "to"].includes(k))).toEqual([]);
      },
    }),
    "GET /v1/speech-analytics/{uuid}": () => ({
      ids: [upload.request_id],
      check: (b) => expect(exact(transcriptionSchema, b)).toEqual(upload.transcription),
    }),
    "GET /v3/10dlc/brands": () => ({
      check: (b) => {
        const listed = published(CATALOGUE.ten_dlc_brands).parse(b);
        list(listed, tenDlcBrandSchema);
        for (const brand of listed) list(brand.campaigns, tenDlcCampaignSummarySchema);
        expect(listed).toEqual(brands);
      },
    }),
    "GET /v3/10dlc/brands/{brand_id}/appeals": () => ({
      ids: [brands[0]!.brand_id],
      check: (b) => list(published(CATALOGUE.brand_appeals).parse(b), tenDlcAppealSchema),
    }),
    "POST /v3/10dlc/brands/{brand_id}/campaigns/{campaign_id}/nudge": () => ({
      ids: [nudgeable!.brand, nudgeable!.campaign_id],
      body: {
        nudge_intent: nudgeable!.status === "PENDING" ? "REVIEW" : "APPEAL_REJECTION",
        description: "please",
      },
      check: (b) => expect(exact(successBodySchema, b)).toEqual({ success: true }),
    }),
    "GET /v3/messages": () => ({
      query: "type=outbound&sent_after=2026-08-03&sent_before=2026-08-04&per_page=100",
      check: (b) => {
        const parsed = exact(published(CATALOGUE.messages), b);
        exact(paginationSchema, parsed.pagination);
        expect(parsed.items.length).toBeGreaterThan(0);
        for (const item of parsed.items) {
          const message = exact(messageSchema, item);
          exact(messageBodySchema, message.message_body);
          expect(message).toMatchObject({ direction: "outbound" });
          expect(message.submitted_at.slice(0, 10)).toBe("2026-08-03");
        }
      },
    }),
    "GET /v1/billing/invoices": () => ({
      check: (b) => {
        const parsed = exact(published(CATALOGUE.invoices), b);
        expect(parsed.invoices.length).toBeGreaterThan(0);
        list(parsed.invoices, invoiceSchema);
      },
    }),
    "GET /v1/billing/transactions": () => ({
      query: "from_date=2026-08-01&to_date=2026-08-03&per_page=100",
      check: (_b, text) => ledgerPage(text, 100),
    }),
    "GET /v1/sub-organizations/{id}/billing/transactions": () => ({
      ids: [sub.id],
      query: "from_date=2026-08-01&to_date=2026-08-01&per_page=100",
      check: (_b, text) => ledgerPage(text, 100),
    }),
    "POST /v2/webrtc/tokens": () => ({
      body: { sip_trunk: account.trunks[0]!.name, ttl: null },
      check: (b) => exact(widgetTokenSchema, b),
    }),
  };
  const unknownIds: UnknownIds = {
    "PUT /v1/mydids/{id}": { ids: ["424242"], body: {} },
    "GET /v1/trunks/{id}": { ids: ["424242"] },
    "GET /v1/buy/countries/{country}/cities": { ids: ["44"] },
    "GET /v1/buy/countries/{country}/cities/{city}/dids": { ids: ["1", "999"] },
    "GET /v1/cdr/{uuid}": { ids: ["5d2f3c1e-0000-4000-8000-000000000000"] },
    "GET /v1/recordings/{call_uuid}": { ids: [`${cdr.uuid}x`] },
    "GET /v1/sub-organizations/{id}": { ids: ["1"] },
    "GET /v1/sub-organizations/{id}/billing/transactions": {
      ids: ["1"],
    },
    "PUT /v1/sub-organizations/{id}": { ids: ["1"], body: { name: "x" } },
    "GET /v1/validation/{uuid}": { ids: ["not-a-token"], extra: { error_code: "011" } },
    "GET /v1/cdr/{uuid}/transcription": { ids: [`${cdr.uuid}x`] },
    // A call's uuid is no transcription request id: a call's transcription is read under its CDR.
    "GET /v1/speech-analytics/{uuid}": { ids: [transcription.call_uuid] },
    "GET /v3/10dlc/brands/{brand_id}/appeals": { ids: ["BNOSUCH"] },
    "POST /v3/10dlc/brands/{brand_id}/campaigns/{campaign_id}/nudge": {
      ids: [brands[0]!.brand_id, "CNOSUCH"],
      body: { nudge_intent: "REVIEW", description: "x" },
    },
  };
  const samples = Object.fromEntries(
    ([...Object.entries(specs), ...scaffoldedSpecs(list)] as [RouteKey, () => SampleSpec][]).map(
      ([route, spec]) => [
        route,
        (): Sample => {
          const sample = spec();
          return { ...sample, path: pathOf(route, sample) };
        },
      ],
    ),
  ) as Record<RouteKey, () => Sample>;
  return { samples, unknownIds };
}

/** The file's sandbox (seed 17) with its client, its master key, and the requests per route. */
const it = fixtureTest
  .extend("master", { scope: "file" }, ({ sandbox }) => sandbox.world.accounts[0]!.apiKey)
  .extend(
    "call",
    { scope: "file" },
    ({ sandbox }): Call =>
      (route, path, options) =>
        send(sandbox, route, path, options),
  )
  .extend(
    "admin",
    { scope: "file" },
    ({ sandbox }): Admin =>
      (path, body) =>
        adminRequest(sandbox, path, body),
  )
  .extend("requests", { scope: "file" }, ({ sandbox, call, admin }) => routeRequests(sandbox, call, admin))
  .extend("samples", { scope: "file" }, ({ requests }) => requests.samples)
  .extend("unknownIds", { scope: "file" }, ({ requests }) => requests.unknownIds);
it.override({ sandboxOptions: { seed: 17, days: 20, callsPerDay: 80, now: "2026-09-02T00:00:00Z" } });

const ROUTES = routesOf("2024").map((r) => ({
  key: `${r.method} ${r.path}` as RouteKey,
  permission: r.permission as Permission,
}));

/** A restricted key with the given level per resource (others: no access). */
async function restrictedKey(
  call: Call,
  levels: Partial<Record<PermissionResource, "none" | "read" | "write">>,
): Promise<string> {
  const created = await call("POST /v1/api-keys", "/v1/api-keys", {
    body: { label: "restricted", permissions: levels },
  });
  expect(created.status).toBe(200);
  return apiKeySchema.parse(created.body).value!;
}

describe("sandbox contract: every platform route over HTTP", () => {
  it.for(ROUTES)(
    "$key answers a valid request with a body that fits its schema",
    async ({ key }, { call, samples }) => {
      const sample = samples[key]();
      const answer = await call(key, sample.path, { body: sample.body });
      expect(answer.status).toBe(200);
      sample.check(answer.body, answer.text);
    },
  );

  it.for(ROUTES)(
    "$key answers 401 without a key, with an unknown key, and accepts appid",
    async ({ key }, { call, master, samples }) => {
      const sample = samples[key]();
      for (const credential of [null, "ffffffffffffffffffffffffffffffff"]) {
        const answer = await call(key, sample.path, { key: credential, body: sample.body });
        expect(answer).toEqual({ status: 401, body: UNAUTHORIZED });
      }
      const joiner = sample.path.includes("?") ? "&" : "?";
      const legacy = await call(key, `${sample.path}${joiner}appid=${master}`, {
        key: null,
        body: sample.body,
      });
      expect([401, 403]).not.toContain(legacy.status);
    },
  );

  it.for(ROUTES)(
    "$key answers 403 to a key without its permission ($permission)",
    async ({ key, permission }, { call, samples }) => {
      const [resource, level] = permission.split(":") as [PermissionResource, "read" | "write"];
      const everythingElse = Object.fromEntries(
        PERMISSION_RESOURCES.filter((r) => r !== resource).map((r) => [r, "write"]),
      ) as Record<PermissionResource, "write">;
      const lacking = [await restrictedKey(call, everythingElse)];
      if (level === "write")
        lacking.push(await restrictedKey(call, { ...everythingElse, [resource]: "read" }));
      const sample = samples[key]();
      const extra = key === "GET /v1/validation/{uuid}" ? { error_code: "012" } : {};
      for (const value of lacking) {
        const answer = await call(key, sample.path, { key: value, body: sample.body });
        expect(answer).toEqual({ status: 403, body: { ...FORBIDDEN, ...extra } });
      }
      const exactly = await restrictedKey(call, { [resource]: level });
      const allowed = await call(key, sample.path, { key: exactly, body: sample.body });
      expect([401, 403]).not.toContain(allowed.status);
    },
  );

  it.for(ROUTES)(
    "$key answers 403 to a caller outside the key's IP allowlist",
    async ({ key }, { call, samples }) => {
      const sample = samples[key]();
      const extra = key === "GET /v1/validation/{uuid}" ? { error_code: "012" } : {};
      for (const permitted_ips of [["203.0.113.9"], []]) {
        const created = await call("POST /v1/api-keys", "/v1/api-keys", {
          body: { is_restriction: true, permitted_ips },
        });
        const value = apiKeySchema.parse(created.body).value!;
        const answer = await call(key, sample.path, { key: value, body: sample.body });
        expect(answer).toEqual({ status: 403, body: { ...FORBIDDEN, ...extra } });
      }
      const local = await call("POST /v1/api-keys", "/v1/api-keys", {
        body: { is_restriction: true, permitted_ips: ["10.0.0.1", "127.0.0.1"] },
      });
      const allowed = await call(key, sample.path, {
        key: apiKeySchema.parse(local.body).value!,
        body: sample.body,
      });
      expect([401, 403]).not.toContain(allowed.status);
    },
  );

  it("answers 404 Record not found for unknown ids and paths", async ({ call, unknownIds }) => {
    for (const [key, request] of Object.entries(unknownIds) as [
      RouteKey,
      NonNullable<(typeof unknownIds)[RouteKey]>,
    ][]) {
      const answer = await call(key, pathOf(key, request), { body: request.body });
      expect({ key, ...answer }).toEqual({ key, status: 404, body: { ...NOT_FOUND, ...request.extra } });
    }
    expect(await call("unmatched", "/v2/no-such-endpoint")).toEqual({ status: 404, body: NOT_FOUND });
  });

  it.for(["GET /v1/speech-analytics/{uuid}", "GET /v1/cdr/{uuid}/transcription"] as const)(
    "answers 202 pending while a transcription is being made (%s)",
    async (route, { call, admin, samples }) => {
      const path = samples[route]().path;
      const ready = (await call(route, path)).body as { transcription_date: string };
      const { now } = await admin<{ now: string }>("/_sandbox/clock");
      await admin("/_sandbox/clock", {
        now: new Date(Date.parse(ready.transcription_date) - 1000).toISOString(),
      });
      const pending = await call(route, path);
      await admin("/_sandbox/clock", { now });
      expect(pending.status).toBe(202);
      expect(pendingBodySchema.parse(pending.body)).toEqual({
        success: true,
        message: "The transcription is still pending",
      });
    },
  );

  it("counts exactly these requests in GET /_sandbox/stats, by route and status", async ({ admin }) => {
    const stats = await admin<{
      total: number;
      routes: Record<string, Record<string, number>>;
      faults: Record<string, number>;
      callbacks: { delivered: number; failed: number };
      cached_cdr_rows: number;
    }>("/_sandbox/stats");
    const expected = Object.fromEntries(
      [...tally].map(([route, byStatus]) => [route, Object.fromEntries(byStatus)]),
    );
    expect(stats.routes).toEqual(expected);
    expect(stats.total).toBe(
      [...tally.values()].reduce((sum, m) => sum + [...m.values()].reduce((a, b) => a + b, 0), 0),
    );
    for (const route of ROUTES) expect(stats.routes[route.key]?.["200"]).toBeGreaterThan(0);
    expect(stats.faults).toEqual({});
    expect(stats.cached_cdr_rows).toBeGreaterThan(0);
    expect(stats.callbacks).toEqual({ delivered: 0, failed: expect.any(Number) });
  });
});
