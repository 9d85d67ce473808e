import { CDR_DISPOSITION_FILTERS, CDR_TYPES } from "../../platform/cdr.js";
import { decodeCallUuid } from "../call-uuid.js";
import {
  enumParam,
  notFound,
  ParamError,
  rawJson,
  requireDate,
  type SandboxResponse,
} from "../http/http-kit.js";
import { readPaging } from "../http/paging.js";
import { DAY_MS } from "../sandbox-options.js";
import { serializeCdrDetail } from "../serialize-cdr.js";
import { servePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

function optional(query: URLSearchParams, name: string): string | null {
  const value = query.get(name);
  return value === null || value === "" ? null : value;
}

/** `GET /v1/cdr`: from/to (inclusive UTC days), type, disposition, from_search, to_search, sip_trunk, uuid, paging. */
function listCdrs(context: RouteContext): SandboxResponse {
  const { query } = context.request;
  const fromMs = requireDate(query, "from");
  const toMs = requireDate(query, "to");
  const type = enumParam(query, "type", CDR_TYPES);
  const disposition = enumParam(query, "disposition", CDR_DISPOSITION_FILTERS, "all");
  if (toMs < fromMs) throw new ParamError(422, "to");
  const paging = readPaging(query, context.runtime.options.maxPerPage);
  const rows = context.runtime.cdrQuery.select(
    {
      account: context.account,
      type,
      fromMs,
      toMs,
      disposition,
      fromSearch: optional(query, "from_search"),
      toSearch: optional(query, "to_search"),
      sipTrunk: optional(query, "sip_trunk"),
      uuid: optional(query, "uuid"),
    },
    context.runtime.clock.now(),
  );
  const body = servePage(
    context,
    { stream: "cdrs", field: "items" },
    rows,
    (row) => ({ json: row.json, day: Math.floor(row.call.startMs / DAY_MS), index: row.call.index }),
    paging,
  );
  return rawJson(200, body);
}

/** `GET /v1/cdr/{uuid}`: one visible CDR of the caller's account, with `recording_url`. */
function getCdr(context: RouteContext): SandboxResponse {
  const { runtime } = context;
  const uuid = context.params.uuid ?? "";
  const at = decodeCallUuid(runtime.world.seed, uuid);
  if (at?.kind !== 0 || at.account !== context.account.index) return notFound();
  const dayMs = at.dayNumber * DAY_MS;
  if (dayMs < runtime.world.startMs || dayMs >= runtime.world.endMs) return notFound();
  const row = runtime.cdrs.day(context.account, at.dayNumber).byIndex[at.index];
  if (!row || row.call.uuid !== uuid || row.call.visibleAtMs > runtime.clock.now()) return notFound();
  return rawJson(200, serializeCdrDetail(row.json, row.call));
}

/** CDR routes. */
export const cdrRoutes: readonly PlatformHandler[] = [
  { method: "GET", path: "/v1/cdr", handle: listCdrs },
  { method: "GET", path: "/v1/cdr/{uuid}", handle: getCdr },
];
