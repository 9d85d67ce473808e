import type pg from "pg";
import type { LandingTable } from "../connection/landing-table.js";
import { quoteIdent, quoteTable } from "../connection/sql-names.js";
import { STAGE_TABLE } from "./stage-rows.js";

/** How the stored rows of a scope and the staged rows that replace them differ, by content. */
export interface ContentDifference {
  /** Stored rows no staged row repeats (each copy counted: two equal stored rows and one staged leave one gone). */
  readonly gone: number;
  /** Staged rows no stored row repeats. */
  readonly fresh: number;
}

/**
 * For rows without an id (a `replace_window` table, a keyless `replace_all` one), what a
 * replacement really changes: the account's stored rows of `scope` (an SQL condition on the landing
 * table's columns, `$1` the account) against the staged rows of `stagedScope` (on alias `s`), typed
 * columns and `_extra` compared with `EXCEPT ALL` (multisets). A re-read of the same rows changes
 * nothing; a read listing 51 of 100 stored rows deletes 49. Must run in the load's transaction,
 * after the stage is filled and before the replacement. `params` follow the account.
 */
export async function contentDifference(
  client: pg.PoolClient,
  table: LandingTable,
  scope: { readonly stored: string; readonly staged: string; readonly params: readonly unknown[] },
): Promise<ContentDifference> {
  const columns = [...table.columns.map((column) => quoteIdent(column.name)), "_extra"].join(", ");
  const result = await client.query<{ gone: string; fresh: string }>(
    `WITH stored AS (SELECT ${columns} FROM ${quoteTable(table.name)} WHERE _account = $1${scope.stored}),
          staged AS (SELECT ${columns} FROM ${STAGE_TABLE} s${scope.staged})
     SELECT (SELECT count(*) FROM (SELECT * FROM stored EXCEPT ALL SELECT * FROM staged) g) AS gone,
            (SELECT count(*) FROM (SELECT * FROM staged EXCEPT ALL SELECT * FROM stored) f) AS fresh`,
    [...scope.params],
  );
  const row = result.rows[0]!;
  return { gone: Number(row.gone), fresh: Number(row.fresh) };
}
