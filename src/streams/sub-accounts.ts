import { CATALOGUE, type SubAccount } from "@telecom-etl/platform";
import { columnsOf, type RowOf } from "./columns.js";
import { defineStream } from "./stream-definition.js";

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
 * Sub-accounts: `GET /v1/sub-organizations` (platform-facts.md "Sub-accounts"), the whole paged list
 * of the account's sub-accounts every run, merged by id (a sub-account that leaves the list keeps
 * its last row). Their `api_key`s are never written anywhere; the fan-out reads the key of each
 * sub-account the config lists (`sub_accounts`), in memory only (see "Sub-accounts" in docs/reference/warehouse-tables.md).
 */
export const subAccountsStream = defineStream({
  name: "sub_accounts",
  resource: CATALOGUE.sub_accounts,
  coversSubAccounts: true,
  columns: SUB_ACCOUNT_COLUMNS,
  secretFields: ["api_key"],
  table: { name: "platform.sub_accounts", key: ["id"], writeMode: "merge" },
});
