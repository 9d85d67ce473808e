/**
 * The test oracle of the landing tables: what a perfect loader holds, computed from the sandbox's
 * truth export with this file's OWN mapping of each platform record to its landing columns, never
 * through the loader's parsing (`parseRow`, `toRow`): a mapping bug in a stream cannot hide in its
 * own expectation. Both sides become the same comparable text (timestamps as epoch ms, money and
 * other decimals as normalised decimal text, unknown fields as the `_extra` object).
 */

import { sql } from "kysely";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import {
  CALL_TRANSCRIPTION_2026_FIELDS,
  CALL_TRANSCRIPTION_FIELDS,
  DID_FIELDS,
  DID_OPTIONAL_FIELDS,
  MESSAGE_FIELDS,
  MESSAGE_OPTIONAL_FIELDS,
  TRUNK_SUMMARY_FIELDS,
} from "../helpers/facts-fields.js";

type Json = Record<string, unknown>;

/** How one landing column is compared: its name and the kind of value it holds. */
interface Column {
  readonly name: string;
  readonly kind: "text" | "integer" | "float" | "decimal" | "instant" | "date" | "boolean" | "json";
}

/** One landing row a truth record gives: its column values, and its unknown fields (`_extra`). */
interface ExpectedRow {
  readonly columns: Json;
  readonly extra: Json;
}

/** What a truth record's mapping may need besides the record: the snapshot's day and country. */
export interface OracleContext {
  readonly today?: string;
  /** The account whose truth it is (the ledger's `ledger_account`). */
  readonly account?: string;
  readonly country?: string;
}

/** One landing table as the oracle knows it. */
interface OracleTable {
  readonly table: string;
  readonly columns: readonly Column[];
  /** The landing rows of one truth record (usually one; a transcription's turns are several). */
  readonly rows: (record: Json, context: OracleContext) => readonly ExpectedRow[];
  /** SQL giving the UTC day of a row (for window filters), when the table has one. */
  readonly day?: string;
  /** SQL filter of the landing rows that the truth describes (a history table's open versions). */
  readonly current?: string;
}

const col = (name: string, kind: Column["kind"]): Column => ({ name, kind });

/** The fields of `served` the loader does not know (they land in `_extra`), truth-only fields aside. */
function unknownFields(served: Json, known: readonly string[], truthOnly: readonly string[] = []): Json {
  return Object.fromEntries(
    Object.entries(served).filter(([key]) => !known.includes(key) && !truthOnly.includes(key)),
  );
}

/** A table whose every truth record is one landing row, with `known` platform fields and truth-only fields. */
function oneRowPerRecord(
  table: Omit<OracleTable, "rows">,
  known: readonly string[],
  map: (record: Json, context: OracleContext) => Json,
  truthOnly: readonly string[] = [],
): OracleTable {
  return {
    ...table,
    rows: (record, context) => [
      { columns: map(record, context), extra: unknownFields(record, known, truthOnly) },
    ],
  };
}

/** The trunk summary's fields that are columns (its `access_token` never is). */
const TRUNK_FIELDS = TRUNK_SUMMARY_FIELDS.filter((field) => field !== "access_token");
/** A number's fields that are columns of the same name (its destinations and documents are renamed below). */
const NUMBER_FIELDS = [...DID_FIELDS, ...DID_OPTIONAL_FIELDS].filter(
  (field) => !["destination", "require_docs", "documents"].includes(field),
);
/** A message's fields that are columns of the same name (its body is split below). */
const MESSAGE_COLUMN_FIELDS = [...MESSAGE_FIELDS, ...MESSAGE_OPTIONAL_FIELDS].filter(
  (field) => field !== "message_body",
);
const VALIDATION_RESULT_FIELDS = [
  "phone_number",
  "valid",
  "country_code",
  "e164_format",
  "national_format",
  "ported",
  "mcc",
  "mnc",
  "number_type",
  "carrier_name",
  "risky_destination",
  "unallocated_range",
  "reachable",
  "roaming",
  "timezone",
  "charge",
  "error_code",
];
const TURN_COLUMNS = [
  col("request_id", "text"),
  col("turn_index", "integer"),
  col("speaker", "text"),
  col("start_ms", "integer"),
  col("end_ms", "integer"),
  col("text", "text"),
  col("sentiment", "text"),
];

