import {
  CATALOGUE,
  type CallTranscription,
  callTranscriptionSchema,
  callTranscriptionTurnSchema,
  resourcePath,
  type Transcription,
  transcriptionSchema,
  transcriptionTurnSchema,
} from "@telecom-etl/platform";
import type { z } from "zod";
import type { LookupItem } from "../core/slices.js";
import { columnsOf, type Implied, type RowOf } from "./columns.js";
import { defineStream, type RequestContext, type StreamRequest } from "./stream-definition.js";

/** A transcription in either shape: the speech-analytics body (uploaded files) or a call's transcription under its CDR. */
type AnyTranscription = Transcription | CallTranscription;

const c = columnsOf<AnyTranscription>();
const isCallShape = (row: AnyTranscription): row is CallTranscription => "call_uuid" in row;

/**
 * The columns of `platform.transcriptions`, read from either shape: `request_id` is the id it was
 * asked by (a call's uuid, or an uploaded file's request id), `score` the 1–5 sentiment score;
 * `from_number`/`to_number` only in 2026 (the 2024 body does not carry the call's numbers).
 */
export const TRANSCRIPTION_COLUMNS = [
  c.required("request_id", "text", (_row, implied) => implied.request_id),
  c.nullable("call_uuid", "text", (row) => (isCallShape(row) ? row.call_uuid : null)),
  c.required("transcription_id", "text", (row) => (isCallShape(row) ? row.uuid : row.request_id)),
  c.required("status", "text", (row) => row.status),
  c.nullable("language", "text", (row) => row.language),
  c.nullable("duration", "integer", (row) => row.duration),
  c.required("charge", "numeric", (row) => row.charge),
  c.required("transcription_date", "timestamptz", (row) => row.transcription_date),
  c.nullable("score", "numeric", (row) => (isCallShape(row) ? row.call_score : row.transcription_score)),
  c.nullable("summary", "text", (row) => (isCallShape(row) ? row.call_summary : row.transcription_summary)),
  c.required("transcript", "jsonb", (row) => row.transcript),
  c.nullable("original_file", "text", (row) => (isCallShape(row) ? null : row.original_file)),
  c.nullable("call_date", "timestamptz", (row) => (isCallShape(row) ? row.call_date : null)),
  c.nullable("from_number", "text", (row) => (isCallShape(row) ? (row.from ?? null) : null)),
  c.nullable("to_number", "text", (row) => (isCallShape(row) ? (row.to ?? null) : null)),
] as const;

/** A row of `platform.transcriptions` as readers get it. */
export type TranscriptionRow = RowOf<typeof TRANSCRIPTION_COLUMNS>;

/**
 * A turn of either shape (validated with its transcription): an uploaded file's names its
 * `speaker` (`channel_1`), a call's its `type` (the speaker's phone number). Both are known fields.
 */
const anyTurnSchema = transcriptionTurnSchema
  .extend(callTranscriptionTurnSchema.shape)
  .partial({ speaker: true, type: true });
type AnyTurn = z.infer<typeof anyTurnSchema>;

const t = columnsOf<AnyTurn>();

/** The columns of `platform.transcription_turns`: one speaker turn, its times in ms from the call's answer. */
export const TRANSCRIPTION_TURN_COLUMNS = [
  t.required("request_id", "text", (_row, implied) => implied.request_id),
  t.required("turn_index", "integer", (_row, implied) => implied.turn_index),
  t.required("speaker", "text", (row) => row.type ?? row.speaker),
  t.required("start_ms", "integer", (row) => row.s),
  t.required("end_ms", "integer", (row) => row.e),
  t.required("text", "text", (row) => row.text),
  t.required("sentiment", "text", (row) => row.sentiment),
] as const;

/** A row of `platform.transcription_turns` as readers get it. */
export type TranscriptionTurnRow = RowOf<typeof TRANSCRIPTION_TURN_COLUMNS>;

/**
 * The request asking about one id: a call's transcription under its CDR (2024
 * `/v1/cdr/{uuid}/transcription`, 2026 `/v1/cdrs/{call_id}/transcription`); an uploaded file's at
 * `/v1/speech-analytics/{request_id}` (platform-facts.md "A call's transcription").
 */
function transcriptionRequest(item: LookupItem, context: RequestContext): StreamRequest {
  const source = item.implied.source ?? "call";
  const resource = source === "call" ? CATALOGUE.call_transcription : CATALOGUE.uploaded_transcription;
  return {
    path: resourcePath(resource, context.revision, [item.id]),
    query: {},
    implied: {
      request_id: item.id,
      source,
      shape: source === "call" ? "call_transcription" : "speech_analytics",
    },
    lookupId: item.id,
  };
}

/**
 * Transcriptions (with sentiment) of calls, and of uploaded files tracked by request id: a lookup
 * child of CDRs. The ids are the answered calls on a trunk (placed) or number (received) with
 * transcription on, at or above its threshold, at most `transcription_max_age_days` old, not in a
 * final state yet, each asked under its CDR; and the uploaded files tracked with `telecom-etl track
 * transcription`, asked at speech-analytics. 200 → loaded with its turns (final), 202 → pending
 * (asked again next run until it is final or too old: expired), 404 → none, never asked again.
 * 403 means speech analytics is not provisioned: the stream is reported `not_provisioned` once and
 * no id changes state, so every candidate is asked once the product is enabled.
 */
export const transcriptionsStream = defineStream({
  name: "transcriptions",
  resource: CATALOGUE.call_transcription,
  product: "speech analytics",
  requires: ["cdrs", "sip_trunks", "numbers"],
  lookup: {
    candidates: "call_transcriptions",
    trackedKind: "transcription",
    state: (status) => (status === 202 ? "pending" : status === 404 ? "none" : "final"),
  },
  requests(slice, context): readonly StreamRequest[] {
    return slice.kind === "ids" ? slice.items.map((item) => transcriptionRequest(item, context)) : [];
  },
  schema: transcriptionSchema,
  schemaFor: (implied: Implied) =>
    implied.shape === "call_transcription" ? callTranscriptionSchema : transcriptionSchema,
  columns: TRANSCRIPTION_COLUMNS,
  table: { name: "platform.transcriptions", key: ["request_id"], writeMode: "merge" },
  children: [
    {
      name: "transcription_turns",
      schema: anyTurnSchema,
      columns: TRANSCRIPTION_TURN_COLUMNS,
      table: {
        name: "platform.transcription_turns",
        columns: TRANSCRIPTION_TURN_COLUMNS,
        key: ["request_id", "turn_index"],
        writeMode: "merge",
      },
      rows: (parent: AnyTranscription, implied: Implied) =>
        (parent.turns ?? []).map((turn, index) => ({
          row: turn,
          implied: { request_id: implied.request_id!, turn_index: String(index) },
        })),
    },
  ],
});
