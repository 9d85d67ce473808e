import { CATALOGUE, resourcePath, type SubAccount } from "../platform/index.js";
import { columnsOf, type RowOf } from "./columns.js";
import { defineStream, type StreamRequest } from "./stream-definition.js";

const c = columnsOf<SubAccount>();

/** The columns of `platform.sub_accounts`; the sub-account's `api_key` is a credential and never stored. */
export const SUB_ACCOUNT_COLUMNS = [
  c.required("id", "bigint", (row) => row.id),
  c.required("created_at", "timestamptz", (row) => row.created_at),
  c.required("name", "text", (row) => row.name),
  c.required("master_organization", "bigint", (row) => row.master_organization),
  c.required("status", "text", (row) => row.status),
  c.nullable("sms_endpoint", "text", (row) => row.default_destinations.sms_endpoint),
  c.nullable("dlr_endpoint", "text", (row) => row.default_destinations.dlr_endpoint),
] as const;

/** A row of `platform.sub_accounts` as readers get it. */
export type SubAccountRow = RowOf<typeof SUB_ACCOUNT_COLUMNS>;

/**
 * Sub-accounts: `GET /v1/sub-organizations/{id}` for each id the account's config lists
 * (`sub_accounts`), every run, merged by id. Its `api_key` is never written anywhere (the run uses
 * it, in memory only, to read the sub-account's own streams: see fan-out in the README).
 */
export const subAccountsStream = defineStream({
  name: "sub_accounts",
  resource: CATALOGUE.sub_account,
  coversSubAccounts: true,
  slicing: "full_refresh",
  requests(_slice, context): readonly StreamRequest[] {
    return context.sources.subAccounts.map((id) => ({
      path: resourcePath(CATALOGUE.sub_account, context.revision, [String(id)]),
      query: {},
      implied: {},
    }));
  },
  columns: SUB_ACCOUNT_COLUMNS,
  secretFields: ["api_key"],
  table: { name: "platform.sub_accounts", key: ["id"], writeMode: "merge" },
});
