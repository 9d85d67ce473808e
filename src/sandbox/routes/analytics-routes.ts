import { findCall } from "../call-lookup.js";
import { transcriptionOf } from "../generate-transcription.js";
import { json, notFound, type SandboxResponse } from "../http/http-kit.js";
import { generateValidationLine } from "../validation-lookup.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** `GET /v1/speech-analytics/{uuid}`: 404 without a transcription, 202 while it is made, then 200. */
function getTranscription(context: RouteContext): SandboxResponse {
  const { runtime } = context;
  const call = findCall(runtime, context.account, context.params.uuid ?? "");
  const nowMs = runtime.clock.now();
  if (!call?.transcription || call.endMs > nowMs) return notFound();
  if (call.transcription.readyAtMs > nowMs) {
    return json(202, { success: true, message: "The transcription is still pending" });
  }
  return json(200, transcriptionOf(runtime.world.seed, context.account.id, call));
}

/** `GET /v1/validation/{uuid}`: results so far of a validation token; 404 carries `error_code` 011. */
function getValidation(context: RouteContext): SandboxResponse {
  const body = generateValidationLine(context.runtime, context.account, context.params.uuid ?? "");
  return body === null ? notFound({ error_code: "011" }) : json(200, body);
}

/** Transcription and validation routes. */
export const analyticsRoutes: readonly PlatformHandler[] = [
  { method: "GET", path: "/v1/speech-analytics/{uuid}", handle: getTranscription },
  {
    method: "GET",
    path: "/v1/validation/{uuid}",
    handle: getValidation,
    forbiddenExtra: { error_code: "012" },
  },
];
