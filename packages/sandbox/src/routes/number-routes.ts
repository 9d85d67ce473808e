import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import {
  cartRequestSchema,
  type PurchasableNumber,
  updateDidRequestSchema,
} from "@telecom-etl/platform/numbers.js";
import { US_CITIES } from "../catalog.js";
import { booleanParam, json, notFound, ParamError, rawJson, type SandboxResponse } from "../http/http-kit.js";
import { pageSlice, paginationOf, readPaging } from "../http/paging.js";
import { parseBody } from "../http/parse-body.js";
import {
  availableNumbers,
  cityHasTextNumbers,
  findAvailableNumber,
  US_COUNTRY_ID,
} from "../number-catalog.js";
import { DOC_TYPES, didView, ownedDidRows } from "../owned-numbers.js";
import { catalogueHandlers, idAt, type PathId } from "./catalogue-routes.js";
import { arraySource, listShapeOf, servePage, shufflePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** A path id that must be a 32-bit unsigned integer: 400 naming it otherwise. */
function intId({ name, value }: PathId): number {
  if (!/^\d+$/.test(value) || Number(value) > 2_147_483_647) throw new ParamError(400, name);
  return Number(value);
}

function intParam(context: RouteContext, name: string): number {
  return intId({ name, value: context.params[name] ?? "" });
}

/** `PUT /v1/mydids/{id}` (2024), `PUT /v1/numbers/{id}` (2026): 422 when `sms_relay_url` is set on a number that is not SMS-enabled. */
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
  return json(200, didView(context.runtime, context.account, did, context.runtime.clock.now()));
}

/**
 * `GET /v1/mydids` (2024), `GET /v1/numbers` (2026): `{"items", "doc_types", "pagination"}`, the
 * account's owned numbers with their current settings, by id, paginated (`page`, `per_page`), and
 * the document types numbers may require; page faults and `shuffle` apply, row faults do not.
 */
function listOwned(context: RouteContext): SandboxResponse {
  const paging = readPaging(context.request.query, context.runtime.options.maxPerPage);
  const rows = ownedDidRows(context.runtime, context.account, context.runtime.clock.now()).map((r) => ({
    json: r.json,
    day: 0,
    index: r.id,
  }));
  return rawJson(
    200,
    servePage(
      context,
      listShapeOf(CATALOGUE.numbers, null, { extra: { doc_types: DOC_TYPES } }),
      arraySource(rows),
      paging,
    ),
  );
}

/**
 * `GET /v1/buy/countries/{country}/cities?text_enabled_only=` (2024; the path parameter is
 * `country_id` in 2026): `{"cities": [...]}`, the member the catalogue names.
 */
function listCities(context: RouteContext, ids: readonly PathId[]): SandboxResponse {
  if (intId(idAt(ids, 0)) !== US_COUNTRY_ID) return notFound();
  const textOnly = booleanParam(context.request.query, "text_enabled_only", false);
  const seed = context.runtime.world.seed;
  const cities = US_CITIES.filter((c) => !textOnly || cityHasTextNumbers(seed, c)).map((c) => ({
    area_code: c.areaCode,
    id: c.id,
    name: c.name,
  }));
  return json(200, { [CITIES.envelope.items]: cities });
}

/**
 * `GET /v1/buy/countries/{country}/cities/{city}/dids?text_enabled_only=&page=&per_page=` (2024;
 * `country_id` and `city_id` in 2026): `{"dids": [...], "pagination"}`, the member the catalogue names.
 */
function listAvailable(context: RouteContext, ids: readonly PathId[]): SandboxResponse {
  if (intId(idAt(ids, 0)) !== US_COUNTRY_ID) return notFound();
  const cityId = intId(idAt(ids, 1));
  const city = US_CITIES.find((c) => c.id === cityId);
  if (!city) return notFound();
  const { query } = context.request;
  const textOnly = booleanParam(query, "text_enabled_only", false);
  const paging = readPaging(query, context.runtime.options.maxPerPage);
  const numbers = availableNumbers(context.runtime.world.seed, city, context.runtime.clock.now()).filter(
    (n) => !textOnly || n.sms_enabled,
  );
  const dids = pageSlice(numbers, paging);
  if (context.runtime.options.shuffle) shufflePage(context, dids);
  return json(200, { [AVAILABLE.envelope.items]: dids, pagination: paginationOf(paging, numbers.length) });
}

const CITIES = CATALOGUE.number_cities;
const AVAILABLE = CATALOGUE.available_numbers;

/** `PUT /v1/buy/cart`: adds available numbers (by digits) to the account's cart. */
function addToCart(context: RouteContext): SandboxResponse {
  const body = parseBody(context.request, cartRequestSchema);
  const seed = context.runtime.world.seed;
  const added: PurchasableNumber[] = [];
  for (const id of body.ids) {
    const number = findAvailableNumber(seed, id, context.runtime.clock.now());
    if (!number) throw new ParamError(422, "ids");
    added.push(number);
  }
  const cart = context.runtime.state.carts.get(context.account.index) ?? new Set<string>();
  for (const n of added) cart.add(n.number);
  context.runtime.state.carts.set(context.account.index, cart);
  return json(200, added);
}

/** Number routes: the catalogue's reads under their path of each API revision, and the writes. */
export const numberRoutes: readonly PlatformHandler[] = [
  ...catalogueHandlers(CATALOGUE.numbers, listOwned),
  { method: "PUT", path: "/v1/mydids/{id}", handle: updateDid },
  { method: "PUT", path: "/v1/numbers/{id}", handle: updateDid },
  ...catalogueHandlers(CITIES, listCities),
  ...catalogueHandlers(AVAILABLE, listAvailable),
  { method: "PUT", path: "/v1/buy/cart", handle: addToCart },
];
