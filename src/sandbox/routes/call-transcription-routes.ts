import { transcribedCall, visibleCall } from "../call-lookup.js";
import { callTranscriptionOf } from "../generate-transcription.js";
import { json, notFound, type SandboxResponse } from "../http/http-kit.js";
import { PENDING_TRANSCRIPTION } from "./analytics-routes.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/**
 * `GET /v1/cdrs/{call_id}/transcription` and its alias `.../transcriptions` (2026): 404 when the
 * call has no transcription, 202 while it is made, then 200 with the call transcription shape.
 */
function getCallTranscription(context: RouteContext): SandboxResponse {
  const { runtime } = context;
  const call = transcribedCall(runtime, context.account, context.params.call_id ?? "", runtime.clock.now());
  if (call === null) return notFound();
  if (call === "pending") return json(202, PENDING_TRANSCRIPTION);
  return json(200, callTranscriptionOf(runtime.world.seed, call));
}

/**
 * `POST /v1/cdrs/{call_id}/retranscribe` (2026): `{"success": true}` for a visible answered call
 * of the account, else 404. Sandbox choice: the request is acknowledged and the transcription stays
 * as generated (API calls never rewrite generated history).
 */
function retranscribe(context: RouteContext): SandboxResponse {
  const { runtime } = context;
  const call = visibleCall(runtime, context.account, context.params.call_id ?? "", runtime.clock.now());
  if (call?.disposition !== "answered") return notFound();
  return json(200, { success: true });
}

/** Routes of a call's transcription (2026 only). */
export const callTranscriptionRoutes: readonly PlatformHandler[] = [
  { method: "GET", path: "/v1/cdrs/{call_id}/transcription", handle: getCallTranscription },
  { method: "GET", path: "/v1/cdrs/{call_id}/transcriptions", handle: getCallTranscription },
  { method: "POST", path: "/v1/cdrs/{call_id}/retranscribe", handle: retranscribe },
];
