import {
  cartRequestSchema,
  type Did,
  type PurchasableNumber,
  updateDidRequestSchema,
} from "../../platform/numbers.js";
import { US_CITIES } from "../catalog.js";
import { booleanParam, json, notFound, ParamError, type SandboxResponse } from "../http/http-kit.js";
import { pageSlice, paginationOf, readPaging } from "../http/paging.js";
import { parseBody } from "../http/parse-body.js";
import { formatMicros } from "../money.js";
import {
  availableNumbers,
  cityHasTextNumbers,
  findAvailableNumber,
  US_COUNTRY_ID,
} from "../number-catalog.js";
import type { SandboxAccount, SandboxDid } from "../world.js";
import { shufflePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

function intParam(context: RouteContext, name: string): number {
  const raw = context.params[name] ?? "";
  if (!/^\d+$/.test(raw) || Number(raw) > 2_147_483_647) throw new ParamError(400, name);
  return Number(raw);
}

/** The DID object of an owned number with its current settings. */
function didView(context: RouteContext, account: SandboxAccount, did: SandboxDid): Did {
  const settings = context.runtime.state.didSettingsOf(account, did.id)!;
  const trunk = account.trunks.find((t) => t.id === did.forward.trunkId) ?? account.trunks[0]!;
  const now = new Date(context.runtime.clock.now());
  const paidUntil = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
    .toISOString()
    .slice(0, 10);
  return {
    id: did.id,
    number: did.number,
    activation_fee: formatMicros(did.activationFeeMicros),
    monthly_fee: formatMicros(did.monthlyFeeMicros),
    per_min: formatMicros(did.perMinMicros),
    city: did.city,
    country: "United States",
    country_short_name: "US",
    destination: [
      {
        id: did.id * 10 + 1,
        destination: did.forward.target,
        priority: 1,
        transport: did.forward.kind === "pstn" ? 3 : did.forward.kind === "sip" ? 2 : 1,
        trunk_id: trunk.id,
        trunk_label: trunk.label,
        srtp: false,
      },
    ],
    channels: did.channels,
    require_docs: [],
    documents: [],
    domestic_cli: false,
    label: null,
    status: "active",
    seconds: "0",
    added: new Date(did.addedMs).toISOString().slice(0, 19) + "Z",
    paid_until: paidUntil,
    sms_enabled: did.smsEnabled,
    sms_relay_url: settings.smsRelayUrl,
    cnam: null,
    call_recording_enabled: settings.callRecordingEnabled,
    transcription_enabled: settings.transcriptionEnabled,
    transcription_threshold: settings.transcriptionThreshold,
    state: did.state,
    call_status_url: settings.callStatusUrl,
  };
}

/** `PUT /v1/mydids/{id}`: 422 when `sms_relay_url` is set on a number that is not SMS-enabled. */
function updateDid(context: RouteContext): SandboxResponse {
  const id = intParam(context, "id");
  const did = context.account.dids.find((d) => d.id === id);
  if (!did) return notFound();
  const body = parseBody(context.request, updateDidRequestSchema);
  if (body.sms_relay_url !== undefined && body.sms_relay_url !== null && !did.smsEnabled) {
    throw new ParamError(422, "sms_relay_url");
  }
  const { state } = context.runtime;
  const current = state.didSettingsOf(context.account, did.id)!;
  state.setDidSettings(did.id, {
    callRecordingEnabled: body.call_recording_enabled ?? current.callRecordingEnabled,
    transcriptionEnabled: body.transcription_enabled ?? current.transcriptionEnabled,
    transcriptionThreshold: body.transcription_threshold ?? current.transcriptionThreshold,
    smsRelayUrl: body.sms_relay_url === undefined ? current.smsRelayUrl : body.sms_relay_url,
    callStatusUrl: body.call_status_url ?? current.callStatusUrl,
  });
  return json(200, didView(context, context.account, did));
}

/** `GET /v1/buy/countries/{country}/cities?text_enabled_only=`. */
function listCities(context: RouteContext): SandboxResponse {
  if (intParam(context, "country") !== US_COUNTRY_ID) return notFound();
  const textOnly = booleanParam(context.request.query, "text_enabled_only", false);
  const seed = context.runtime.world.seed;
  const cities = US_CITIES.filter((c) => !textOnly || cityHasTextNumbers(seed, c)).map((c) => ({
    area_code: c.areaCode,
    id: c.id,
    name: c.name,
  }));
  return json(200, { cities });
}

/** `GET /v1/buy/countries/{country}/cities/{city}/dids?text_enabled_only=&page=&per_page=`. */
function listAvailable(context: RouteContext): SandboxResponse {
  if (intParam(context, "country") !== US_COUNTRY_ID) return notFound();
  const cityId = intParam(context, "city");
  const city = US_CITIES.find((c) => c.id === cityId);
  if (!city) return notFound();
  const { query } = context.request;
  const textOnly = booleanParam(query, "text_enabled_only", false);
  const paging = readPaging(query, context.runtime.options.maxPerPage);
  const numbers = availableNumbers(context.runtime.world.seed, city).filter(
    (n) => !textOnly || n.sms_enabled,
  );
  const dids = pageSlice(numbers, paging);
  if (context.runtime.options.shuffle) shufflePage(context, dids);
  return json(200, { dids, pagination: paginationOf(paging, numbers.length) });
}

/** `PUT /v1/buy/cart`: adds available numbers (by digits) to the account's cart. */
function addToCart(context: RouteContext): SandboxResponse {
  const body = parseBody(context.request, cartRequestSchema);
  const seed = context.runtime.world.seed;
  const added: PurchasableNumber[] = [];
  for (const id of body.ids) {
    const number = findAvailableNumber(seed, id);
    if (!number) throw new ParamError(422, "ids");
    added.push(number);
  }
  const cart = context.runtime.state.carts.get(context.account.index) ?? new Set<string>();
  for (const n of added) cart.add(n.number);
  context.runtime.state.carts.set(context.account.index, cart);
  return json(200, added);
}

/** Number routes. */
export const numberRoutes: readonly PlatformHandler[] = [
  { method: "PUT", path: "/v1/mydids/{id}", handle: updateDid },
  { method: "GET", path: "/v1/buy/countries/{country}/cities", handle: listCities },
  { method: "GET", path: "/v1/buy/countries/{country}/cities/{city}/dids", handle: listAvailable },
  { method: "PUT", path: "/v1/buy/cart", handle: addToCart },
];
