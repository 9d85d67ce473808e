import { CATALOGUE } from "@telecom-etl/platform/catalogue.js";
import { MESSAGE_DIRECTIONS, MESSAGE_STATUSES, MESSAGE_TYPES } from "@telecom-etl/platform/message.js";
import { enumParam, optionalEnum, optionalText, rawJson, type SandboxResponse } from "../http/http-kit.js";
import { optionalWindow, rejectReversed } from "../http/list-window.js";
import { readPaging } from "../http/paging.js";
import { type SelectedMessage, selectMessages } from "../message-query.js";
import { serializeMessage } from "../serialize-message.js";
import { catalogueHandlers } from "./catalogue-routes.js";
import { listShapeOf, type RowSource, servePage } from "./page-body.js";
import type { PlatformHandler, RouteContext } from "./route-types.js";

/** A row source serializing selected messages at `nowMs`, only those a page serves. */
function messageSource(selected: readonly SelectedMessage[], nowMs: number): RowSource {
  const row = (i: number) => {
    const { message, day } = selected[i]!;
    return { json: serializeMessage(message, nowMs), day, index: message.index };
  };
  return {
    total: selected.length,
    row,
    chunks: (start, end) => {
      const rows: string[] = [];
      for (let i = start; i < end; i++) rows.push(row(i).json);
      return [Buffer.from(rows.join(","), "utf8")];
    },
  };
}

const MESSAGES = CATALOGUE.messages;

/**
 * `GET /v3/messages` (both revisions): `type` (inbound|outbound; 400 missing, 422 other), the
 * catalogue's window `sent_after=D` (from D 00:00 UTC, inclusive) and `sent_before=E` (up to E
 * 00:00 UTC, exclusive), both optional and applied to `submitted_at` (422 when malformed, or when `sent_before` is not after
 * `sent_after`); exact `from`, `to`, `tag`; `status` (one of the 8, matched at the clock) and
 * `message_type` (sms|mms), 422 otherwise; paging. Rows by `submitted_at`, then `message_id`.
 */
function listMessages(context: RouteContext): SandboxResponse {
  const { query } = context.request;
  const { runtime } = context;
  const direction = enumParam(query, "type", MESSAGE_DIRECTIONS);
  const window = optionalWindow(query, MESSAGES.window);
  rejectReversed(window, MESSAGES.window);
  const status = optionalEnum(query, "status", MESSAGE_STATUSES);
  const type = optionalEnum(query, "message_type", MESSAGE_TYPES);
  const paging = readPaging(query, runtime.options.maxPerPage);
  const nowMs = runtime.clock.now();
  const selected = selectMessages(
    runtime,
    {
      account: context.account,
      direction,
      fromMs: window.fromMs ?? Number.NEGATIVE_INFINITY,
      untilMs: window.untilMs ?? Number.POSITIVE_INFINITY,
      from: optionalText(query, "from"),
      to: optionalText(query, "to"),
      tag: optionalText(query, "tag"),
      status,
      type,
    },
    nowMs,
  );
  const body = servePage(context, listShapeOf(MESSAGES, "messages"), messageSource(selected, nowMs), paging);
  return rawJson(200, body);
}

/** Message routes. */
export const messageRoutes: readonly PlatformHandler[] = catalogueHandlers(MESSAGES, listMessages);
