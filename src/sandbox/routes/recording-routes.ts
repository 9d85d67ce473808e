import type { Recording } from "../../platform/recording.js";
import { visibleCall } from "../call-lookup.js";
import { json, notFound, type SandboxResponse } from "../http/http-kit.js";
import { formatCdrDate } from "../serialize-cdr.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/**
 * `GET /v1/recordings/{call_id}` (2026): the recording of a visible call of the account, 404 when
 * there is none (the call was not answered, or recording was off on its trunk or number).
 */
function getRecording(context: RouteContext): SandboxResponse {
  const { runtime } = context;
  const call = visibleCall(runtime, context.account, context.params.call_id ?? "", runtime.clock.now());
  if (!call || call.recordingUrl === null) return notFound();
  const recording: Recording = {
    call_id: call.uuid,
    recording_url: call.recordingUrl,
    date: formatCdrDate(call.startMs),
    duration: call.duration,
  };
  return json(200, recording);
}

/** Recording routes (2026 only). */
export const recordingRoutes: readonly PlatformHandler[] = [
  { method: "GET", path: "/v1/recordings/{call_id}", handle: getRecording },
];
