import { transcribedCall } from "../call-lookup.js";
import { transcriptionOf } from "../generate-transcription.js";
import { json, notFound, type SandboxResponse } from "../http/http-kit.js";
import { generateValidationLine } from "../validation-lookup.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** The 202 body of a transcription still being made. */
export const PENDING_TRANSCRIPTION = {
  success: true,
  message: "The transcription is still pending",
} as const;

/**
 * `GET /v1/speech-analytics/{uuid}` (2024; `{request_id}` in 2026): 404 without a transcription,
 * 202 while it is made, then 200. For a call, the request id is the call's uuid.
 */
const getTranscription =
  (param: string) =>
  (context: RouteContext): SandboxResponse => {
    const { runtime } = context;
    const call = transcribedCall(runtime, context.account, context.params[param] ?? "", runtime.clock.now());
    if (call === null) return notFound();
    if (call === "pending") return json(202, PENDING_TRANSCRIPTION);
    return json(200, transcriptionOf(runtime.world.seed, context.account.id, call));
  };

/**
 * `GET /v1/validation/{uuid}` (2024; `{request_id}` in 2026): results so far of a validation
 * token; 404 carries `error_code` 011.
 */
const getValidation =
  (param: string) =>
  (context: RouteContext): SandboxResponse => {
    const body = generateValidationLine(context.runtime, context.account, context.params[param] ?? "");
    return body === null ? notFound({ error_code: "011" }) : json(200, body);
  };

const VALIDATION_FORBIDDEN = { error_code: "012" } as const;

/** Transcription and validation routes, under their path of each API revision. */
export const analyticsRoutes: readonly PlatformHandler[] = [
  { method: "GET", path: "/v1/speech-analytics/{uuid}", handle: getTranscription("uuid") },
  { method: "GET", path: "/v1/speech-analytics/{request_id}", handle: getTranscription("request_id") },
  {
    method: "GET",
    path: "/v1/validation/{uuid}",
    handle: getValidation("uuid"),
    forbiddenExtra: VALIDATION_FORBIDDEN,
  },
  {
    method: "GET",
    path: "/v1/validation/{request_id}",
    handle: getValidation("request_id"),
    forbiddenExtra: VALIDATION_FORBIDDEN,
  },
];
