import { CDR_DISPOSITION_FILTERS, CDR_TYPES } from "../../platform/cdr.js";
import { findCall } from "../call-lookup.js";
import { type CdrSelection, forEachSelected, selectedChunks } from "../cdr-query.js";
import { rowJson } from "../cdr-store.js";
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
import { appendJsonField, serializeCdr, serializeCdrDetail } from "../serialize-cdr.js";
import { type PageRow, type RowSource, servePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

function optional(query: URLSearchParams, name: string): string | null {
  const value = query.get(name);
  return value === null || value === "" ? null : value;
}

/** A row source over a CDR selection. */
function selectionSource(selection: CdrSelection): RowSource {
  return {
    total: selection.total,
    row: (i) => {
      let row: PageRow | undefined;
      forEachSelected(selection, i, i + 1, (rows, p, run) => {
        row = { json: rowJson(rows, p), day: run.dayNumber, index: rows.index[p]! };
      });
      return row!;
    },
    chunks: (start, end) => selectedChunks(selection, start, end),
  };
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
  const selection = context.runtime.cdrQuery.select(
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
  return rawJson(
    200,
    servePage(context, { stream: "cdrs", field: "items" }, selectionSource(selection), paging),
  );
}

/**
 * `GET /v1/cdr/{uuid}`: one visible CDR of the caller's account, with `recording_url`; with
 * `show_transcription=true` it adds `transcription` (the Transcription object once ready, else null).
 */
function getCdr(context: RouteContext): SandboxResponse {
  const { runtime } = context;
  const call = findCall(runtime, context.account, context.params.uuid ?? "");
  const nowMs = runtime.clock.now();
  if (!call || call.visibleAtMs > nowMs) return notFound();
  const detail = serializeCdrDetail(serializeCdr(call), call);
  if (!booleanParam(context.request.query, "show_transcription", false)) return rawJson(200, detail);
  const spec = call.transcription;
  const transcription =
    spec && spec.readyAtMs <= nowMs ? transcriptionOf(runtime.world.seed, context.account.id, call) : null;
  return rawJson(200, appendJsonField(detail, "transcription", transcription));
}

/** CDR routes. */
export const cdrRoutes: readonly PlatformHandler[] = [
  { method: "GET", path: "/v1/cdr", handle: listCdrs },
  { method: "GET", path: "/v1/cdr/{uuid}", handle: getCdr },
];
