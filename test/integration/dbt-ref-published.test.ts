import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pino } from "pino";
import { runDbt } from "../../src/transform/run-dbt.js";
import { describe, expect, it } from "../helpers/fixtures.js";

/**
 * The project's `ref` (dbt/macros/marts_build_schema.sql): in a build schema (write–audit–publish,
 * `transform --select <mart>`), a mart this invocation does not build is read from the published
 * schema. dbt's own `ref` points at the build schema, where it does not exist, and the build fails
 * with `relation "analytics_marts__build.fct_calls" does not exist` (measured with the override
 * removed). An empty warehouse will do: this is about which relation is read, not its rows.
 */
const BUILD_SCHEMA = "analytics_marts__build";

describe("ref of a mart outside --select in a build schema", () => {
  it("reads the published mart", { timeout: 300_000 }, async ({ database }) => {
    const log = pino({ level: "silent" });
    const inPlace = await mkdtemp(path.join(tmpdir(), "ref-published-"));
    const asBuild = await mkdtemp(path.join(tmpdir(), "ref-build-"));
    try {
      const published = await runDbt({
        databaseUrl: database.url,
        log,
        workDir: inPlace,
        args: ["build", "--select", "+rpt_call_kpis_daily", "--exclude-resource-type", "test", "unit_test"],
      });
      expect(published.ok, published.tail.join("\n")).toBe(true);

      const selected = await runDbt({
        databaseUrl: database.url,
        log,
        workDir: asBuild,
        martsBuildSchema: BUILD_SCHEMA,
        args: ["run", "--select", "rpt_call_kpis_daily"],
      });
      expect(selected.ok, selected.tail.join("\n")).toBe(true);
      const dir = path.join(asBuild, "target", "compiled", "telecom_etl", "models");
      const file = (await readdir(dir, { recursive: true })).find((f) =>
        f.endsWith("rpt_call_kpis_daily.sql"),
      );
      const compiled = await readFile(path.join(dir, file!), "utf8");
      expect(compiled).toContain(`"analytics_marts"."fct_calls"`);
      expect(compiled).not.toContain(`"${BUILD_SCHEMA}"."fct_calls"`);
    } finally {
      await rm(inPlace, { recursive: true, force: true });
      await rm(asBuild, { recursive: true, force: true });
    }
  });
});
