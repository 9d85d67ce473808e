import type pg from "pg";
import type { LoadRow } from "../streams/load-row.js";
import type { ColumnSpec } from "../streams/stream-definition.js";
import { copyRows } from "./copy-rows.js";
import { quoteIdent } from "./sql-names.js";

/** Name of the temporary stage table of the current transaction. */
export const STAGE_TABLE = "_etl_stage";

/**
 * Creates the transaction's temporary stage (the stream's typed columns plus `_extra`, dropped at
 * commit or rollback) and COPYs `rows` into it. A value its column type rejects fails the COPY,
 * and with it the transaction. Must run inside a transaction on `client`.
 */
export async function stageRows(
  client: pg.PoolClient,
  columns: readonly ColumnSpec[],
  rows: readonly LoadRow[],
): Promise<number> {
  const definitions = columns.map((column) => `${quoteIdent(column.name)} ${column.pgType}`);
  await client.query(
    `CREATE TEMP TABLE ${STAGE_TABLE} (${[...definitions, "_extra jsonb"].join(", ")}) ON COMMIT DROP`,
  );
  if (rows.length === 0) return 0;
  const list = [...columns.map((column) => quoteIdent(column.name)), "_extra"].join(", ");
  return copyRows(client, `${STAGE_TABLE} (${list})`, columns, rows);
}