/** Which columns of a table are its own kind of value (from the typed columns; unnamed ones are text). */
const same = <T extends Json>(fields: readonly string[], record: T): Json =>
  Object.fromEntries(fields.map((field) => [field, record[field] ?? null]));

/**
 * The id a transcription truth record was asked by: a call's uuid (`call_uuid`, the call
 * transcription under its CDR, both revisions) or an uploaded file's `request_id` (speech-analytics).
 */
const transcriptionRequestId = (r: Json) => (r.call_uuid ?? r.request_id) as string;

/** The oracle's tables, by stream (and child table). */
export const ORACLE: Readonly<Record<string, OracleTable>> = {
  cdrs: oneRowPerRecord(
    {
      table: "platform.cdrs",
      columns: [
        col("direction", "text"),
        col("uuid", "text"),
        col("date", "instant"),
        col("from_number", "text"),
        col("to_number", "text"),
        col("disposition", "text"),
        col("duration", "integer"),
        col("destination", "text"),
        col("per_minute", "decimal"),
        col("charge", "decimal"),
        col("sip_trunk", "text"),
        col("forward_fee", "decimal"),
        col("parent_uuid", "text"),
        col("answered_by", "text"),
      ],
      day: `("date" AT TIME ZONE 'UTC')::date`,
    },
    [
      "date",
      "from",
      "to",
      "disposition",
      "duration",
      "destination",
      "per_minute",
      "charge",
      "sip_trunk",
      "forward_fee",
      "uuid",
      "call_id",
      "parent_uuid",
      "parent_call_id",
      "answered_by",
    ],
    (r) => ({
      direction: r.direction,
      // 2026: call_id is the identity (uuid is its deprecated alias, maybe absent).
      uuid: r.call_id ?? r.uuid,
      date: r.date,
      from_number: r.from,
      to_number: r.to,
      disposition: r.disposition,
      duration: r.duration,
      destination: r.destination,
      per_minute: r.per_minute,
      charge: r.charge,
      sip_trunk: r.sip_trunk,
      forward_fee: r.forward_fee ?? null,
      parent_uuid: r.parent_call_id ?? r.parent_uuid ?? null,
      answered_by: r.answered_by,
    }),
    ["direction"],
  ),
  short_link_metrics: oneRowPerRecord(
    {
      table: "platform.short_link_metrics",
      columns: [
        col("created_date", "date"),
        col("created_at", "instant"),
        col("latitude", "float"),
        col("longitude", "float"),
        col("operating_system", "text"),
        col("browser", "text"),
        col("language", "text"),
        col("phone", "text"),
        col("utm_campaign", "text"),
        col("link_hash", "text"),
        col("user_id", "integer"),
      ],
      day: "created_date",
    },
    [
      "latitude",
      "longitude",
      "operating_system",
      "browser",
      "language",
      "phone",
      "utm_campaign",
      "created_at",
      "link_hash",
      "user_id",
    ],
    (r) => ({
      // `2026-08-01 13:45:12.120Z`: a UTC instant written with a space.
      created_date: String(r.created_at).slice(0, 10),
      created_at: String(r.created_at).replace(" ", "T"),
      latitude: r.latitude,
      longitude: r.longitude,
      operating_system: r.operating_system,
      browser: r.browser,
      language: r.language,
      phone: r.phone,
      utm_campaign: r.utm_campaign,
      link_hash: r.link_hash,
      user_id: r.user_id,
    }),
  ),
  invoices: oneRowPerRecord(
    {
      table: "platform.invoices",
      columns: [
        col("id", "integer"),
        col("from_date", "date"),
        col("to_date", "date"),
        col("amount", "decimal"),
      ],
    },
    ["id", "from_date", "to_date", "amount"],
    (r) => ({ id: r.id, from_date: r.from_date, to_date: r.to_date, amount: r.amount }),
  ),
  // The account's own ledger (the truth of one account; a sub-account's ledger read by its master,
  // with ledger_account and the exact text of every number, is pipeline-transactions.test.ts's).
  transactions: oneRowPerRecord(
    {
      table: "platform.transactions",
      columns: [
        col("ledger_account", "text"),
        col("sub_organization_id", "integer"),
        col("id", "integer"),
        col("date", "instant"),
        col("amount", "decimal"),
        col("balance_after", "decimal"),
        col("details", "text"),
        col("status", "text"),
        col("type", "integer"),
        col("show_invoice", "boolean"),
      ],
      day: "(date AT TIME ZONE 'UTC')::date",
    },
    ["id", "date", "amount", "balance_after", "details", "status", "type", "show_invoice"],
    (r, context) => ({
      ledger_account: context.account,
      sub_organization_id: null,
      id: r.id,
      date: r.date,
      amount: r.amount,
      balance_after: r.balance_after,
      details: r.details,
      status: r.status,
      type: r.type,
      show_invoice: r.show_invoice,
    }),
    ["product"],
  ),
  messages: oneRowPerRecord(
    {
      table: "platform.messages",
      columns: [
        col("message_id", "text"),
        col("direction", "text"),
        col("message_type", "text"),
        col("from_number", "text"),
        col("to_number", "text"),
        col("mcc", "text"),
        col("mnc", "text"),
        col("body_text", "text"),
        col("media", "json"),
        col("tag", "text"),
        col("status", "text"),
        col("segments", "integer"),
        col("charge", "decimal"),
        col("carrier_fees", "decimal"),
        col("submitted_at", "instant"),
        col("sent_at", "instant"),
        col("delivered_at", "instant"),
        col("error_message", "text"),
      ],
      day: `(submitted_at AT TIME ZONE 'UTC')::date`,
    },
    [...MESSAGE_COLUMN_FIELDS, "message_body"],
    (r) => {
      const body = r.message_body as { text: string; media: string[] | null };
      return {
        ...same(MESSAGE_COLUMN_FIELDS, r),
        from_number: r.from,
        to_number: r.to,
        body_text: body.text,
        media: body.media,
      };
    },
  ),
  sip_trunks: oneRowPerRecord(
    {
      table: "platform.sip_trunks",
      columns: TRUNK_FIELDS.map((field) =>
        col(
          field,
          ["id", "talk_time", "transcription_threshold"].includes(field)
            ? "integer"
            : field === "charge"
              ? "decimal"
              : field === "host_request"
                ? "json"
                : [
                      "passthrough",
                      "multiple_numbers",
                      "encrypted_media",
                      "call_recording_enabled",
                      "machine_detection_enabled",
                      "transcription_enabled",
                    ].includes(field)
                  ? "boolean"
                  : "text",
        ),
      ),
    },
    // access_token is a credential: a known field (never in _extra) that is never a column.
    [...TRUNK_FIELDS, "access_token"],
    (r) => same(TRUNK_FIELDS, r),
  ),
  numbers: oneRowPerRecord(
    {
      table: "platform.numbers",
      columns: [
        ...NUMBER_FIELDS.map((field) =>
          col(
            field,
            ["id", "channels", "transcription_threshold", "free_min"].includes(field)
              ? "integer"
              : ["activation_fee", "monthly_fee", "per_min"].includes(field)
                ? "decimal"
                : field === "added"
                  ? "instant"
                  : field === "paid_until"
                    ? "date"
                    : "text",
          ),
        ),
        col("destinations", "json"),
        col("require_docs", "json"),
        col("documents", "json"),
      ],
    },
    [...NUMBER_FIELDS, "destination", "require_docs", "documents"],
    (r) => ({
      ...same(NUMBER_FIELDS, r),
      destinations: r.destination,
      require_docs: r.require_docs,
      documents: r.documents,
    }),
  ),
  call_webhooks: oneRowPerRecord(
    {
      table: "platform.call_webhooks",
      columns: [col("event_type", "text"), col("url", "text")],
      current: "valid_to IS NULL",
    },
    ["event_type", "url"],
    (r) => ({ event_type: r.event_type, url: r.url }),
  ),
  brand_appeals: oneRowPerRecord(
    {
      table: "platform.brand_appeals",
      columns: [
        col("brand_id", "text"),
        col("categories", "json"),
        col("created_at", "instant"),
        col("evidence", "json"),
        col("explanation", "text"),
        col("outcome", "json"),
        col("vetting_status", "text"),
        col("status", "text"),
        col("updated_at", "instant"),
      ],
    },
    ["categories", "created_at", "evidence", "explanation", "outcome", "status", "updated_at"],
    (r) => ({
      ...same(
        [
          "brand_id",
          "categories",
          "created_at",
          "evidence",
          "explanation",
          "outcome",
          "status",
          "updated_at",
        ],
        r,
      ),
      vetting_status: (r.outcome as { vetting_status: string }).vetting_status,
    }),
    ["brand_id"],
  ),
  sub_accounts: oneRowPerRecord(
    {
      table: "platform.sub_accounts",
      columns: [
        col("id", "integer"),
        col("created_at", "instant"),
        col("name", "text"),
        col("master_organization", "integer"),
        col("status", "text"),
        col("sms_endpoint", "text"),
        col("dlr_endpoint", "text"),
      ],
    },
    ["id", "created_at", "name", "api_key", "master_organization", "status", "default_destinations"],
    (r) => {
      const destinations = r.default_destinations as {
        sms_endpoint: string | null;
        dlr_endpoint: string | null;
      };
      return {
        ...same(["id", "created_at", "name", "master_organization", "status"], r),
        sms_endpoint: destinations.sms_endpoint,
        dlr_endpoint: destinations.dlr_endpoint,
      };
    },
  ),
  number_catalog: oneRowPerRecord(
    {
      table: "platform.number_catalog",
      columns: [
        col("snapshot_date", "date"),
        col("country_id", "integer"),
        col("city_id", "integer"),
        col("number", "text"),
        col("id", "integer"),
        col("activation_fee", "decimal"),
        col("monthly_fee", "decimal"),
        col("per_min", "decimal"),
        col("channels", "text"),
        col("city", "text"),
        col("country", "text"),
        col("country_short_name", "text"),
        col("cnam", "text"),
        col("domestic_cli", "text"),
        col("free_min", "integer"),
        col("require_docs", "json"),
        col("sms_enabled", "text"),
        col("sms_price", "decimal"),
      ],
    },
    [
      "id",
      "number",
      "activation_fee",
      "monthly_fee",
      "per_min",
      "channels",
      "city",
      "country",
      "country_short_name",
      "cnam",
      "domestic_cli",
      "free_min",
      "require_docs",
      "sms_enabled",
      "sms_price",
    ],
    (r, context) => ({
      ...same(
        [
          "number",
          "id",
          "activation_fee",
          "monthly_fee",
          "per_min",
          "channels",
          "city",
          "country",
          "country_short_name",
          "cnam",
          "domestic_cli",
          "free_min",
          "require_docs",
          "sms_enabled",
        ],
        r,
      ),
      snapshot_date: context.today,
      country_id: context.country,
      city_id: r.city_id,
      sms_price: String(r.sms_price),
    }),
    ["city_id"],
  ),
  transcriptions: {
    table: "platform.transcriptions",
    columns: [
      col("request_id", "text"),
      col("call_uuid", "text"),
      col("transcription_id", "text"),
      col("status", "text"),
      col("language", "text"),
      col("duration", "integer"),
      col("charge", "decimal"),
      col("transcription_date", "instant"),
      col("score", "decimal"),
      col("summary", "text"),
      col("transcript", "json"),
      col("original_file", "text"),
      col("call_date", "instant"),
      col("from_number", "text"),
      col("to_number", "text"),
    ],
    rows: (r) => {
      const isCall = "call_uuid" in r;
      const known = isCall
        ? [...CALL_TRANSCRIPTION_FIELDS, ...CALL_TRANSCRIPTION_2026_FIELDS]
        : [
            "transcript",
            "turns",
            "request_id",
            "language",
            "duration",
            "charge",
            "status",
            "transcription_date",
            "transcription_score",
            "transcription_summary",
            "original_file",
          ];
      const columns = {
        request_id: transcriptionRequestId(r),
        call_uuid: isCall ? r.call_uuid : null,
        transcription_id: isCall ? r.uuid : r.request_id,
        status: r.status,
        language: r.language,
        duration: r.duration,
        charge: r.charge,
        transcription_date: r.transcription_date,
        score: isCall ? r.call_score : r.transcription_score,
        summary: isCall ? r.call_summary : r.transcription_summary,
        transcript: r.transcript,
        original_file: isCall ? null : r.original_file,
        call_date: isCall ? r.call_date : null,
        // The 2024 call transcription does not carry the call's numbers (2026 does).
        from_number: isCall ? (r.from ?? null) : null,
        to_number: isCall ? (r.to ?? null) : null,
      };
      return [{ columns, extra: unknownFields(r, known) }];
    },
  },
  transcription_turns: {
    table: "platform.transcription_turns",
    columns: TURN_COLUMNS,
    rows: (r) =>
      ((r.turns as Json[] | null) ?? []).map((turn, index) => ({
        columns: {
          request_id: transcriptionRequestId(r),
          turn_index: index,
          // A call's turns name the speaker's number in `type`; an uploaded file's, `speaker`.
          speaker: turn.type ?? turn.speaker,
          start_ms: turn.s,
          end_ms: turn.e,
          text: turn.text,
          sentiment: turn.sentiment,
        },
        extra: unknownFields(turn, ["speaker", "type", "s", "e", "text", "sentiment"]),
      })),
  },
  recordings: oneRowPerRecord(
    {
      table: "platform.recordings",
      columns: [
        col("id", "integer"),
        col("created_at", "instant"),
        col("duration", "integer"),
        col("from_number", "text"),
        col("to_number", "text"),
        col("call_uuid", "text"),
        col("url", "text"),
      ],
      day: `(created_at AT TIME ZONE 'UTC')::date`,
    },
    ["id", "created_at", "duration", "from", "to", "call_uuid", "url"],
    (r) => ({
      id: r.id,
      created_at: r.created_at,
      duration: r.duration,
      from_number: r.from,
      to_number: r.to,
      call_uuid: r.call_uuid,
      url: r.url,
    }),
  ),
  message_opt_outs: oneRowPerRecord(
    {
      table: "platform.message_opt_outs",
      columns: [
        col("created_date", "date"),
        col("created_at", "instant"),
        col("phone_number", "text"),
        col("sender_id", "text"),
        col("campaign_id", "text"),
      ],
      day: "created_date",
    },
    ["phone_number", "sender_id", "campaign_id", "created_at"],
    (r) => ({
      // The UTC day of the instant (an offset may move it), as platform-facts.md's window counts days.
      created_date: new Date(Date.parse(String(r.created_at))).toISOString().slice(0, 10),
      created_at: r.created_at,
      phone_number: r.phone_number,
      sender_id: r.sender_id,
      campaign_id: r.campaign_id,
    }),
  ),
  validations: oneRowPerRecord(
    {
      table: "platform.validations",
      columns: [
        col("token", "text"),
        col("status", "text"),
        col("count", "integer"),
        col("pending", "integer"),
      ],
    },
    ["status", "pending", "count", "items"],
    (r) => ({ token: r.token, status: r.status, count: r.count, pending: r.pending }),
    ["token"],
  ),
  validation_results: {
    table: "platform.validation_results",
    columns: [
      col("token", "text"),
      ...VALIDATION_RESULT_FIELDS.map((field) =>
        col(
          field,
          field === "charge"
            ? "decimal"
            : ["valid", "ported", "risky_destination", "unallocated_range", "reachable", "roaming"].includes(
                  field,
                )
              ? "boolean"
              : "text",
        ),
      ),
    ],
    rows: (r) =>
      ((r.items as Json[] | undefined) ?? []).map((item) => ({
        columns: { token: r.token, ...same(VALIDATION_RESULT_FIELDS, item) },
        extra: unknownFields(item, VALIDATION_RESULT_FIELDS),
      })),
  },
};

