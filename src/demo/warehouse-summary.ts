import { sql } from "kysely";
import { STREAMS } from "../streams/registry.js";
import type { Warehouse } from "../warehouse/connection/connect-warehouse.js";
import { quoteTable } from "../warehouse/connection/sql-names.js";

/** Rows per account in each landing table. */
export async function warehouseSummary(warehouse: Warehouse): Promise<string[]> {
  const lines: string[] = [];
  const perStream = Object.values(STREAMS).map(
    (stream) =>
      sql`SELECT ${stream.name}::text AS stream, _account AS account, count(*)::int AS rows FROM ${sql.raw(quoteTable(stream.table.name))} GROUP BY 2`,
  );
  const landing = await sql<{ stream: string; account: string; rows: number }>`
    ${sql.join(perStream, sql` UNION ALL `)} ORDER BY 1, 2`.execute(warehouse.db);
  lines.push("rows in the warehouse (platform.*):");
  for (const row of landing.rows)
    lines.push(`  ${row.stream.padEnd(20)} ${row.account.padEnd(8)} ${row.rows}`);
  return lines;
}
