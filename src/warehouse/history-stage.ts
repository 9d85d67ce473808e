import type pg from "pg";
import type { LandingTable } from "./landing-table.js";
import type { RowProvenance } from "./merge-stage.js";
import { quoteIdent, quoteTable } from "./sql-names.js";
import { STAGE_TABLE } from "./stage-rows.js";

/** What a history write did: versions opened (inserted) and closed. */
export interface HistoryCounts {
  readonly inserted: number;
  readonly closed: number;
}

/**
 * Writes a read of a `history` table (call webhooks): for each key, the open version
 * (`valid_to IS NULL`) is closed at `readAt` (the read's instant on the run's and the platform's
 * clocks) when the row changed or was not read any more, and a new version opens (`valid_from` =
 * `readAt`) for every staged row without an identical open version. A re-read of an unchanged set writes nothing. Must run inside the load's
 * transaction, after the stage is filled.
 */
export async function writeHistoryFromStage(
  client: pg.PoolClient,
  table: LandingTable,
  provenance: RowProvenance,
  readAt: Date,
): Promise<HistoryCounts> {
  if (table.key === null) throw new Error(`${table.name} keeps history but has no key`);
  const name = quoteTable(table.name);
  const key = new Set(table.key);
  const columns = table.columns.map((column) => quoteIdent(column.name));
  const compared = [
    ...table.columns.filter((c) => !key.has(c.name)).map((c) => quoteIdent(c.name)),
    "_extra",
  ];
  const sameKey = table.key.map((k) => `s.${quoteIdent(k)} = t.${quoteIdent(k)}`).join(" AND ");
  const sameValues = `(${compared.map((c) => `s.${c}`).join(", ")}) IS NOT DISTINCT FROM (${compared.map((c) => `t.${c}`).join(", ")})`;
  const closed = await client.query(
    `UPDATE ${name} t SET valid_to = $2::timestamptz
     WHERE t._account = $1 AND t.valid_to IS NULL
       AND NOT EXISTS (SELECT 1 FROM ${STAGE_TABLE} s WHERE ${sameKey} AND ${sameValues})`,
    [provenance.account, readAt],
  );
  const inserted = await client.query(
    `INSERT INTO ${name} (_account, ${columns.join(", ")}, _run_id, _extracted_at, _extra, valid_from, valid_to)
     SELECT $1::text, ${columns.map((c) => `s.${c}`).join(", ")}, $2::bigint, $3::timestamptz, s._extra, $4::timestamptz, NULL
     FROM ${STAGE_TABLE} s
     WHERE NOT EXISTS (
       SELECT 1 FROM ${name} t WHERE t._account = $1 AND t.valid_to IS NULL AND ${sameKey} AND ${sameValues})`,
    [provenance.account, provenance.runId, provenance.extractedAt, readAt],
  );
  return { inserted: inserted.rowCount ?? 0, closed: closed.rowCount ?? 0 };
}
