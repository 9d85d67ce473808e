import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import type { SipTrunk } from "@telecom-etl/platform/sip-trunk.js";
import { createTrunkRequestSchema } from "@telecom-etl/platform/sip-trunk.js";
import { createWidgetTokenRequestSchema, type WidgetToken } from "@telecom-etl/platform/widget-token.js";
import { json, notFound, ParamError, rawJson, type SandboxResponse } from "../http/http-kit.js";
import { readPaging } from "../http/paging.js";
import { parseBody } from "../http/parse-body.js";
import { formatMicros } from "../money.js";
import { hash32, Rng } from "../prng.js";
import { trunkSummariesOf, trunksOf } from "../trunk-list.js";
import { catalogueHandlers } from "./catalogue-routes.js";
import { arraySource, listShapeOf, servePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** The account's maximum call duration, seconds (the platform does not publish it; this is the sandbox's). */
export const MAX_CALL_SECONDS = 14_400;
/** The account's outbound channel capacity (the sandbox's value). */
export const OUTBOUND_CHANNELS = 30;

/** Names of every trunk of the caller's account (seeded and created). */
function trunkNames(context: RouteContext): string[] {
  const created = context.runtime.state.createdTrunks.get(context.account.index) ?? [];
  return [...context.account.trunks.map((t) => t.name), ...created.map((t) => t.name)];
}

/**
 * `POST /v1/trunks`: callerid must be a number of the account (or empty with multiple_numbers);
 * allowed_ips required when ip_restrict; call_limit <= MAX_CALL_SECONDS and max_channels <=
 * OUTBOUND_CHANNELS, each ignored when its restriction flag is false; max_call_cost required when cost_limit.
 */
function createTrunk(context: RouteContext): SandboxResponse {
  const body = parseBody(context.request, createTrunkRequestSchema);
  const { account, runtime } = context;
  const multiple = body.multiple_numbers ?? false;
  if (!(account.dids.some((d) => d.number === body.callerid) || (multiple && body.callerid === ""))) {
    throw new ParamError(422, "callerid");
  }
  if (body.ip_restrict && (body.allowed_ips ?? []).length === 0) throw new ParamError(422, "allowed_ips");
  if (body.call_restrict && body.call_limit !== undefined && body.call_limit > MAX_CALL_SECONDS) {
    throw new ParamError(422, "call_limit");
  }
  if (body.channels_restrict && body.max_channels !== undefined && body.max_channels > OUTBOUND_CHANNELS) {
    throw new ParamError(422, "max_channels");
  }
  if (body.cost_limit && body.max_call_cost === undefined) throw new ParamError(422, "max_call_cost");
  const n = runtime.state.next();
  const rng = new Rng(hash32(runtime.world.seed, "created-trunk", n));
  const trunk: SipTrunk = {
    id: 800_000 + n,
    name: `sip${account.id}n${n}`,
    callerid: multiple ? "" : body.callerid,
    label: body.label,
    allowed_ips: (body.allowed_ips ?? []).map((a, i) => ({ id: (800_000 + n) * 10 + i, ip: a.ip })),
    created_at: new Date(runtime.clock.now()).toISOString().slice(0, 19) + "Z",
    ip_restrict: body.ip_restrict,
    channels_restrict: body.channels_restrict,
    max_channels: body.channels_restrict ? (body.max_channels ?? OUTBOUND_CHANNELS) : null,
    cost_limit: body.cost_limit,
    max_call_cost: body.cost_limit ? formatMicros(Math.round(body.max_call_cost! * 1_000_000)) : null,
    call_restrict: body.call_restrict,
    call_limit: body.call_restrict ? (body.call_limit ?? MAX_CALL_SECONDS) : null,
    didinfo_enabled: body.didinfo_enabled,
    rewrite_enabled: body.rewrite_enabled,
    rewrite_prefix: body.rewrite_prefix ?? "",
    rewrite_cond: body.rewrite_cond ?? "",
    call_recording_enabled: body.call_recording_enabled ?? false,
    machine_detection_enabled: body.machine_detection_enabled ?? false,
    transcription_enabled: body.transcription_enabled,
    transcription_threshold: body.transcription_threshold,
    host: body.host_request?.host ?? "dynamic",
    multiple_numbers: multiple,
    encrypted_media: body.encrypted_media ?? false,
    access_token: rng.hex(32),
  };
  const list = runtime.state.createdTrunks.get(account.index) ?? [];
  list.push(trunk);
  runtime.state.createdTrunks.set(account.index, list);
  return json(200, trunk);
}

/**
 * `GET /v1/trunks`: `{"sip_trunks": [summary, ...], "pagination"}`, the account's trunks, seeded and
 * created (see trunk-list.ts), paginated (`page`, `per_page`). An account without any trunk gets
 * `"sip_trunks": null` (how the platform writes an empty list); a page past the end of a non-empty
 * list gets `[]`. Page faults and `shuffle` apply, row faults do not.
 */
function listTrunks(context: RouteContext): SandboxResponse {
  const paging = readPaging(context.request.query, context.runtime.options.maxPerPage);
  const rows = trunkSummariesOf(context.runtime, context.account, context.runtime.clock.now()).map(
    (trunk) => ({ json: JSON.stringify(trunk), day: 0, index: trunk.id }),
  );
  return rawJson(200, servePage(context, listShapeOf(CATALOGUE.sip_trunks, null), arraySource(rows), paging));
}

/**
 * `GET /v1/trunks/{id}`: one trunk of the account with all its settings (the full trunk object
 * `POST /v1/trunks` answers); 404 for an id the account does not have (yet) at the clock.
 */
function getTrunk(context: RouteContext): SandboxResponse {
  const raw = context.params.id ?? "";
  if (!/^\d+$/.test(raw) || Number(raw) > 2_147_483_647) throw new ParamError(400, "id");
  const trunk = trunksOf(context.runtime, context.account, context.runtime.clock.now()).find(
    (t) => t.id === Number(raw),
  );
  return trunk === undefined ? notFound() : json(200, trunk);
}

/** `POST /v2/webrtc/tokens`: a widget token for one of the account's trunks. */
function createWidgetToken(context: RouteContext): SandboxResponse {
  const body = parseBody(context.request, createWidgetTokenRequestSchema);
  if (!trunkNames(context).includes(body.sip_trunk)) throw new ParamError(422, "sip_trunk");
  const n = context.runtime.state.next();
  const rng = new Rng(hash32(context.runtime.world.seed, "widget-token", n));
  const token: WidgetToken = {
    token: `wt_${rng.hex(48)}`,
    uuid: `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-a${rng.hex(3)}-${rng.hex(12)}`,
    sip_trunk: body.sip_trunk,
    payload: body.payload ?? {},
    ttl: body.ttl ?? null,
  };
  return json(200, token);
}

/** Trunk and widget routes (one trunk and the writes are not in the catalogue). */
export const trunkRoutes: readonly PlatformHandler[] = [
  ...catalogueHandlers(CATALOGUE.sip_trunks, listTrunks),
  { method: "GET", path: "/v1/trunks/{id}", handle: getTrunk },
  { method: "POST", path: "/v1/trunks", handle: createTrunk },
  { method: "POST", path: "/v2/webrtc/tokens", handle: createWidgetToken },
];
