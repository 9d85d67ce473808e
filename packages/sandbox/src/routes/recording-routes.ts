import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { visibleCall } from "../call-lookup.js";
import type { CdrCall } from "../generate-cdr-day.js";
import { notFound, optionalText, rawJson, type SandboxResponse } from "../http/http-kit.js";
import { optionalWindow, rejectReversed } from "../http/list-window.js";
import { readPaging } from "../http/paging.js";
import { recordingRowOf, selectRecordings } from "../recording-query.js";
import { catalogueHandlers } from "./catalogue-routes.js";
import { arraySource, listShapeOf, rowIdentity, servePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** The `sip_trunks` filter: repeated `sip_trunks[]=a&sip_trunks[]=b` or `sip_trunks=a,b`, empty values left out. */
function trunkNames(query: URLSearchParams): string[] {
  return [...query.getAll("sip_trunks[]"), ...query.getAll("sip_trunks").flatMap((v) => v.split(","))].filter(
    (name) => name !== "",
  );
}

const RECORDINGS = CATALOGUE.recordings;

/**
 * `GET /v1/recordings` (both revisions): the account's recordings whose `created_at` falls in the
 * catalogue's window `from_date`..`to_date` (inclusive UTC days, both optional; 422 when malformed
 * or reversed), by
 * `created_at` then id, paged. Filters: `from`, `to` (exact numbers), `call_uuid`, `sip_trunks`
 * (trunk names; a placed call's trunk). `invalid` lists the filter values the account does not
 * know: trunk names it has no trunk of, and `from`/`to` values that are not phone numbers.
 */
function listRecordings(context: RouteContext): SandboxResponse {
  const { query } = context.request;
  const { runtime, account } = context;
  const window = optionalWindow(query, RECORDINGS.window);
  rejectReversed(window, RECORDINGS.window);
  const paging = readPaging(query, runtime.options.maxPerPage);
  const from = optionalText(query, "from");
  const to = optionalText(query, "to");
  const callUuid = optionalText(query, "call_uuid");
  const trunks = trunkNames(query);
  const known = new Set(account.trunks.map((t) => t.name));
  const invalid = {
    dids: [from, to].filter((n): n is string => n !== null && !/^\d+$/.test(n)),
    sip_trunks: trunks.filter((name) => !known.has(name)),
  };
  const keep = (call: CdrCall) =>
    (from === null || call.from === from) &&
    (to === null || call.to === to) &&
    (callUuid === null || call.uuid === callUuid) &&
    (trunks.length === 0 || (call.sipTrunk !== null && trunks.includes(call.sipTrunk)));
  const nowMs = runtime.clock.now();
  const rows = selectRecordings(
    runtime,
    account,
    window.fromMs ?? runtime.world.startMs,
    window.untilMs ?? nowMs + 1,
    nowMs,
    keep,
  );
  // The loader accepts `"recordings": null`; the platform's published answer shows an array, so
  // the sandbox serves `[]` for an empty list.
  const shape = listShapeOf(RECORDINGS, "recordings", { extra: { invalid }, nullWhenEmpty: false });
  const body = servePage(context, shape, arraySource(rows), paging);
  return rawJson(200, body);
}

/**
 * `GET /v1/recordings/{call_uuid}` (2024), `GET /v1/recordings/{call_id}` (2026): the recording of
 * a visible call of the account as the list serves it (row faults included), 404 when there is
 * none (the call was not answered, or recording was off on its trunk or number).
 */
function getRecording(context: RouteContext): SandboxResponse {
  const { runtime } = context;
  const id = context.params.call_id ?? context.params.call_uuid ?? "";
  const call = visibleCall(runtime, context.account, id, runtime.clock.now());
  const row = call ? recordingRowOf(call) : null;
  if (row === null) return notFound();
  // The row the list serves, fault and all: a recording reads the same by call id as in its window.
  const served = runtime.faults.serve(rowIdentity("recordings", context.account, row), row.json);
  runtime.faults.countServed(served);
  return rawJson(200, served.json);
}

/** Recording routes: the list (both revisions) and one call's recording (not in the catalogue). */
export const recordingRoutes: readonly PlatformHandler[] = [
  ...catalogueHandlers(RECORDINGS, listRecordings),
  { method: "GET", path: "/v1/recordings/{call_uuid}", handle: getRecording },
  { method: "GET", path: "/v1/recordings/{call_id}", handle: getRecording },
];
