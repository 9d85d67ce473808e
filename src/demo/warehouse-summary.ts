import { sql } from "kysely";
import { STREAMS } from "../streams/registry.js";
import type { Warehouse } from "../warehouse/connect-warehouse.js";
import { quoteTable } from "../warehouse/sql-names.js";

/** Rows per account in each landing table, and a few totals from the marts when they exist. */
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
  const marts = await sql<{
    exists: boolean;
  }>`SELECT to_regclass('analytics_marts.rpt_call_cost_daily') IS NOT NULL AS exists`.execute(warehouse.db);
  if (marts.rows[0]?.exists) {
    const cost = await sql<{ account: string; calls: number; cost: string }>`
      SELECT account, sum(calls)::int AS calls, sum(total_cost_usd)::numeric(14,4)::text AS cost
      FROM analytics_marts.rpt_call_cost_daily GROUP BY 1 ORDER BY 1`.execute(warehouse.db);
    lines.push("call cost (analytics_marts.rpt_call_cost_daily):");
    for (const row of cost.rows) lines.push(`  ${row.account.padEnd(8)} ${row.calls} calls  $${row.cost}`);
  }
  return lines;
}
