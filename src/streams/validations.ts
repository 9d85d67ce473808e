import {
  CATALOGUE,
  type NumberValidationResult,
  numberValidationResultSchema,
  resourcePath,
  type ValidationResponse,
} from "@telecom-etl/platform";
import { columnsOf, type Implied, type RowOf } from "./columns.js";
import { defineStream, type StreamRequest } from "./stream-definition.js";

const c = columnsOf<ValidationResponse>();

/** The columns of `platform.validations`: a validation request's state. */
export const VALIDATION_COLUMNS = [
  c.required("token", "text", (_row, implied) => implied.token),
  c.required("status", "text", (row) => row.status),
  c.required("count", "integer", (row) => row.count),
  c.required("pending", "integer", (row) => row.pending),
] as const;

/** A row of `platform.validations` as readers get it. */
export type ValidationRow = RowOf<typeof VALIDATION_COLUMNS>;

const r = columnsOf<NumberValidationResult>();

/** The columns of `platform.validation_results`: one number's result (the fields present depend on the request's type). */
export const VALIDATION_RESULT_COLUMNS = [
  r.required("token", "text", (_row, implied) => implied.token),
  r.required("phone_number", "text", (row) => row.phone_number),
  r.nullable("valid", "boolean", (row) => row.valid),
  r.nullable("country_code", "text", (row) => row.country_code),
  r.nullable("e164_format", "text", (row) => row.e164_format),
  r.nullable("national_format", "text", (row) => row.national_format),
  r.nullable("ported", "boolean", (row) => row.ported),
  r.nullable("mcc", "text", (row) => row.mcc),
  r.nullable("mnc", "text", (row) => row.mnc),
  r.nullable("number_type", "text", (row) => row.number_type),
  r.nullable("carrier_name", "text", (row) => row.carrier_name),
  r.nullable("risky_destination", "boolean", (row) => row.risky_destination),
  r.nullable("unallocated_range", "boolean", (row) => row.unallocated_range),
  r.nullable("reachable", "boolean", (row) => row.reachable),
  r.nullable("roaming", "boolean", (row) => row.roaming),
  r.nullable("timezone", "text", (row) => row.timezone),
  r.nullable("charge", "numeric", (row) => row.charge),
  r.nullable("error_code", "text", (row) => row.error_code),
] as const;

/** A row of `platform.validation_results` as readers get it. */
export type ValidationResultRow = RowOf<typeof VALIDATION_RESULT_COLUMNS>;

/**
 * Results of asynchronous number validations: a lookup of tracked tokens (the account's
 * `validation_tokens`, and `telecom-etl track validation <token>`), each polled with
 * `GET /v1/validation/{token}` every run until its status is `success`; its results upsert by
 * (account, token, phone_number) as they appear. 404 (`error_code` 011) → the token is `not_found`;
 * 403 (012) → the key lacks `validator:read`, the stream is skipped for the account.
 */
export const validationsStream = defineStream({
  name: "validations",
  resource: CATALOGUE.validation,
  lookup: {
    candidates: "tracked",
    trackedKind: "validation",
    configured: (sources) => sources.validationTokens,
    state: (status, body) =>
      status === 404
        ? "not_found"
        : (body as { status?: unknown } | null)?.status === "success"
          ? "final"
          : "pending",
  },
  requests(slice, context): readonly StreamRequest[] {
    if (slice.kind !== "ids") return [];
    return slice.items.map((item) => ({
      path: resourcePath(CATALOGUE.validation, context.revision, [item.id]),
      query: {},
      implied: { token: item.id, source: item.implied.source ?? "cli" },
      lookupId: item.id,
    }));
  },
  columns: VALIDATION_COLUMNS,
  table: { name: "platform.validations", key: ["token"], writeMode: "merge" },
  children: [
    {
      name: "validation_results",
      schema: numberValidationResultSchema,
      columns: VALIDATION_RESULT_COLUMNS,
      table: {
        name: "platform.validation_results",
        columns: VALIDATION_RESULT_COLUMNS,
        key: ["token", "phone_number"],
        writeMode: "merge",
      },
      rows: (parent: ValidationResponse, implied: Implied) =>
        parent.items.map((item) => ({ row: item, implied: { token: implied.token! } })),
    },
  ],
});
