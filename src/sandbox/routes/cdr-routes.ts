import { CDR_DISPOSITION_FILTERS, CDR_TYPES } from "../../platform/cdr.js";
import { findCall } from "../call-lookup.js";
import { transcriptionOf } from "../generate-transcription.js";
import {
  booleanParam,
  enumParam,
  notFound,
  ParamError,
  rawJson,
  requireDate,
  type SandboxResponse,
} from "../http/http-kit.js";
import { readPaging } from "../http/paging.js";
import { DAY_MS } from "../sandbox-options.js";
import { appendJsonField, serializeCdrDetail } from "../serialize-cdr.js";
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

/**
 * `GET /v1/cdr/{uuid}`: one visible CDR of the caller's account, with `recording_url`; with
 * `show_transcription=true` it adds `transcription` (the Transcription object once ready, else null).
 */
function getCdr(context: RouteContext): SandboxResponse {
  const { runtime } = context;
  const row = findCall(runtime, context.account, context.params.uuid ?? "");
  const nowMs = runtime.clock.now();
  if (!row || row.call.visibleAtMs > nowMs) return notFound();
  const detail = serializeCdrDetail(row.json, row.call);
  if (!booleanParam(context.request.query, "show_transcription", false)) return rawJson(200, detail);
  const spec = row.call.transcription;
  const transcription =
    spec && spec.readyAtMs <= nowMs
      ? transcriptionOf(runtime.world.seed, context.account.id, row.call)
      : null;
  return rawJson(200, appendJsonField(detail, "transcription", transcription));
}

/** CDR routes. */
export const cdrRoutes: readonly PlatformHandler[] = [
  { method: "GET", path: "/v1/cdr", handle: listCdrs },
  { method: "GET", path: "/v1/cdr/{uuid}", handle: getCdr },
];
