import { CATALOGUE, MESSAGE_DIRECTIONS, type Message, resourcePath } from "@telecom-etl/platform";
import { columnsOf, type RowOf } from "./columns.js";
import { windowRequestQuery } from "./resource-reading.js";
import { defineStream, type RequestContext, type Slice, type StreamRequest } from "./stream-definition.js";

const c = columnsOf<Message>();

/** The columns of `platform.messages`; `from`/`to` become `from_number`/`to_number`, the body its text and media. */
export const MESSAGE_COLUMNS = [
  c.required("message_id", "text", (row) => row.message_id),
  c.required("direction", "text", (row) => row.direction),
  c.required("message_type", "text", (row) => row.message_type),
  c.required("from_number", "text", (row) => row.from),
  c.required("to_number", "text", (row) => row.to),
  c.nullable("mcc", "text", (row) => row.mcc),
  c.nullable("mnc", "text", (row) => row.mnc),
  c.required("body_text", "text", (row) => row.message_body.text),
  c.nullable("media", "jsonb", (row) => row.message_body.media),
  c.nullable("tag", "text", (row) => row.tag),
  c.required("status", "text", (row) => row.status),
  c.required("segments", "integer", (row) => row.segments),
  c.required("charge", "numeric", (row) => row.charge),
  c.nullable("carrier_fees", "numeric", (row) => row.carrier_fees),
  c.required("submitted_at", "timestamptz", (row) => row.submitted_at),
  c.nullable("sent_at", "timestamptz", (row) => row.sent_at),
  c.nullable("delivered_at", "timestamptz", (row) => row.delivered_at),
  c.nullable("error_message", "text", (row) => row.error_message),
] as const;

/** A row of `platform.messages` as readers get it. */
export type MessageRow = RowOf<typeof MESSAGE_COLUMNS>;

/**
 * Text messages, both directions: `GET /v3/messages?type=…&sent_after=D&sent_before=E` per UTC
 * window of `submitted_at` (`sent_after` includes its day, `sent_before` excludes its day), merged by
 * message id. A message's status, delivery time and charge change after it is first listed
 * (delivery reports come later), so a window settles like CDRs: re-read until read `settle_hours`
 * after its end. Campaign messages carry the campaign in `tag` (a short link's `utm_campaign`).
 */
export const messagesStream = defineStream({
  name: "messages",
  resource: CATALOGUE.messages,
  requests(slice: Slice, context: RequestContext): readonly StreamRequest[] {
    const window = windowRequestQuery("messages", CATALOGUE.messages, slice);
    // `type` filters by direction: every row of a request is of that direction (the re-count
    // counts the warehouse's rows per request by it).
    return MESSAGE_DIRECTIONS.map((type) => ({
      path: resourcePath(CATALOGUE.messages, context.revision),
      query: { type, ...window },
      implied: { direction: type },
    }));
  },
  columns: MESSAGE_COLUMNS,
  table: {
    name: "platform.messages",
    key: ["message_id"],
    writeMode: "merge",
    windowColumn: "submitted_at",
    partitionedByMonth: true,
  },
});
