import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { transcribedCall, visibleCall } from "../call-lookup.js";
import { callTranscriptionOf } from "../generate-transcription.js";
import { forbidden, json, notFound, type SandboxResponse } from "../http/http-kit.js";
import type { SandboxRuntime } from "../sandbox-runtime.js";
import { catalogueHandlers, idAt, type PathId } from "./catalogue-routes.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** The 202 body of a transcription still being made. */
export const PENDING_TRANSCRIPTION = {
  success: true,
  message: "The transcription is still pending",
} as const;

/**
 * 403 "The service is not provisioned for your account." when the sandbox runs without speech
 * analytics (option `speechAnalytics: false`), else null: every transcription route checks it.
 */
export function speechAnalyticsRefusal(runtime: SandboxRuntime): SandboxResponse | null {
  return runtime.options.speechAnalytics ? null : forbidden();
}

/**
 * `GET /v1/cdr/{uuid}/transcription` (2024), `GET /v1/cdrs/{call_id}/transcription` and its alias
 * `.../transcriptions` (2026): 404 when the call has no transcription, 202 while it is made, then
 * 200 with the call transcription shape of the revision (platform-facts.md "A call's transcription").
 */
function getCallTranscription(context: RouteContext, ids: readonly PathId[]): SandboxResponse {
  const { runtime } = context;
  const refused = speechAnalyticsRefusal(runtime);
  if (refused) return refused;
  const call = transcribedCall(runtime, context.account, idAt(ids, 0).value, runtime.clock.now());
  if (call === null) return notFound();
  if (call === "pending") return json(202, PENDING_TRANSCRIPTION);
  return json(200, callTranscriptionOf(runtime.world.seed, call, runtime.options.apiRevision));
}

/** The 2026 alias `.../transcriptions` (not in the catalogue: the loader reads `.../transcription`). */
function getCallTranscriptionAlias(context: RouteContext): SandboxResponse {
  return getCallTranscription(context, [{ name: "call_id", value: context.params.call_id ?? "" }]);
}

/**
 * `POST /v1/cdrs/{call_id}/retranscribe` (2026): `{"success": true}` for a visible answered call
 * of the account, else 404. Sandbox choice: the request is acknowledged and the transcription stays
 * as generated (API calls never rewrite generated history).
 */
function retranscribe(context: RouteContext): SandboxResponse {
  const { runtime } = context;
  const refused = speechAnalyticsRefusal(runtime);
  if (refused) return refused;
  const call = visibleCall(runtime, context.account, context.params.call_id ?? "", runtime.clock.now());
  if (call?.disposition !== "answered") return notFound();
  return json(200, { success: true });
}

/** Routes of a call's transcription, under its CDR in each API revision. */
export const callTranscriptionRoutes: readonly PlatformHandler[] = [
  ...catalogueHandlers(CATALOGUE.call_transcription, getCallTranscription),
  { method: "GET", path: "/v1/cdrs/{call_id}/transcriptions", handle: getCallTranscriptionAlias },
  { method: "POST", path: "/v1/cdrs/{call_id}/retranscribe", handle: retranscribe },
];
