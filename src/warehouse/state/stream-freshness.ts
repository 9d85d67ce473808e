import { type Kysely, sql } from "kysely";
import type { Database } from "../connection/database.js";

/** When an (account, stream) last ended a run `succeeded`, and when a window of it last changed rows. */
export interface StreamFreshness {
  readonly account: string;
  readonly stream: string;
  /** The end of the latest run in which the stream succeeded; null if it never did. */
  readonly lastSuccessAt: Date | null;
  /**
   * The latest load of a window that inserted, updated or deleted rows: how old the newest data is
   * (what dbt's freshness measures with `_extracted_at`, read here from the run records, not the
   * landing tables); null if none did.
   */
  readonly lastChangeAt: Date | null;
}

/** Freshness of every (account, stream) the run records know. */
export async function readStreamFreshness(db: Kysely<Database>): Promise<StreamFreshness[]> {
  const rows = await sql<{
    account: string;
    stream: string;
    last_success_at: Date | null;
    last_change_at: Date | null;
  }>`
    WITH success AS (
      SELECT rs.account, rs.stream, max(r.finished_at) AS last_success_at
      FROM etl.run_streams rs JOIN etl.runs r ON r.id = rs.run_id
      WHERE rs.status = 'succeeded' AND r.finished_at IS NOT NULL
      GROUP BY rs.account, rs.stream
    ), change AS (
      SELECT account, stream, max(finished_at) AS last_change_at
      FROM etl.run_slices
      WHERE status = 'succeeded' AND rows_inserted + rows_updated + rows_deleted > 0
      GROUP BY account, stream
    )
    SELECT coalesce(s.account, c.account) AS account, coalesce(s.stream, c.stream) AS stream,
           s.last_success_at, c.last_change_at
    FROM success s FULL JOIN change c ON c.account = s.account AND c.stream = s.stream
    ORDER BY 1, 2`.execute(db);
  return rows.rows.map((r) => ({
    account: r.account,
    stream: r.stream,
    lastSuccessAt: r.last_success_at === null ? null : new Date(r.last_success_at),
    lastChangeAt: r.last_change_at === null ? null : new Date(r.last_change_at),
  }));
}
