import type pg from "pg";
import type { LandingTable } from "../connection/landing-table.js";
import { quoteIdent, quoteTable, sameColumns } from "../connection/sql-names.js";
import type { RowProvenance } from "./merge-stage.js";
import { STAGE_TABLE } from "./stage-rows.js";

/**
 * What a history write did, by key: keys read for the first time (a version opened), keys whose row
 * changed (its version closed, a new one opened), keys no longer read (their version closed).
 */
export interface HistoryCounts {
  readonly inserted: number;
  readonly updated: number;
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
  const sameKey = sameColumns(table.key, "s", "t");
  const sameValues = `(${compared.map((c) => `s.${c}`).join(", ")}) IS NOT DISTINCT FROM (${compared.map((c) => `t.${c}`).join(", ")})`;
  const closed = await client.query<{ changed: string; gone: string }>(
    `WITH closed AS (
       UPDATE ${name} t SET valid_to = $2::timestamptz
       WHERE t._account = $1 AND t.valid_to IS NULL
         AND NOT EXISTS (SELECT 1 FROM ${STAGE_TABLE} s WHERE ${sameKey} AND ${sameValues})
       RETURNING ${table.key.map((k) => `t.${quoteIdent(k)}`).join(", ")}
     )
     SELECT count(*) FILTER (WHERE EXISTS (SELECT 1 FROM ${STAGE_TABLE} s WHERE ${sameKey})) AS changed,
            count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM ${STAGE_TABLE} s WHERE ${sameKey})) AS gone
     FROM closed t`,
    [provenance.account, readAt],
  );
  const changed = Number(closed.rows[0]!.changed);
  const inserted = await client.query(
    `INSERT INTO ${name} (_account, ${columns.join(", ")}, _run_id, _extracted_at, _extra, valid_from, valid_to)
     SELECT $1::text, ${columns.map((c) => `s.${c}`).join(", ")}, $2::bigint, $3::timestamptz, s._extra, $4::timestamptz, NULL
     FROM ${STAGE_TABLE} s
     WHERE NOT EXISTS (
       SELECT 1 FROM ${name} t WHERE t._account = $1 AND t.valid_to IS NULL AND ${sameKey} AND ${sameValues})`,
    [provenance.account, provenance.runId, provenance.extractedAt, readAt],
  );
  return {
    inserted: (inserted.rowCount ?? 0) - changed,
    updated: changed,
    closed: Number(closed.rows[0]!.gone),
  };
}
