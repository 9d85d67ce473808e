import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { uploadTranscriptionOf } from "../generate-transcription.js";
import { json, notFound, type SandboxResponse } from "../http/http-kit.js";
import { findUpload } from "../uploaded-audio.js";
import { generateValidationLine } from "../validation-lookup.js";
import { PENDING_TRANSCRIPTION, speechAnalyticsRefusal } from "./call-transcription-routes.js";
import { catalogueHandlers, idAt, type PathId } from "./catalogue-routes.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/**
 * `GET /v1/speech-analytics/{uuid}` (2024; `{request_id}` in 2026): the transcription of an
 * uploaded audio file by its request id: 404 for an unknown id (a call's uuid included: a call's
 * transcription is read under its CDR), 202 while it is made, then 200.
 */
function getTranscription(context: RouteContext, ids: readonly PathId[]): SandboxResponse {
  const { runtime } = context;
  const refused = speechAnalyticsRefusal(runtime);
  if (refused) return refused;
  const nowMs = runtime.clock.now();
  const upload = findUpload(runtime.world, context.account, idAt(ids, 0).value, nowMs);
  if (upload === null) return notFound();
  if (upload.transcription.readyAtMs > nowMs) return json(202, PENDING_TRANSCRIPTION);
  return json(200, uploadTranscriptionOf(runtime.world.seed, context.account.id, upload));
}

/**
 * `GET /v1/validation/{uuid}` (2024; `{request_id}` in 2026): results so far of a validation
 * token; 404 carries `error_code` 011.
 */
function getValidation(context: RouteContext, ids: readonly PathId[]): SandboxResponse {
  const body = generateValidationLine(context.runtime, context.account, idAt(ids, 0).value);
  return body === null ? notFound({ error_code: "011" }) : json(200, body);
}

const VALIDATION_FORBIDDEN = { error_code: "012" } as const;

/** Transcription and validation routes, under their path of each API revision. */
export const analyticsRoutes: readonly PlatformHandler[] = [
  ...catalogueHandlers(CATALOGUE.uploaded_transcription, getTranscription),
  ...catalogueHandlers(CATALOGUE.validation, getValidation, { forbiddenExtra: VALIDATION_FORBIDDEN }),
];