/** A decimal as canonical text: no trailing zeros, no trailing point (`"1.50"` and `1.5` are `"1.5"`). */
export function canonicalDecimal(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  if (!/^-?\d+(\.\d+)?$/.test(text)) return `not a decimal: ${text}`;
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

function comparableValue(kind: Column["kind"], value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case "text":
      return typeof value === "object" ? JSON.stringify(value) : String(value);
    case "instant":
      return value instanceof Date ? value.getTime() : Date.parse(String(value));
    case "date":
      return value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10);
    case "integer":
    case "float":
      return Number(value);
    case "decimal":
      return canonicalDecimal(value);
    case "json":
      return JSON.stringify(sortedJson(value));
    default:
      return value;
  }
}

/** Object keys sorted, so two JSON objects with the same content print the same. */
function sortedJson(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(sortedJson);
  return Object.fromEntries(
    Object.keys(value as Json)
      .sort()
      .map((key) => [key, sortedJson((value as Json)[key])]),
  );
}

function comparableRow(table: OracleTable, columns: Json, extra: unknown): string {
  const values = table.columns.map((c) => comparableValue(c.kind, columns[c.name]));
  const hasExtra = extra !== null && extra !== undefined && Object.keys(extra as Json).length > 0;
  return JSON.stringify([...values, hasExtra ? sortedJson(extra) : null]);
}

