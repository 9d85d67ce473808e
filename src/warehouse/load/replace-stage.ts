import type pg from "pg";
import type { LandingTable } from "../connection/landing-table.js";
import { quoteIdent, quoteTable, sameColumns } from "../connection/sql-names.js";
import { contentDifference } from "./content-difference.js";
import { type MergeCounts, mergeStage, type RowProvenance } from "./merge-stage.js";
import { STAGE_TABLE } from "./stage-rows.js";

/** What replacing an account's set (or one snapshot of it) did. */
export interface ReplaceSetCounts extends MergeCounts {
  readonly deleted: number;
}

/**
 * The staged rows become the account's set (`replace_all`), or the account's snapshot of each day
 * staged (`replace_snapshot`): rows are merged by key (unchanged rows keep their run and extraction
 * time), then the rows of that scope whose key was not staged are deleted. Must run inside the
 * load's transaction, after the stage is filled.
 */
export async function replaceSetFromStage(
  client: pg.PoolClient,
  table: LandingTable,
  provenance: RowProvenance,
): Promise<ReplaceSetCounts> {
  if (table.key === null) return replaceKeylessSet(client, table, provenance);
  const counts = await mergeStage(client, table, provenance);
  const matches = sameColumns(table.key, "s", "t");
  let scope = "";
  if (table.writeMode === "replace_snapshot") {
    if (!table.windowColumn) throw new Error(`${table.name} is a snapshot but names no snapshot column`);
    const day = quoteIdent(table.windowColumn);
    scope = ` AND t.${day} IN (SELECT DISTINCT ${day} FROM ${STAGE_TABLE})`;
  }
  const deleted = await client.query(
    `DELETE FROM ${quoteTable(table.name)} t
     WHERE t._account = $1${scope} AND NOT EXISTS (SELECT 1 FROM ${STAGE_TABLE} s WHERE ${matches})`,
    [provenance.account],
  );
  return { ...counts, deleted: deleted.rowCount ?? 0 };
}

/**
 * A set without ids (10DLC appeals): the account's rows are deleted and the staged ones inserted,
 * numbered by content; what changed is counted by content (see contentDifference).
 */
async function replaceKeylessSet(
  client: pg.PoolClient,
  table: LandingTable,
  provenance: RowProvenance,
): Promise<ReplaceSetCounts> {
  const name = quoteTable(table.name);
  const columns = table.columns.map((column) => quoteIdent(column.name));
  const staged = columns.map((column) => `s.${column}`);
  const difference = await contentDifference(client, table, {
    stored: "",
    staged: "",
    params: [provenance.account],
  });
  await client.query(`DELETE FROM ${name} WHERE _account = $1`, [provenance.account]);
  await client.query(
    `INSERT INTO ${name} (_account, _row_ordinal, ${columns.join(", ")}, _run_id, _extracted_at, _extra)
     SELECT $1::text, row_number() OVER (ORDER BY ${[...staged, "s._extra::text"].join(", ")}),
            ${staged.join(", ")}, $2::bigint, $3::timestamptz, s._extra
     FROM ${STAGE_TABLE} s`,
    [provenance.account, provenance.runId, provenance.extractedAt],
  );
  return { inserted: difference.fresh, updated: 0, deleted: difference.gone };
}
