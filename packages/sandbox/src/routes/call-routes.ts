import { CALL_WEBHOOK_EVENT_TYPES, startCallRequestSchema } from "@telecom-etl/platform/call.js";
import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { enumParam, json, notFound, ParamError, type SandboxResponse } from "../http/http-kit.js";
import { parseBody } from "../http/parse-body.js";
import { catalogueHandlers } from "./catalogue-routes.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** `POST /v1/calls`: `from` must be a number of the account; `to` E.164; `callback_url` a URL. */
function startCall(context: RouteContext): SandboxResponse {
  const body = parseBody(context.request, startCallRequestSchema);
  if (!context.account.dids.some((d) => d.number === body.from || `+${d.number}` === body.from)) {
    throw new ParamError(422, "from");
  }
  return json(200, context.runtime.calls.start(context.account, body));
}

/** `GET /v1/calls/webhooks`: a bare array, the webhooks configured at the sandbox clock (seeded history). */
function listWebhooks(context: RouteContext): SandboxResponse {
  return json(200, context.runtime.state.webhooksOf(context.account, context.runtime.clock.now()));
}

/** `DELETE /v1/calls/webhooks?event_type=post-call|on-call`. */
function deleteWebhook(context: RouteContext): SandboxResponse {
  const eventType = enumParam(context.request.query, "event_type", CALL_WEBHOOK_EVENT_TYPES);
  return context.runtime.state.deleteWebhook(context.account, eventType, context.runtime.clock.now())
    ? json(200, { success: true })
    : notFound();
}

/** Call routes. */
export const callRoutes: readonly PlatformHandler[] = [
  { method: "POST", path: "/v1/calls", handle: startCall },
  ...catalogueHandlers(CATALOGUE.call_webhooks, listWebhooks),
  { method: "DELETE", path: "/v1/calls/webhooks", handle: deleteWebhook },
];
