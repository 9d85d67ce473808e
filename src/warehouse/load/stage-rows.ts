import type pg from "pg";
import type { LandingColumn, LoadRow } from "../connection/landing-table.js";
import { quoteIdent } from "../connection/sql-names.js";
import { copyRows } from "./copy-rows.js";

/** Name of the temporary stage table of the current transaction. */
export const STAGE_TABLE = "_etl_stage";

/**
 * Creates the transaction's temporary stage (the stream's typed columns plus `_extra`, dropped at
 * commit or rollback; a stage already there is replaced) and COPYs `rows` into it. A value its column type rejects fails the COPY,
 * and with it the transaction. Must run inside a transaction on `client`.
 */
export async function stageRows(
  client: pg.PoolClient,
  columns: readonly LandingColumn[],
  rows: readonly LoadRow[],
): Promise<number> {
  const definitions = columns.map((column) => `${quoteIdent(column.name)} ${column.pgType}`);
  // A load that writes a child table after its own rows stages twice in one transaction.
  await client.query(`DROP TABLE IF EXISTS ${STAGE_TABLE}`);
  await client.query(
    `CREATE TEMP TABLE ${STAGE_TABLE} (${[...definitions, "_extra jsonb"].join(", ")}) ON COMMIT DROP`,
  );
  if (rows.length === 0) return 0;
  const list = [...columns.map((column) => quoteIdent(column.name)), "_extra"].join(", ");
  return copyRows(client, `${STAGE_TABLE} (${list})`, columns, rows);
}