/** The comparable rows of `records` (truth export lines) for `table` (a stream or a child table), sorted. */
export function expectedFromTruth(
  table: string,
  records: readonly Json[],
  context: OracleContext = {},
): string[] {
  const oracle = oracleOf(table);
  return records
    .flatMap((record) =>
      oracle.rows(record, context).map((row) => comparableRow(oracle, row.columns, row.extra)),
    )
    .sort();
}

/** The landing rows of `table` (a stream or a child table) for `account` (of `window` only, when given), comparable and sorted. */
export async function landedRows(
  warehouse: Warehouse,
  table: string,
  account: string,
  window?: { start: string; end: string },
): Promise<string[]> {
  const oracle = oracleOf(table);
  const day = sql.raw(oracle.day ?? "NULL::date");
  const inWindow = window ? sql`AND ${day} >= ${window.start}::date AND ${day} < ${window.end}::date` : sql``;
  const current = oracle.current ? sql.raw(`AND ${oracle.current}`) : sql``;
  const result = await sql<Json>`
    SELECT * FROM ${sql.table(oracle.table)} WHERE _account = ${account} ${inWindow} ${current}`.execute(
    warehouse.db,
  );
  return result.rows.map((row) => comparableRow(oracle, row, row._extra)).sort();
}

function oracleOf(stream: string): OracleTable {
  const table = ORACLE[stream];
  if (!table) throw new Error(`the truth oracle does not know stream ${stream}`);
  return table;
}
