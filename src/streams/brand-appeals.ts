import { CATALOGUE, resourcePath, type TenDlcAppeal } from "@telecom-etl/platform";
import { columnsOf, type RowOf } from "./columns.js";
import { answerOf } from "./resource-reading.js";
import { defineStream, type RequestContext, type StreamRequest } from "./stream-definition.js";

const c = columnsOf<TenDlcAppeal>();

/** The columns of `platform.brand_appeals`; `brand_id` comes from the request (an appeal does not carry it). */
export const BRAND_APPEAL_COLUMNS = [
  c.required("brand_id", "text", (_row, implied) => implied.brand_id),
  c.required("categories", "jsonb", (row) => row.categories),
  c.required("created_at", "timestamptz", (row) => row.created_at),
  c.required("evidence", "jsonb", (row) => row.evidence),
  c.required("explanation", "text", (row) => row.explanation),
  c.required("outcome", "jsonb", (row) => row.outcome),
  c.required("vetting_status", "text", (row) => row.outcome.vetting_status),
  c.required("status", "text", (row) => row.status),
  c.required("updated_at", "timestamptz", (row) => row.updated_at),
] as const;

/** A row of `platform.brand_appeals` as readers get it (typed columns only). */
export type BrandAppealRow = RowOf<typeof BRAND_APPEAL_COLUMNS>;

/** The brands to read: configured (`brand_ids`), else every brand the platform listed. */
function brandIds(context: RequestContext): readonly string[] {
  return context.sources.brandIds ?? context.discovered.map((d) => d.brand_id!).filter(Boolean);
}

/**
 * 10DLC Brand Identity appeals: for each brand, `GET /v3/10dlc/brands/{brand_id}/appeals` (a bare
 * array), every run. The brands are the account's `brand_ids`, else every brand
 * `GET /v3/10dlc/brands` lists. Appeals have no id: the account's set is replaced as a whole.
 */
export const brandAppealsStream = defineStream({
  name: "brand_appeals",
  resource: CATALOGUE.brand_appeals,
  discovery: {
    requests: (context) =>
      context.sources.brandIds === undefined
        ? [{ path: resourcePath(CATALOGUE.ten_dlc_brands, context.revision), query: {}, implied: {} }]
        : [],
    answer: answerOf(CATALOGUE.ten_dlc_brands),
    values: (row) => {
      const id = (row as { brand_id?: unknown } | null)?.brand_id;
      return typeof id === "string" && id !== "" ? { brand_id: id } : null;
    },
  },
  requests(_slice, context): readonly StreamRequest[] {
    return brandIds(context).map((id) => ({
      path: resourcePath(CATALOGUE.brand_appeals, context.revision, [id]),
      query: {},
      implied: { brand_id: id },
    }));
  },
  columns: BRAND_APPEAL_COLUMNS,
  table: { name: "platform.brand_appeals", key: null, writeMode: "replace_all" },
});
