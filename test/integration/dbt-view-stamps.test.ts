import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { pino } from "pino";
import { runDbt } from "../../src/transform/run-dbt.js";
import type { Warehouse } from "../../src/warehouse/connection/connect-warehouse.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/**
 * The project's view materialization (dbt/macros/view_materialization.sql) re-creates a view only
 * when its compiled SQL changed: it stamps each view with the SQL's MD5 and leaves a view whose
 * stamp matches alone. Views are identified by their OID, which a re-creation changes.
 */
const VIEWS = ["analytics_staging.stg_platform__cdrs", "analytics_intermediate.int_calls_costed"] as const;
const SELECTION = ["--select", "stg_platform__cdrs", "int_calls_costed"];

async function viewState(warehouse: Warehouse) {
  const found = await sql<{ view: string; oid: number; stamp: string | null }>`
    SELECT c.relnamespace::regnamespace::text || '.' || c.relname AS view, c.oid::int AS oid,
           obj_description(c.oid, 'pg_class') AS stamp
    FROM pg_class c
    WHERE c.relkind = 'v' AND c.relnamespace::regnamespace::text || '.' || c.relname IN (${sql.join([...VIEWS])})
    ORDER BY 1`.execute(warehouse.db);
  return found.rows;
}

describe("views are re-created only when their SQL changed", () => {
  // Four dbt runs: 120 s was exceeded on a busy 2-core machine.
  it("a second build leaves them; a different stamp or --full-refresh re-creates them (and the views on them)", {
    timeout: 300_000,
  }, async ({ database }) => {
    const workDir = await mkdtemp(path.join(tmpdir(), "view-stamps-"));
    const dbt = async (...args: string[]) => {
      const result = await runDbt({
        databaseUrl: database.url,
        log: pino({ level: "silent" }),
        workDir,
        args,
      });
      expect(result.ok, result.tail.join("\n")).toBe(true);
    };
    try {
      await dbt("run", ...SELECTION);
      const created = await viewState(database.warehouse);
      expect(created.map((v) => v.view)).toEqual([...VIEWS].sort());
      for (const view of created) expect(view.stamp).toMatch(/^dbt view sql md5 [0-9a-f]{32}$/);

      await dbt("run", ...SELECTION);
      expect(await viewState(database.warehouse)).toEqual(created);

      // A stamp that differs (the SQL of an older project version): the view is re-created with
      // the current stamp, and so is the view on it (dropping the old one drops its dependants).
      await sql`COMMENT ON VIEW analytics_staging.stg_platform__cdrs IS 'dbt view sql md5 of an older version'`.execute(
        database.warehouse.db,
      );
      await dbt("run", ...SELECTION);
      const rebuilt = await viewState(database.warehouse);
      expect(rebuilt.map((v) => v.stamp)).toEqual(created.map((v) => v.stamp));
      for (const [i, view] of rebuilt.entries()) expect(view.oid).not.toBe(created[i]?.oid);

      await dbt("run", ...SELECTION, "--full-refresh");
      const refreshed = await viewState(database.warehouse);
      for (const [i, view] of refreshed.entries()) expect(view.oid).not.toBe(rebuilt[i]?.oid);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
