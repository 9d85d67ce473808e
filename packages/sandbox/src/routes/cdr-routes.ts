import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { CDR_DISPOSITION_FILTERS, CDR_TYPES } from "@telecom-etl/platform/cdr.js";
import { visibleCall } from "../call-lookup.js";
import { type CdrSelection, forEachSelected, selectedChunks } from "../cdr-query.js";
import { rowJson } from "../cdr-store.js";
import { callTranscriptionOf } from "../generate-transcription.js";
import { booleanParam, enumParam, notFound, rawJson, type SandboxResponse } from "../http/http-kit.js";
import { rejectReversed, requiredWindow } from "../http/list-window.js";
import { readPaging } from "../http/paging.js";
import { DAY_MS } from "../sandbox-options.js";
import { appendJsonField, serializeCdrDetail } from "../serialize-cdr.js";
import { servedCdr } from "../served-calls.js";
import { catalogueHandlers } from "./catalogue-routes.js";
import { listShapeOf, type PageRow, type RowSource, servePage } from "./page-body.js";
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

const CDRS = CATALOGUE.cdrs;

/** `GET /v1/cdr` (2024), `GET /v1/cdrs` (2026): the catalogue's window (from/to, inclusive UTC days), type, disposition, from_search, to_search, sip_trunk, uuid, paging. */
function listCdrs(context: RouteContext): SandboxResponse {
  const { query } = context.request;
  const window = requiredWindow(query, CDRS.window);
  const type = enumParam(query, "type", CDR_TYPES);
  const disposition = enumParam(query, "disposition", CDR_DISPOSITION_FILTERS, "all");
  rejectReversed(window, CDRS.window);
  const paging = readPaging(query, context.runtime.options.maxPerPage);
  const selection = context.runtime.cdrQuery.select(
    {
      account: context.account,
      type,
      fromMs: window.fromMs,
      toMs: window.untilMs - DAY_MS,
      disposition,
      fromSearch: optional(query, "from_search"),
      toSearch: optional(query, "to_search"),
      sipTrunk: optional(query, "sip_trunk"),
      uuid: optional(query, "uuid"),
    },
    context.runtime.clock.now(),
  );
  return rawJson(200, servePage(context, listShapeOf(CDRS, "cdrs"), selectionSource(selection), paging));
}

/**
 * `GET /v1/cdr/{uuid}` (2024), `GET /v1/cdrs/{call_id}` (2026): one visible CDR of the caller's
 * account, the row its list serves (row faults included) with `recording_url`; with
 * `show_transcription=true` it adds `transcription` (null until ready), in the call transcription
 * shape of `.../transcription` under the CDR of the revision (sandbox choice: the interface
 * document does not show it).
 */
const getCdr =
  (param: string) =>
  (context: RouteContext): SandboxResponse => {
    const { runtime } = context;
    const nowMs = runtime.clock.now();
    const call = visibleCall(runtime, context.account, context.params[param] ?? "", nowMs);
    if (!call) return notFound();
    // The row the list serves, fault and all: a call reads the same by id as in its window.
    const served = servedCdr(runtime, context.account, call);
    runtime.faults.countServed(served);
    const detail = serializeCdrDetail(served.json, call);
    if (!booleanParam(context.request.query, "show_transcription", false)) return rawJson(200, detail);
    const spec = call.transcription;
    const { seed } = runtime.world;
    const transcription =
      runtime.options.speechAnalytics && spec && spec.readyAtMs <= nowMs
        ? callTranscriptionOf(seed, call, runtime.options.apiRevision)
        : null;
    return rawJson(200, appendJsonField(detail, "transcription", transcription));
  };

/** CDR routes, under their path of each API revision (same query, same rows); one CDR's path is not in the catalogue. */
export const cdrRoutes: readonly PlatformHandler[] = [
  ...catalogueHandlers(CDRS, listCdrs),
  { method: "GET", path: "/v1/cdr/{uuid}", handle: getCdr("uuid") },
  { method: "GET", path: "/v1/cdrs/{call_id}", handle: getCdr("call_id") },
];
